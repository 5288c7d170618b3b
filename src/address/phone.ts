/**
 * Phone numbers. Only the rules the library relies on are encoded (North American plan, Brazil, Mexico,
 * Argentina, Russia/Kazakhstan lengths); other countries are checked against E.164's 8 to 15 digits.
 *
 * @module
 */

import { ValidationException } from "../errors.ts";

/** Options of {@link normalizePhone}. */
export interface NormalizePhoneOptions {
  /**
   * The country of numbers written in national form: an ISO 3166 code (`"BR"`) or a calling code (`"55"`,
   * `"+55"`). Without it, a number must be in international form.
   */
  defaultCountry?: string;
}

/** Calling codes of the ISO countries `defaultCountry` accepts by name. */
const CALLING_CODES: Readonly<Record<string, string>> = {
  AR: "54",
  AT: "43",
  AU: "61",
  BE: "32",
  BO: "591",
  BR: "55",
  CA: "1",
  CH: "41",
  CL: "56",
  CN: "86",
  CO: "57",
  CR: "506",
  CU: "53",
  CZ: "420",
  DE: "49",
  DK: "45",
  DO: "1",
  EC: "593",
  EG: "20",
  ES: "34",
  FI: "358",
  FR: "33",
  GB: "44",
  GR: "30",
  GT: "502",
  HN: "504",
  HU: "36",
  ID: "62",
  IE: "353",
  IL: "972",
  IN: "91",
  IT: "39",
  JP: "81",
  KE: "254",
  KR: "82",
  KZ: "7",
  MA: "212",
  MX: "52",
  MY: "60",
  NG: "234",
  NI: "505",
  NL: "31",
  NO: "47",
  NZ: "64",
  PA: "507",
  PE: "51",
  PH: "63",
  PK: "92",
  PL: "48",
  PR: "1",
  PT: "351",
  PY: "595",
  RO: "40",
  RU: "7",
  SA: "966",
  SE: "46",
  SG: "65",
  SV: "503",
  TR: "90",
  UA: "380",
  US: "1",
  UY: "598",
  VE: "58",
  VN: "84",
  ZA: "27",
}; // deno-fmt-ignore

const FORMATTING = /[\s\-().\/]/g;

function refuse(input: string, why: string): never {
  throw new ValidationException(`Invalid phone number ${JSON.stringify(input)}: ${why}`, { messages: [why] });
}

/** Why an international digit string cannot be a number, or null when it can. */
function implausible(digits: string): string | null {
  if (digits.length < 8 || digits.length > 15) {
    return `an international number has 8 to 15 digits, got ${digits.length}`;
  }
  if (digits.startsWith("1")) {
    return digits.length === 11 && /^1[2-9]/.test(digits)
      ? null
      : "a North American number is 1 followed by 10 digits, the area code starting with 2-9";
  }
  if (digits.startsWith("55")) {
    return (digits.length === 12 || digits.length === 13) && /^55[1-9]{2}/.test(digits)
      ? null
      : "a Brazilian number is 55, a two-digit area code and 8 or 9 digits";
  }
  if (digits.startsWith("52") || digits.startsWith("54")) {
    return digits.length === 12 || digits.length === 13
      ? null
      : "a Mexican or Argentinian number has 12 or 13 digits";
  }
  if (digits.startsWith("7")) return digits.length === 11 ? null : "a number of country code 7 has 11 digits";
  return null;
} // deno-fmt-ignore

function callingCode(input: string, country: string): string {
  const trimmed = country.trim();
  const code = /^\+?\d{1,3}$/.test(trimmed) ? trimmed.replace("+", "") : CALLING_CODES[trimmed.toUpperCase()];
  if (code === undefined) {
    throw new ValidationException(
      `Invalid phone number ${JSON.stringify(input)}: unknown defaultCountry ${JSON.stringify(country)}`,
      { messages: [`defaultCountry must be an ISO 3166 code such as "BR" or a calling code such as "55"`] },
    );
  }
  return code;
}

/**
 * A phone number in international digits-only form; a national one (trunk `0`, or too short for a country
 * code) needs `defaultCountry`. Anything else is a `ValidationException` before any request.
 *
 * @example
 * ```ts
 * import { normalizePhone } from "@gw/gateway/delivery";
 * normalizePhone("+55 (11) 99999-9999"); // "5511999999999"
 * normalizePhone("(11) 99999-9999", { defaultCountry: "BR" }); // "5511999999999"
 * normalizePhone("020 7946 0958", { defaultCountry: "GB" }); // "442079460958"
 * ```
 */
export function normalizePhone(input: string, options: NormalizePhoneOptions = {}): string {
  if (typeof input !== "string" || input.trim() === "") refuse(String(input), "a phone number is required");
  if (input.includes("@")) refuse(input, "expected a phone number, got a JID");
  let text = input.trim().replace(FORMATTING, "");
  let international = false;
  if (text.startsWith("+")) {
    international = true;
    text = text.slice(1);
  } else if (text.startsWith("00")) {
    international = true;
    text = text.slice(2);
  }
  if (!/^\d+$/.test(text)) refuse(input, "only digits, spaces, +, -, ., / and parentheses are allowed");
  if (!international && options.defaultCountry !== undefined) {
    const code = callingCode(input, options.defaultCountry);
    // Written with the country code but without "+": keep it when it reads as a whole number.
    if (!text.startsWith("0") && text.startsWith(code) && implausible(text) === null) return text;
    text = code + text.replace(/^0+/, "");
  } else if (!international) {
    if (text.startsWith("0")) {
      refuse(input, "a number in national form (trunk prefix 0) needs defaultCountry");
    }
    if (text.length < 10) refuse(input, "too short to carry a country code; give defaultCountry");
  }
  const why = implausible(text);
  if (why !== null) refuse(input, international ? why : `${why} (give defaultCountry for a national number)`);
  return text;
}

type Rule = { code: string; digit: string; mobile?: RegExp };

// The extra digit after the country code (MX, AR) or after the area code (BR) that some accounts are
// registered with and others without.
const RULES: readonly Rule[] = [
  { code: "55", digit: "9", mobile: /^[6-9]/ },
  { code: "52", digit: "1" },
  { code: "54", digit: "9" },
];

function variantOf(digits: string): { withDigit: string; withoutDigit: string } | null {
  for (const rule of RULES) {
    if (!digits.startsWith(rule.code)) continue;
    // Brazil: the 9 follows the two-digit area code and only mobiles (subscriber 6-9) carry it.
    const at = rule.code === "55" ? 4 : 2;
    if (digits.length === 13 && digits[at] === rule.digit) {
      const without = digits.slice(0, at) + digits.slice(at + 1);
      if (rule.mobile && !rule.mobile.test(without.slice(at))) return null;
      return { withDigit: digits, withoutDigit: without };
    }
    if (digits.length === 12) {
      if (rule.mobile && !rule.mobile.test(digits.slice(at))) return null;
      return { withDigit: digits.slice(0, at) + rule.digit + digits.slice(at), withoutDigit: digits };
    }
    return null;
  }
  return null;
}

function digitsOf(number: string): string {
  const user = /^(\d+)(?::\d+)?@(?:s\.whatsapp\.net|c\.us)$/.exec(number.trim());
  return user ? user[1] : normalizePhone(number);
}

/**
 * A number and the other forms its account may be registered under, itself first (Brazil's 9th digit,
 * Mexico's `1` after `52`, Argentina's `9` after `54`).
 *
 * @example
 * ```ts
 * import { phoneVariants } from "@gw/gateway/delivery";
 * phoneVariants("5511999998888"); // ["5511999998888", "551199998888"]
 * phoneVariants("5215512345678"); // ["5215512345678", "525512345678"]
 * phoneVariants("14155550100"); // ["14155550100"]
 * ```
 */
export function phoneVariants(number: string): string[] {
  const digits = digitsOf(number);
  const variant = variantOf(digits);
  if (variant === null) return [digits];
  return [digits, digits === variant.withDigit ? variant.withoutDigit : variant.withDigit];
}

/**
 * One key for every variant of a number or phone-number JID, for matching inbound messages to a contact;
 * never a send target: the account may exist only under the other form.
 *
 * @example
 * ```ts
 * import { phoneMatchKey } from "@gw/gateway/delivery";
 * phoneMatchKey("+55 11 99999-8888") === phoneMatchKey("551199998888@s.whatsapp.net"); // true
 * ```
 */
export function phoneMatchKey(number: string): string {
  const digits = digitsOf(number);
  return variantOf(digits)?.withoutDigit ?? digits;
}
