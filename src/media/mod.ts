/**
 * `@gw/gateway/media`: the media inputs the server accepts (URL, base64, bytes, with their size limits) and
 * downloads of received media.
 *
 * @example Check a file before sending it
 * ```ts
 * import { toMediaInput } from "@gw/gateway/media";
 * const pdf = new Uint8Array([0x25, 0x50, 0x44, 0x46, 0x2d, 0x31, 0x2e, 0x34]);
 * const input = await toMediaInput(pdf, { type: "document", fileName: "invoice.pdf" });
 * ```
 *
 * @module
 */

export {
  MEDIA_SIZE_LIMITS,
  type MediaInput,
  type MediaInputOptions,
  type MediaKind,
  type MediaSource,
  toMediaInput,
} from "./media_input.ts";
export { type DownloadedMedia, downloadMedia, type MediaMessageRef } from "./download.ts";
