/**
 * Request objects of the media sends; media is an http(s) URL or raw base64 (the server refuses data URIs).
 *
 * @module
 */

import { type BodySpec, numberListSchema, readBody, RECIPIENT_FIELD } from "./body_spec.ts";
import { LINK_PREVIEW_FIELD, MESSAGE_OPTION_FIELDS, type MessageOptions } from "./message_options.ts";
import { RequestDto, type RequestInput } from "./request_dto.ts";
import { mediaKind, type Problems } from "./validate.ts";

/** Media types `sendMedia` accepts. */
export const MEDIA_TYPES: readonly ["image", "document", "video", "audio"] = [
  "image",
  "document",
  "video",
  "audio",
];
/** The fields after the media ones on every media send: the shared options, and `linkPreview`. */
const MEDIA_SEND_OPTIONS = { ...MESSAGE_OPTION_FIELDS, linkPreview: LINK_PREVIEW_FIELD };

function requireDocumentName(problems: Problems, body: Record<string, unknown>): void {
  const { mediatype, media, fileName } = body;
  if (mediatype !== "document" || typeof media !== "string" || mediaKind(media) !== "base64") return;
  if (typeof fileName !== "string" || fileName.trim() === "") {
    problems.add("fileName is required for a base64 document");
  }
}

/** The body of `/message/sendMedia`: media an http(s) URL or base64 (a document needs `fileName`). */
export const SEND_MEDIA_BODY: BodySpec = {
  what: "media message",
  fields: {
    number: RECIPIENT_FIELD,
    mediatype: { type: "string", required: true, values: MEDIA_TYPES },
    mimetype: { type: "string" },
    media: { type: "string", required: true, media: true, serverRequired: false },
    fileName: { type: "string" },
    caption: { type: "string" },
    ...MEDIA_SEND_OPTIONS,
  },
  check: requireDocumentName,
};

/** The body of `/message/sendWhatsAppAudio` (`encoding` is not in the server's schema, which reads it). */
export const SEND_AUDIO_BODY: BodySpec = {
  what: "audio message",
  fields: {
    number: RECIPIENT_FIELD,
    audio: { type: "string", required: true, media: true, serverRequired: false },
    encoding: { type: "boolean", server: false },
    ...MEDIA_SEND_OPTIONS,
  },
};

/** The body of `/message/sendPtv`. */
export const SEND_PTV_BODY: BodySpec = {
  what: "ptv message",
  fields: {
    number: RECIPIENT_FIELD,
    video: { type: "string", required: true, media: true, serverRequired: false },
    ...MEDIA_SEND_OPTIONS,
  },
};

/** The body of `/message/sendSticker` (`notConvertSticker` is not in the server's schema, which reads it). */
export const SEND_STICKER_BODY: BodySpec = {
  what: "sticker message",
  fields: {
    number: RECIPIENT_FIELD,
    sticker: { type: "string", required: true, media: true, serverRequired: false },
    notConvertSticker: { type: "boolean", server: false },
    ...MEDIA_SEND_OPTIONS,
  },
};

/** The fields of a `SendMediaMessageDto`: what `SendMediaMessageDto.from` accepts, and (normalized) what it holds. */
export interface SendMediaMessageDto extends MessageOptions {
  /** Recipient. */
  readonly number: string;
  /** `image`, `document`, `video` or `audio`. */
  readonly mediatype: "image" | "document" | "video" | "audio";
  /** http(s) URL or raw base64 (no `data:` prefix). */
  readonly media: string;
  /** MIME type, e.g. `application/pdf`. */
  readonly mimetype?: string;
  /** File name; required for base64 documents. */
  readonly fileName?: string;
  /** Caption. */
  readonly caption?: string;
}

/**
 * A validated media message (image, video, document or audio file).
 *
 * @example
 * ```ts
 * import { SendMediaMessageDto } from "@gw/gateway";
 * SendMediaMessageDto.from({ number: "5511999999999", mediatype: "image", media: "https://example.com/a.png", caption: "Look" });
 * ```
 */
export class SendMediaMessageDto extends RequestDto {
  /** Validate; throws `ValidationException` naming every bad field. */
  static from(input: RequestInput<SendMediaMessageDto> | SendMediaMessageDto): SendMediaMessageDto {
    if (input instanceof SendMediaMessageDto) return input;
    return new SendMediaMessageDto(readBody(SEND_MEDIA_BODY, input));
  }
}

/** The fields of a `SendAudioMessageDto`: what `SendAudioMessageDto.from` accepts, and (normalized) what it holds. */
export interface SendAudioMessageDto extends MessageOptions {
  /** Recipient. */
  readonly number: string;
  /** http(s) URL or raw base64. */
  readonly audio: string;
  /** Convert to an ogg/opus voice note (server default true). */
  readonly encoding?: boolean;
}

/**
 * A validated voice note (`sendWhatsAppAudio`).
 *
 * @example
 * ```ts
 * import { SendAudioMessageDto } from "@gw/gateway";
 * SendAudioMessageDto.from({ number: "5511999999999", audio: "https://example.com/a.ogg" });
 * ```
 */
export class SendAudioMessageDto extends RequestDto {
  /** Validate; throws `ValidationException` naming every bad field. */
  static from(input: RequestInput<SendAudioMessageDto> | SendAudioMessageDto): SendAudioMessageDto {
    if (input instanceof SendAudioMessageDto) return input;
    return new SendAudioMessageDto(readBody(SEND_AUDIO_BODY, input));
  }
}

/** The fields of a `SendPtvMessageDto`: what `SendPtvMessageDto.from` accepts, and (normalized) what it holds. */
export interface SendPtvMessageDto extends MessageOptions {
  /** Recipient. */
  readonly number: string;
  /** http(s) URL or raw base64 of the round video. */
  readonly video: string;
}

/**
 * A validated round video note (`sendPtv`).
 *
 * @example
 * ```ts
 * import { SendPtvMessageDto } from "@gw/gateway";
 * SendPtvMessageDto.from({ number: "5511999999999", video: "https://example.com/v.mp4" });
 * ```
 */
export class SendPtvMessageDto extends RequestDto {
  /** Validate; throws `ValidationException` naming every bad field. */
  static from(input: RequestInput<SendPtvMessageDto> | SendPtvMessageDto): SendPtvMessageDto {
    if (input instanceof SendPtvMessageDto) return input;
    return new SendPtvMessageDto(readBody(SEND_PTV_BODY, input));
  }
}

/** The fields of a `SendStickerMessageDto`: what `SendStickerMessageDto.from` accepts, and (normalized) what it holds. */
export interface SendStickerMessageDto extends MessageOptions {
  /** Recipient. */
  readonly number: string;
  /** http(s) URL or raw base64 of the image. */
  readonly sticker: string;
  /** Send as is, without converting to webp. */
  readonly notConvertSticker?: boolean;
}

/**
 * A validated sticker.
 *
 * @example
 * ```ts
 * import { SendStickerMessageDto } from "@gw/gateway";
 * SendStickerMessageDto.from({ number: "5511999999999", sticker: "https://example.com/s.webp" });
 * ```
 */
export class SendStickerMessageDto extends RequestDto {
  /** Validate; throws `ValidationException` naming every bad field. */
  static from(input: RequestInput<SendStickerMessageDto> | SendStickerMessageDto): SendStickerMessageDto {
    if (input instanceof SendStickerMessageDto) return input;
    return new SendStickerMessageDto(readBody(SEND_STICKER_BODY, input));
  }
}

/** Status (story) types. */
export const STATUS_TYPES: readonly ["text", "image", "audio", "video"] = ["text", "image", "audio", "video"];
function readColour(problems: Problems, field: string, value: unknown): string | undefined {
  const colour = problems.text(field, value);
  if (colour !== undefined && !/^#[0-9A-Fa-f]{6}$/.test(colour)) {
    problems.add(`${field} must be a colour like "#008000"`);
  }
  return colour;
}

function readStatusRecipients(problems: Problems, field: string, value: unknown): string[] | undefined {
  const list = problems.array(field, value);
  if (!list) return undefined;
  const normalized = list.map((item, index) => problems.recipient(`${field}[${index}]`, item));
  return normalized.every((item) => item !== undefined) ? normalized as string[] : undefined;
}

/** A text status needs a colour and a font; a media one media; each needs recipients or `allContacts`. */
function checkStatus(
  problems: Problems,
  body: Record<string, unknown>,
  input: Record<string, unknown>,
): void {
  const missing = (name: string) => input[name] === undefined || input[name] === null;
  if (body.type !== undefined && body.type !== "text" && typeof body.content === "string") {
    body.content = problems.media("content", body.content);
  }
  if (body.type === "text") {
    if (missing("backgroundColor")) problems.add("backgroundColor is required");
    if (missing("font")) problems.add("font is required");
  }
  const noList = missing("statusJidList") ||
    (Array.isArray(input.statusJidList) && input.statusJidList.length === 0);
  if (body.allContacts !== true && noList) {
    problems.add("statusJidList must list at least one recipient unless allContacts is true");
  }
}

/** The body of `/message/sendStatus`: a text, or media as an http(s) URL or base64 (rules in `check`). */
export const SEND_STATUS_BODY: BodySpec = {
  what: "status message",
  fields: {
    type: { type: "string", required: true, values: STATUS_TYPES },
    content: { type: "string", required: true, serverRequired: false },
    caption: { type: "string" },
    backgroundColor: { type: "string", read: readColour },
    font: { type: "integer", min: 1, max: 5, server: { type: "integer", minimum: 0, maximum: 5 } },
    statusJidList: {
      type: "array",
      read: readStatusRecipients,
      server: numberListSchema("statusJidList"),
    },
    allContacts: { type: "boolean", strictBoolean: true },
  },
  check: checkStatus,
};

/** The fields of a `SendStatusMessageDto`: what `SendStatusMessageDto.from` accepts, and (normalized) what it holds. */
export interface SendStatusMessageDto {
  /** `text`, `image`, `audio` or `video`. */
  readonly type: "text" | "image" | "audio" | "video";
  /** The text, or the media as an http(s) URL or raw base64. */
  readonly content: string;
  /** Caption of a media status. */
  readonly caption?: string;
  /** Background colour of a text status, `#RRGGBB`; required for text. */
  readonly backgroundColor?: string;
  /** Font of a text status, 1–5; required for text. */
  readonly font?: number;
  /** Who sees it (numbers or JIDs); required unless `allContacts`. */
  readonly statusJidList?: string[];
  /** Send to every contact. */
  readonly allContacts?: boolean;
}

/**
 * A validated status (story).
 *
 * @example
 * ```ts
 * import { SendStatusMessageDto } from "@gw/gateway";
 * SendStatusMessageDto.from({ type: "text", content: "Open today", backgroundColor: "#008000", font: 1, allContacts: true });
 * ```
 */
export class SendStatusMessageDto extends RequestDto {
  /** Validate; throws `ValidationException` naming every bad field. */
  static from(input: RequestInput<SendStatusMessageDto> | SendStatusMessageDto): SendStatusMessageDto {
    if (input instanceof SendStatusMessageDto) return input;
    return new SendStatusMessageDto(readBody(SEND_STATUS_BODY, input));
  }
}
