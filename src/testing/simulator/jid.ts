/**
 * JID normalization and message ids as the reference server makes them (`createJid.ts`, Baileys).
 *
 * @module
 */

/** True for a group JID. */
export function isGroupJid(jid: string): boolean {
  return jid.endsWith("@g.us");
}

// Mexican and Argentinian mobile numbers lose the digit after the country code.
function formatMxOrAr(number: string): string {
  const country = number.substring(0, 2);
  if ((country === "52" || country === "54") && number.length === 13) return country + number.substring(3);
  return number;
}

// Brazilian mobiles outside the area codes below 31 are addressed without the ninth digit.
function formatBr(number: string): string {
  const match = /^(\d{2})(\d{2})\d(\d{8})$/.exec(number);
  if (!match || match[1] !== "55") return number;
  const joker = Number.parseInt(match[3][0]);
  const ddd = Number.parseInt(match[2]);
  if (joker < 7 || ddd < 31) return match[0];
  return match[1] + match[2] + match[3];
}

/** `createJid(number)`: a phone number, JID or group id to the JID the server sends to. */
export function createJid(input: string): string {
  let number = input.replace(/:\d+/, "");
  if (/@(g\.us|s\.whatsapp\.net|lid|broadcast)$/.test(number)) return number;
  number = number.replace(/[\s+()]/g, "").split(":")[0].split("@")[0];
  if (number.includes("-") && number.length >= 24) return `${number.replace(/[^\d-]/g, "")}@g.us`;
  number = number.replace(/\D/g, "");
  if (number.length >= 18) return `${number}@g.us`;
  return `${formatBr(formatMxOrAr(number))}@s.whatsapp.net`;
}

/** Digits of a number or JID user part, for comparisons. */
export function jidUser(jid: string): string {
  return jid.split("@")[0].split(":")[0];
}

function randomHex(bytes: number): string {
  const buf = crypto.getRandomValues(new Uint8Array(bytes));
  return Array.from(buf, (b) => b.toString(16).padStart(2, "0")).join("").toUpperCase();
}

/** A Baileys-style message id: `3EB0` and 18 upper-case hex digits. */
export function newMessageId(): string {
  return `3EB0${randomHex(9)}`;
}

/** An id as an Android phone makes them: 32 upper-case hex digits (the server reports source "android"). */
export function newInboundMessageId(): string {
  return randomHex(16);
}

const ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/** Random characters from `alphabet`. */
export function randomChars(length: number, alphabet: string = ALNUM): string {
  const buf = crypto.getRandomValues(new Uint8Array(length));
  return Array.from(buf, (b) => alphabet[b % alphabet.length]).join("");
}

/** An 8-character pairing code. */
export function newPairingCode(): string {
  return randomChars(8, "ABCDEFGHJKLMNPQRSTVWXYZ0123456789");
}

/** A 22-character group invite code. */
export function newInviteCode(): string {
  return randomChars(22);
}

/** A new group JID: `120363` and 12 digits. */
export function newGroupJid(): string {
  return `120363${randomChars(12, "0123456789")}@g.us`;
}

/** A raw QR string in Baileys' `ref,noiseKey,identityKey,advSecret` form. */
export function newQrCode(): string {
  const b64 = () => btoa(randomChars(32));
  return `2@${randomChars(60)},${b64()},${b64()},${b64()}`;
}

/** A tiny valid PNG (1x1), standing in for the QR image the server renders. */
export const QR_PNG_BASE64 =
  "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=";

/** True when `value` looks like an http(s) or ftp URL (class-validator `isURL`, loosely). */
export function isUrl(value: unknown): boolean {
  return typeof value === "string" && /^(https?|ftp):\/\/[^\s/$.?#][^\s]*$/i.test(value);
}

/** True when `value` is raw base64 (not a data URI). */
export function isBase64(value: unknown): boolean {
  return typeof value === "string" && value.length > 0 && value.length % 4 === 0 &&
    /^[A-Za-z0-9+/]+={0,2}$/.test(value);
}
