/**
 * Small byte helpers for signatures: hex out (and checks of received hex), base64 (standard and url-safe)
 * both ways, and constant-time comparisons. Internal; Web platform only so that it loads on Workers.
 *
 * @module
 */

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

/**
 * Whether the hex `text` spells `expected`, in time that depends only on the expected length. Compares
 * the received hex as it is, with no decoded copy; `text` should already have passed {@link isHex}.
 */
export function hexEquals(text: string, expected: Uint8Array): boolean {
  let diff = text.length ^ (expected.length * 2);
  for (let i = 0; i < expected.length; i++) {
    diff |= ((nibble(text.charCodeAt(2 * i)) << 4) | nibble(text.charCodeAt(2 * i + 1))) ^ expected[i];
  }
  return diff === 0;
}

/** Standard base64 (with padding) of `bytes`. */
export function toBase64(bytes: Uint8Array): string {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary);
}

/**
 * Bytes of standard base64 (padding optional), or null when malformed or not canonical: unused low bits of
 * the last character must be zero, so that one value has one spelling (a signature cannot be altered into
 * another text that still verifies).
 */
export function fromBase64(text: string): Uint8Array | null {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text)) return null;
  const unpadded = text.replace(/=+$/, "");
  if (unpadded.length % 4 === 1) return null;
  let binary: string;
  try {
    binary = atob(unpadded + "===".slice((unpadded.length + 3) % 4));
  } catch {
    return null;
  }
  if (btoa(binary).replace(/=+$/, "") !== unpadded) return null;
  const out = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
  return out;
}

/** Unpadded base64url of `bytes`. */
export function toBase64Url(bytes: Uint8Array): string {
  return toBase64(bytes).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** Bytes of unpadded base64url, or null when malformed. */
export function fromBase64Url(text: string): Uint8Array | null {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) return null;
  return fromBase64(text.replace(/-/g, "+").replace(/_/g, "/"));
}

/**
 * Compare received bytes with expected ones in time that depends only on the expected length, never on
 * where they differ.
 */
export function timingSafeEqual(received: Uint8Array, expected: Uint8Array): boolean {
  // The loop runs over `expected` (the secret side), so the time does not depend on the received bytes.
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
