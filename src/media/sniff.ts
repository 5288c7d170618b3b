/**
 * MIME types from magic numbers: the first bytes of a file say what it is, whatever its name claims.
 *
 * @module
 */

const ASCII = new TextDecoder("latin1");

function text(bytes: Uint8Array, start: number, length: number): string {
  return ASCII.decode(bytes.subarray(start, start + length));
}

function startsWith(bytes: Uint8Array, signature: readonly number[], offset = 0): boolean {
  if (bytes.length < offset + signature.length) return false;
  return signature.every((byte, i) => bytes[offset + i] === byte);
}

/** Bytes {@link sniffMimeType} needs to decide. */
export const SNIFF_BYTES = 64;

/**
 * The MIME type the bytes' magic number says, or undefined when none matches. Knows the formats WhatsApp
 * media uses: JPEG, PNG, GIF, WebP, MP4/3GP/QuickTime/M4A, OGG, MP3, WAV, AMR, AAC, PDF, ZIP (and the
 * Office formats inside it, by file name), old Office (OLE) files.
 */
export function sniffMimeType(bytes: Uint8Array, fileName?: string): string | undefined {
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return "image/jpeg";
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return "image/png";
  if (text(bytes, 0, 4) === "GIF8") return "image/gif";
  if (text(bytes, 0, 4) === "RIFF") {
    const form = text(bytes, 8, 4);
    if (form === "WEBP") return "image/webp";
    if (form === "WAVE") return "audio/wav";
    if (form === "AVI ") return "video/x-msvideo";
  }
  if (text(bytes, 4, 4) === "ftyp") {
    const brand = text(bytes, 8, 4);
    if (brand === "M4A " || brand === "M4B ") return "audio/mp4";
    if (brand.startsWith("3g")) return "video/3gpp";
    if (brand === "qt  ") return "video/quicktime";
    return "video/mp4";
  }
  if (text(bytes, 0, 4) === "OggS") return "audio/ogg";
  if (text(bytes, 0, 3) === "ID3") return "audio/mpeg";
  if (bytes.length >= 2 && bytes[0] === 0xff && (bytes[1] & 0xf6) === 0xf0) return "audio/aac";
  if (bytes.length >= 2 && bytes[0] === 0xff && (bytes[1] & 0xe0) === 0xe0) return "audio/mpeg";
  if (text(bytes, 0, 6) === "#!AMR\n") return "audio/amr";
  if (text(bytes, 0, 5) === "%PDF-") return "application/pdf";
  if (startsWith(bytes, [0x50, 0x4b, 0x03, 0x04])) {
    return OFFICE_ZIP[extension(fileName)] ?? "application/zip";
  }
  if (startsWith(bytes, [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1])) {
    return OLE[extension(fileName)] ?? "application/msword";
  }
  return undefined;
}

/** Whether a WebP image is animated (the `VP8X` header's animation flag). */
export function isAnimatedWebp(bytes: Uint8Array): boolean {
  return text(bytes, 8, 4) === "WEBP" && text(bytes, 12, 4) === "VP8X" && bytes.length > 20 &&
    (bytes[20] & 0x02) !== 0;
}

const OFFICE_ZIP: Record<string, string> = {
  docx: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
  xlsx: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
  pptx: "application/vnd.openxmlformats-officedocument.presentationml.presentation",
  odt: "application/vnd.oasis.opendocument.text",
  ods: "application/vnd.oasis.opendocument.spreadsheet",
  epub: "application/epub+zip",
};

const OLE: Record<string, string> = {
  doc: "application/msword",
  xls: "application/vnd.ms-excel",
  ppt: "application/vnd.ms-powerpoint",
};

/** MIME types by file extension, for bytes no magic number names (text, CSV, ...). */
export const MIME_BY_EXTENSION: Readonly<Record<string, string>> = {
  txt: "text/plain",
  csv: "text/csv",
  json: "application/json",
  html: "text/html",
  xml: "application/xml",
  vcf: "text/vcard",
  ...OFFICE_ZIP,
  ...OLE,
  pdf: "application/pdf",
  zip: "application/zip",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  png: "image/png",
  webp: "image/webp",
  gif: "image/gif",
  mp4: "video/mp4",
  mp3: "audio/mpeg",
  ogg: "audio/ogg",
  opus: "audio/ogg",
  m4a: "audio/mp4",
};

/** The lower-case extension of a file name, or "". */
export function extension(fileName: string | undefined): string {
  const match = fileName ? /\.([A-Za-z0-9]+)$/.exec(fileName) : null;
  return match ? match[1].toLowerCase() : "";
}
