// The platform's `toBase64`/`fromBase64` where the runtime has them, a `btoa`/`atob` fallback elsewhere.

type WithBase64 = Uint8Array & { toBase64?: () => string };
type FromBase64 = { fromBase64?: (text: string) => Uint8Array };

// Spread as arguments: a chunk stays well under the argument limit.
const CHUNK = 0x8000;
const STANDARD = /^[A-Za-z0-9+/]*={0,2}$/;
const URL_SAFE = /^[A-Za-z0-9_-]*$/;

/** Standard base64 (with padding, no line breaks) of `bytes`. */
export function toBase64(bytes: Uint8Array): string {
  const native = (bytes as WithBase64).toBase64;
  if (typeof native === "function") return native.call(bytes);
  let binary = "";
  for (let i = 0; i < bytes.length; i += CHUNK) {
    binary += String.fromCharCode(...bytes.subarray(i, i + CHUNK));
  }
  return btoa(binary);
}

/** The bytes of standard base64, or null when not canonical (a signature has one spelling only). */
export function fromBase64(text: string): Uint8Array | null {
  if (!STANDARD.test(text)) return null;
  const unpadded = text.replace(/=+$/, "");
  if (unpadded.length % 4 === 1) return null;
  const padded = unpadded + "===".slice((unpadded.length + 3) % 4);
  let bytes: Uint8Array;
  try {
    bytes = decode(padded);
  } catch {
    return null;
  }
  return toBase64(bytes).replace(/=+$/, "") === unpadded ? bytes : null;
}

function decode(padded: string): Uint8Array {
  const native = (Uint8Array as unknown as FromBase64).fromBase64;
  if (typeof native === "function") return native(padded);
  const binary = atob(padded);
  const out = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
  return out;
}

/** Unpadded base64url of `bytes` (JWT segments). */
export function toBase64Url(bytes: Uint8Array): string {
  return toBase64(bytes).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** The bytes of unpadded base64url, or null when malformed. */
export function fromBase64Url(text: string): Uint8Array | null {
  if (!URL_SAFE.test(text)) return null;
  return fromBase64(text.replace(/-/g, "+").replace(/_/g, "/"));
}

/** How many bytes a base64 text decodes to, without decoding it. */
export function base64Size(text: string): number {
  const padding = text.endsWith("==") ? 2 : text.endsWith("=") ? 1 : 0;
  return Math.floor((text.length * 3) / 4) - padding;
}

/** The first `bytes` bytes of a base64 text, decoding only its head; null when that head is not base64. */
export function base64Head(text: string, bytes: number): Uint8Array | null {
  const chars = Math.ceil(bytes / 3) * 4;
  return fromBase64(text.slice(0, Math.min(chars, text.length - (text.length % 4))));
}
