/**
 * `toMediaInput`: a media file given as a URL, bytes, a `Blob`/`File` or a data URI, turned into what the
 * gateway server accepts (an http(s) URL, or raw base64 without the `data:` prefix), with the MIME type
 * sniffed from the bytes and WhatsApp's size limit for the media kind checked before any request.
 *
 * @module
 */

import { ValidationException } from "../errors.ts";
import { base64Head, base64Size, toBase64 } from "../util/base64.ts";
import { extension, isAnimatedWebp, MIME_BY_EXTENSION, SNIFF_BYTES, sniffMimeType } from "./sniff.ts";
import { compact } from "../util/json_shape.ts";

/** What kind of WhatsApp message the media becomes. */
export type MediaKind = "image" | "video" | "audio" | "document" | "sticker";

/** The kinds {@link toMediaInput} knows. */
export const MEDIA_KINDS: readonly MediaKind[] = ["image", "video", "audio", "document", "sticker"];

/**
 * WhatsApp's size limits per kind, in bytes: image 5 MB, video and audio 16 MB, document 100 MB, sticker
 * 100 KB (500 KB animated).
 *
 * @example
 * ```ts
 * import { MEDIA_SIZE_LIMITS } from "@gw/gateway/media";
 * MEDIA_SIZE_LIMITS.image; // 5242880
 * ```
 */
export const MEDIA_SIZE_LIMITS: Readonly<Record<MediaKind | "animatedSticker", number>> = {
  image: 5 * 1024 * 1024,
  video: 16 * 1024 * 1024,
  audio: 16 * 1024 * 1024,
  document: 100 * 1024 * 1024,
  sticker: 100 * 1024,
  animatedSticker: 500 * 1024,
};

/** A media source: an http(s) URL, a `data:` URI, raw base64, bytes, or a `Blob`/`File`. */
export type MediaSource = string | URL | Uint8Array | ArrayBuffer | Blob;

/** Options of {@link toMediaInput}. */
export interface MediaInputOptions {
  /** The message kind: decides the size limit and which MIME types fit. */
  type: MediaKind;
  /** File name (kept for documents; default: the `File`'s name, or one made from the type). */
  fileName?: string;
  /** MIME type to use instead of the sniffed one. */
  mimetype?: string;
}

/** What {@link toMediaInput} returns: the fields of a media send. */
export interface MediaInput {
  /** An http(s) URL, or raw base64 (no `data:` prefix). */
  media: string;
  /** The MIME type: given, sniffed from the bytes, taken from the data URI or the file name. */
  mimetype?: string;
  /** The file name (documents always have one). */
  fileName?: string;
  /** Size in bytes, when the bytes are at hand (undefined for a URL). */
  size?: number;
}

const MIME_FAMILY: Record<MediaKind, RegExp | undefined> = {
  image: /^image\//,
  video: /^video\//,
  audio: /^audio\//,
  sticker: /^image\//,
  document: undefined,
};

const DATA_URI = /^data:([^;,]*)((?:;[^;,]*)*?);base64,/i;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

function refuse(kind: MediaKind, problem: string): never {
  throw new ValidationException(`Invalid ${kind} media: ${problem}`, { messages: [problem] });
}

function checkOptions(options: MediaInputOptions): void {
  if (options === null || typeof options !== "object" || !MEDIA_KINDS.includes(options.type)) {
    throw new ValidationException(
      `Invalid media: "type" must be one of ${MEDIA_KINDS.join(", ")}, got "${String(options?.type)}"`,
      { messages: ["type is invalid"] },
    );
  }
}

/** Raw base64 without line breaks, or undefined when the text is not base64 (one pass when it is clean). */
function cleanBase64(text: string): string | undefined {
  if (text !== "" && BASE64.test(text)) return text;
  const stripped = text.replace(/\s+/g, "");
  return stripped !== "" && stripped !== text && BASE64.test(stripped) ? stripped : undefined;
}

function article(kind: MediaKind): string {
  return /^[aeiou]/.test(kind) ? "an" : "a";
}

function humanSize(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${(bytes / (1024 * 1024)).toFixed(1)} MB` : `${Math.ceil(bytes / 1024)} KB`;
}

/**
 * Turn a media source into the fields of a media send. A URL passes through (the server downloads it; its
 * size cannot be checked here). Bytes, a `Blob`/`File`, a data URI or raw base64 become raw base64, with
 * the MIME type sniffed from the first bytes (the given `mimetype` wins; then the data URI's; then the
 * file name's), the file name kept (documents get one made up when none is known), and the size checked
 * against {@link MEDIA_SIZE_LIMITS}. Throws `ValidationException`, before any request, for a file too
 * large, a MIME type that does not fit the kind (a PDF as an image), or a source that is neither.
 *
 * @example Send a file from disk as a document
 * ```ts
 * import { GatewayService } from "@gw/gateway";
 * import { toMediaInput } from "@gw/gateway/media";
 * const gw = GatewayService.make({ server_url: "http://localhost:8080", api_key: "k", instance: "sales" });
 * const pdf = new Uint8Array([0x25, 0x50, 0x44, 0x46, 0x2d, 0x31, 0x2e, 0x34]);
 * const input = await toMediaInput(pdf, { type: "document", fileName: "invoice.pdf" });
 * console.log(input.mimetype, input.fileName); // "application/pdf" "invoice.pdf"
 * await gw.messages().document({ number: "5511999999999", mediatype: "document", ...input });
 * ```
 */
export async function toMediaInput(source: MediaSource, options: MediaInputOptions): Promise<MediaInput> {
  checkOptions(options);
  const kind = options.type;
  if (source instanceof URL) source = source.href;
  if (typeof source === "string") {
    const trimmed = source.trim();
    if (/^https?:\/\//i.test(trimmed)) {
      return compact({
        media: trimmed,
        mimetype: options.mimetype,
        fileName: fileNameFor(kind, options, trimmed),
      });
    }
    const data = DATA_URI.exec(trimmed);
    if (data) {
      const base64 = cleanBase64(trimmed.slice(data[0].length));
      if (base64 === undefined) refuse(kind, "the data URI does not hold valid base64");
      return fromBase64(base64, kind, options, data[1] || undefined);
    }
    if (/^data:/i.test(trimmed)) refuse(kind, 'a data URI must be base64-encoded (";base64,")');
    const base64 = cleanBase64(trimmed);
    if (base64 === undefined) refuse(kind, "a string must be an http(s) URL, a data URI or raw base64");
    return fromBase64(base64, kind, options, undefined);
  }
  if (typeof Blob !== "undefined" && source instanceof Blob) {
    const name = (source as Blob & { name?: unknown }).name;
    const withName = {
      ...options,
      fileName: options.fileName ?? (typeof name === "string" ? name : undefined),
    };
    checkSize(kind, source.size, undefined);
    const bytes = new Uint8Array(await source.arrayBuffer());
    return fromBytes(bytes, kind, withName, source.type || undefined);
  }
  if (source instanceof ArrayBuffer) return fromBytes(new Uint8Array(source), kind, options, undefined);
  if (source instanceof Uint8Array) return fromBytes(source, kind, options, undefined);
  refuse(kind, "the source must be a URL, a data URI, base64, bytes, or a Blob/File");
}

function fromBytes(
  bytes: Uint8Array,
  kind: MediaKind,
  options: MediaInputOptions,
  declared: string | undefined,
): MediaInput {
  if (bytes.byteLength === 0) refuse(kind, "the file is empty");
  const head = bytes.subarray(0, SNIFF_BYTES);
  const mimetype = decideMime(kind, head, options, declared);
  checkSize(kind, bytes.byteLength, head);
  return compact({
    media: toBase64(bytes),
    mimetype,
    fileName: fileNameFor(kind, options, undefined, mimetype),
    size: bytes.byteLength,
  });
}

function fromBase64(
  base64: string,
  kind: MediaKind,
  options: MediaInputOptions,
  declared: string | undefined,
): MediaInput {
  const size = base64Size(base64);
  if (size <= 0) refuse(kind, "the file is empty");
  const head = base64Head(base64, SNIFF_BYTES);
  if (head === null) refuse(kind, "the base64 text cannot be decoded");
  const mimetype = decideMime(kind, head, options, declared);
  checkSize(kind, size, head);
  return compact({
    media: base64,
    mimetype,
    fileName: fileNameFor(kind, options, undefined, mimetype),
    size,
  });
}

function decideMime(
  kind: MediaKind,
  head: Uint8Array,
  options: MediaInputOptions,
  declared: string | undefined,
): string | undefined {
  const sniffed = sniffMimeType(head, options.fileName);
  const mimetype = options.mimetype ?? sniffed ?? declared ?? MIME_BY_EXTENSION[extension(options.fileName)];
  const family = MIME_FAMILY[kind];
  // What the bytes are decides whether they fit; a declared type only when nothing was recognized.
  const actual = sniffed ?? mimetype;
  if (family && actual !== undefined && !family.test(actual)) {
    refuse(kind, `the file is "${actual}", which is not ${article(kind)} ${kind}`);
  }
  return mimetype;
}

function checkSize(kind: MediaKind, size: number, head: Uint8Array | undefined): void {
  const animated = kind === "sticker" && head !== undefined && isAnimatedWebp(head);
  const limit = animated ? MEDIA_SIZE_LIMITS.animatedSticker : MEDIA_SIZE_LIMITS[kind];
  if (size > limit) {
    refuse(
      kind,
      `the file is ${humanSize(size)} (${size} bytes), over WhatsApp's ${humanSize(limit)} limit for ${
        animated ? "an animated sticker" : `${article(kind)} ${kind}`
      }`,
    );
  }
}

function fileNameFor(
  kind: MediaKind,
  options: MediaInputOptions,
  url: string | undefined,
  mimetype?: string,
): string | undefined {
  if (options.fileName !== undefined && options.fileName.trim() !== "") return options.fileName;
  if (kind !== "document") return undefined;
  if (url !== undefined) {
    const last = decodeURIComponent(new URL(url).pathname.split("/").pop() ?? "");
    return last === "" ? undefined : last;
  }
  const ext = Object.entries(MIME_BY_EXTENSION).find(([, mime]) => mime === mimetype)?.[0] ?? "bin";
  return `document.${ext}`;
}
