/**
 * Validation helpers of the request objects: one message per bad field, so one error names every problem.
 *
 * @module
 */

import { ValidationException } from "../errors.ts";
import { compact } from "../util/json_shape.ts";
import { isRecord } from "../util/json_shape.ts";

/** A JID the server accepts as a recipient: a person, a group or a LID. */
const JID = /^[0-9A-Za-z._:-]+@(s\.whatsapp\.net|g\.us|lid)$/;
/** Formatting people type into phone numbers; stripped before the digits check. */
const NUMBER_FORMATTING = /[\s+\-().]/g;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
const HTTP_URL = /^https?:\/\/\S+$/i;

/** Collects one message per bad field, then throws them together. */
export class Problems {
  /** The messages collected so far. */
  readonly messages: string[] = [];

  /** Record a problem. */
  add(message: string): void {
    this.messages.push(message);
  }

  /** Throw a `ValidationException` listing every problem, when there is one. */
  throwIfAny(what: string): void {
    if (this.messages.length === 0) return;
    throw new ValidationException(`Invalid ${what}: ${this.messages.join("; ")}`, {
      messages: [...this.messages],
    });
  }

  /** A string field; `required` rejects missing and blank values. Returns the value as given. */
  text(field: string, value: unknown, options: { required?: boolean } = {}): string | undefined {
    if (value === undefined || value === null) {
      if (options.required) this.add(`${field} is required`);
      return undefined;
    }
    if (typeof value !== "string") {
      this.add(`${field} must be a string`);
      return undefined;
    }
    if (options.required && value.trim() === "") {
      this.add(`${field} must not be empty`);
      return undefined;
    }
    return value;
  }

  /** An optional boolean field. */
  bool(field: string, value: unknown, options: { required?: boolean } = {}): boolean | undefined {
    if (value === undefined || value === null) {
      if (options.required) this.add(`${field} is required`);
      return undefined;
    }
    if (typeof value !== "boolean") {
      this.add(`${field} must be true or false`);
      return undefined;
    }
    return value;
  }

  /** A finite number field, optionally an integer within `[min, max]`. */
  number(
    field: string,
    value: unknown,
    options: { required?: boolean; integer?: boolean; min?: number; max?: number } = {},
  ): number | undefined {
    if (value === undefined || value === null) {
      if (options.required) this.add(`${field} is required`);
      return undefined;
    }
    if (typeof value !== "number" || !Number.isFinite(value)) {
      this.add(`${field} must be a number`);
      return undefined;
    }
    if (options.integer && !Number.isInteger(value)) {
      this.add(`${field} must be an integer`);
      return undefined;
    }
    const { min, max } = options;
    if ((min !== undefined && value < min) || (max !== undefined && value > max)) {
      if (min !== undefined && max !== undefined) this.add(`${field} must be between ${min} and ${max}`);
      else if (min !== undefined) this.add(`${field} must be at least ${min}`);
      else this.add(`${field} must be at most ${max}`);
      return undefined;
    }
    return value;
  }

  /** A value out of a fixed set. */
  oneOf<T extends string | number>(
    field: string,
    value: unknown,
    allowed: readonly T[],
    options: { required?: boolean } = {},
  ): T | undefined {
    if (value === undefined || value === null) {
      if (options.required) this.add(`${field} is required`);
      return undefined;
    }
    if (!allowed.includes(value as T)) {
      this.add(`${field} must be one of ${allowed.map((item) => JSON.stringify(item)).join(", ")}`);
      return undefined;
    }
    return value as T;
  }

  /** An array field; `minItems` defaults to 0. */
  array(
    field: string,
    value: unknown,
    options: { required?: boolean; minItems?: number; maxItems?: number } = {},
  ): unknown[] | undefined {
    if (value === undefined || value === null) {
      if (options.required) this.add(`${field} is required`);
      return undefined;
    }
    if (!Array.isArray(value)) {
      this.add(`${field} must be an array`);
      return undefined;
    }
    const { minItems = 0, maxItems } = options;
    if (value.length < minItems || (maxItems !== undefined && value.length > maxItems)) {
      if (maxItems === undefined) {
        this.add(`${field} must have at least ${minItems} item${minItems === 1 ? "" : "s"}`);
      } else this.add(`${field} must have between ${minItems} and ${maxItems} items`);
      return undefined;
    }
    return value;
  }

  /** A plain object field. */
  object(
    field: string,
    value: unknown,
    options: { required?: boolean } = {},
  ): Record<string, unknown> | undefined {
    if (value === undefined || value === null) {
      if (options.required) this.add(`${field} is required`);
      return undefined;
    }
    if (!isRecord(value)) {
      this.add(`${field} must be an object`);
      return undefined;
    }
    return value;
  }

  /**
   * A recipient: a phone number in international form (spaces, `+`, dashes, dots and parentheses are
   * stripped) or a JID (`@s.whatsapp.net`, `@g.us`, `@lid`). Returns the normalized value.
   */
  recipient(field: string, value: unknown, options: { required?: boolean; minDigits?: number } = {}):
    | string
    | undefined {
    const text = this.text(field, value, { required: options.required ?? true });
    if (text === undefined) return undefined;
    const normalized = normalizeNumber(text, options.minDigits);
    if (normalized === null) {
      this.add(
        `${field} must be a phone number in international form (e.g. "5511999999999") or a JID ending in ` +
          `@s.whatsapp.net, @g.us or @lid; got ${JSON.stringify(text)}`,
      );
      return undefined;
    }
    return normalized;
  }

  /** Media as an http(s) URL or raw base64 (a `data:` URI is refused with a hint to strip its prefix). */
  media(field: string, value: unknown, options: { required?: boolean } = {}): string | undefined {
    const text = this.text(field, value, { required: options.required ?? true });
    if (text === undefined) return undefined;
    const kind = mediaKind(text);
    if (kind === "data-uri") {
      this.add(
        `${field} must be an http(s) URL or raw base64, not a data URI: strip the "data:...;base64," prefix`,
      );
      return undefined;
    }
    if (kind === "invalid") {
      this.add(`${field} must be an http(s) URL or raw base64`);
      return undefined;
    }
    return kind === "base64" ? text.replace(/\s+/g, "") : text.trim();
  }

  /** A message key `{ id, remoteJid, fromMe, participant? }`; `required` lists the fields needed. */
  messageKey(
    field: string,
    value: unknown,
    required: ReadonlyArray<"id" | "remoteJid" | "fromMe"> = ["id", "remoteJid", "fromMe"],
  ): MessageKeyInput | undefined {
    const key = this.object(field, value, { required: true });
    if (key === undefined) return undefined;
    const before = this.messages.length;
    const id = this.text(`${field}.id`, key.id, { required: required.includes("id") });
    const remoteJid = this.text(`${field}.remoteJid`, key.remoteJid, {
      required: required.includes("remoteJid"),
    });
    const fromMe = this.bool(`${field}.fromMe`, key.fromMe, { required: required.includes("fromMe") });
    const participant = this.text(`${field}.participant`, key.participant);
    if (this.messages.length > before) return undefined;
    return compact({ id, remoteJid, fromMe, participant }) as MessageKeyInput;
  }
}

/** A message key as given by callers and sent to the server. */
export interface MessageKeyInput {
  /** Message id (`key.id` of the send response or webhook). */
  id: string;
  /** Chat JID. */
  remoteJid: string;
  /** Whether the message was sent by this instance. */
  fromMe: boolean;
  /** Sender inside a group. */
  participant?: string;
}

/**
 * Normalize a recipient: strip phone formatting and keep the digits, or keep a JID as it is. Null when the
 * value is neither (letters, too few digits, an unknown JID suffix).
 *
 * @example
 * ```ts
 * import { normalizeNumber } from "@gw/gateway/resources";
 * normalizeNumber("+55 (11) 99999-9999"); // "5511999999999"
 * normalizeNumber("120363025246125888@g.us"); // "120363025246125888@g.us"
 * normalizeNumber("hello"); // null
 * ```
 */
export function normalizeNumber(value: string, minDigits = 7): string | null {
  const trimmed = value.trim();
  if (trimmed.includes("@")) return JID.test(trimmed) ? trimmed : null;
  const digits = trimmed.replace(NUMBER_FORMATTING, "");
  if (!/^\d+$/.test(digits) || digits.length < minDigits || digits.length > 20) return null;
  return digits;
}

/** What a media string is: an http(s) URL, raw base64, a data URI (refused by the server) or neither. */
export function mediaKind(value: string): "url" | "base64" | "data-uri" | "invalid" {
  const trimmed = value.trim();
  if (/^data:/i.test(trimmed)) return "data-uri";
  if (HTTP_URL.test(trimmed)) return "url";
  const compacted = trimmed.replace(/\s+/g, "");
  if (compacted.length >= 4 && compacted.length % 4 === 0 && BASE64.test(compacted)) return "base64";
  return "invalid";
}

/** A chat's full JID (a bare number becomes a person's JID): the server matches chats and sessions on it. */
export function personJid(value: string): string {
  return value.includes("@") ? value : `${value}@s.whatsapp.net`;
}
