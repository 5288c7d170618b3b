/**
 * Base64 for media: the platform's `Uint8Array.prototype.toBase64` / `Uint8Array.fromBase64` where the
 * runtime has them, a chunked fallback elsewhere.
 *
 * @module
 */

type WithBase64 = Uint8Array & { toBase64?: () => string };
type FromBase64 = { fromBase64?: (text: string) => Uint8Array };

const CHUNK = 0x8000;

/** Encode bytes as standard base64 (no line breaks). */
export function bytesToBase64(bytes: Uint8Array): string {
  const native = (bytes as WithBase64).toBase64;
  if (typeof native === "function") return native.call(bytes);
  let binary = "";
  for (let i = 0; i < bytes.length; i += CHUNK) {
    binary += String.fromCharCode(...bytes.subarray(i, i + CHUNK));
  }
  return btoa(binary);
}

/** Decode standard base64; throws `SyntaxError` on text that is not base64. */
export function base64ToBytes(text: string): Uint8Array {
  const native = (Uint8Array as unknown as FromBase64).fromBase64;
  if (typeof native === "function") return native(text);
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** Bytes a base64 text decodes to, without decoding it. */
export function base64Size(text: string): number {
  const length = text.length;
  const padding = text.endsWith("==") ? 2 : text.endsWith("=") ? 1 : 0;
  return Math.floor((length * 3) / 4) - padding;
}

/** The first `bytes` bytes of a base64 text (decodes only the head). */
export function base64Head(text: string, bytes: number): Uint8Array {
  const chars = Math.ceil(bytes / 3) * 4;
  return base64ToBytes(text.slice(0, Math.min(chars, text.length - (text.length % 4))));
}
