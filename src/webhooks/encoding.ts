const HEX = "0123456789abcdef";
const HEX_VALUE = new Int8Array(128).fill(-1);
for (let i = 0; i < 16; i++) {
  HEX_VALUE[HEX.charCodeAt(i)] = i;
  HEX_VALUE[HEX.toUpperCase().charCodeAt(i)] = i;
}

/** Lower-case hex of `bytes`. */
export function toHex(bytes: Uint8Array): string {
  let out = "";
  for (let i = 0; i < bytes.length; i++) out += HEX[bytes[i] >> 4] + HEX[bytes[i] & 15];
  return out;
}

// A non-hex or missing (NaN) character is -1, which never combines into a byte value.
function nibble(code: number): number {
  return code < 128 ? HEX_VALUE[code] : -1;
}

/** Whether `text` is made of hex digits only (either case). */
export function isHex(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    if (nibble(text.charCodeAt(i)) < 0) return false;
  }
  return true;
}

/** Whether hex `text` (passed {@link isHex}) spells `expected`, in time depending only on its length. */
export function hexEquals(text: string, expected: Uint8Array): boolean {
  let diff = text.length ^ (expected.length * 2);
  for (let i = 0; i < expected.length; i++) {
    diff |= ((nibble(text.charCodeAt(2 * i)) << 4) | nibble(text.charCodeAt(2 * i + 1))) ^ expected[i];
  }
  return diff === 0;
}

export { fromBase64, fromBase64Url, toBase64, toBase64Url } from "../util/base64.ts";

/** Compare received bytes with expected ones in time that depends only on the expected length. */
export function timingSafeEqual(received: Uint8Array, expected: Uint8Array): boolean {
  let diff = received.length ^ expected.length;
  for (let i = 0; i < expected.length; i++) diff |= (received[i] ?? 0) ^ expected[i];
  return diff === 0;
}

const encoder = new TextEncoder();

/** UTF-8 bytes of `text`. */
export function utf8(text: string): Uint8Array {
  return encoder.encode(text);
}

/** `a` followed by `b` in one new array. */
export function concatBytes(a: Uint8Array, b: Uint8Array): Uint8Array {
  return joinBytes([a, b]);
}

/** The parts one after the other in one array (the only part itself when there is one). */
export function joinBytes(parts: readonly Uint8Array[]): Uint8Array {
  if (parts.length === 1) return parts[0];
  let length = 0;
  for (const part of parts) length += part.byteLength;
  const out = new Uint8Array(length);
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.byteLength;
  }
  return out;
}
