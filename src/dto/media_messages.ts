/**
 * Request objects of the media send routes: `sendMedia`, `sendWhatsAppAudio`, `sendPtv`, `sendSticker` and
 * `sendStatus`. Media is an http(s) URL or raw base64; the server refuses data URIs.
 *
 * @module
 */

import { type MessageOptions, readMessageOptions, requireObject } from "./message_options.ts";
import { RequestDto, type RequestInput } from "./request_dto.ts";
import { mediaKind, Problems } from "./validate.ts";
import { compact } from "../util/json_shape.ts";

/**
 * Media types `sendMedia` accepts.
 *
 * @example
 * ```ts
 * import { MEDIA_TYPES } from "./media_messages.ts";
 * MEDIA_TYPES.includes("image"); // true
 * ```
 */
export const MEDIA_TYPES: readonly ["image", "document", "video", "audio"] = [
  "image",
  "document",
  "video",
  "audio",
];
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
  /**
   * Validate; throws `ValidationException` naming every bad field.
   *
   * @example
   * ```ts
   * import { SendMediaMessageDto } from "@gw/gateway";
   * SendMediaMessageDto.from({ number: "5511999999999", mediatype: "document", media: "JVBERi0xLjQK", fileName: "a.pdf" });
   * ```
   */
  static from(input: RequestInput<SendMediaMessageDto> | SendMediaMessageDto): SendMediaMessageDto {
    if (input instanceof SendMediaMessageDto) return input;
    const record = requireObject(input, "media message");
    const problems = new Problems();
    const number = problems.recipient("number", record.number);
    const mediatype = problems.oneOf("mediatype", record.mediatype, MEDIA_TYPES, { required: true });
    const media = problems.media("media", record.media);
    const mimetype = problems.text("mimetype", record.mimetype);
    const fileName = problems.text("fileName", record.fileName);
    const caption = problems.text("caption", record.caption);
    if (
      mediatype === "document" && media !== undefined && mediaKind(media) === "base64" && !fileName?.trim()
    ) {
      problems.add("fileName is required for a base64 document");
    }
    const options = readMessageOptions(problems, record);
    problems.throwIfAny("media message");
    return new SendMediaMessageDto(
      compact({
        number: number!,
        mediatype: mediatype!,
        media: media!,
        mimetype,
        fileName,
        caption,
        ...options,
      }),
    );
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
  /**
   * Validate; throws `ValidationException` naming every bad field.
   *
   * @example
   * ```ts
   * import { SendAudioMessageDto } from "@gw/gateway";
   * SendAudioMessageDto.from({ number: "5511999999999", audio: "https://example.com/a.mp3", encoding: true });
   * ```
   */
  static from(input: RequestInput<SendAudioMessageDto> | SendAudioMessageDto): SendAudioMessageDto {
    if (input instanceof SendAudioMessageDto) return input;
    const record = requireObject(input, "audio message");
    const problems = new Problems();
    const number = problems.recipient("number", record.number);
    const audio = problems.media("audio", record.audio);
    const encoding = problems.bool("encoding", record.encoding);
    const options = readMessageOptions(problems, record);
    problems.throwIfAny("audio message");
    return new SendAudioMessageDto(compact({ number: number!, audio: audio!, encoding, ...options }));
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
  /**
   * Validate; throws `ValidationException` naming every bad field.
   *
   * @example
   * ```ts
   * import { SendPtvMessageDto } from "@gw/gateway";
   * SendPtvMessageDto.from({ number: "5511999999999", video: "https://example.com/v.mp4", delay: 500 });
   * ```
   */
  static from(input: RequestInput<SendPtvMessageDto> | SendPtvMessageDto): SendPtvMessageDto {
    if (input instanceof SendPtvMessageDto) return input;
    const record = requireObject(input, "ptv message");
    const problems = new Problems();
    const number = problems.recipient("number", record.number);
    const video = problems.media("video", record.video);
    const options = readMessageOptions(problems, record);
    problems.throwIfAny("ptv message");
    return new SendPtvMessageDto(compact({ number: number!, video: video!, ...options }));
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
  /**
   * Validate; throws `ValidationException` naming every bad field.
   *
   * @example
   * ```ts
   * import { SendStickerMessageDto } from "@gw/gateway";
   * SendStickerMessageDto.from({ number: "5511999999999", sticker: "https://example.com/s.png", notConvertSticker: false });
   * ```
   */
  static from(input: RequestInput<SendStickerMessageDto> | SendStickerMessageDto): SendStickerMessageDto {
    if (input instanceof SendStickerMessageDto) return input;
    const record = requireObject(input, "sticker message");
    const problems = new Problems();
    const number = problems.recipient("number", record.number);
    const sticker = problems.media("sticker", record.sticker);
    const notConvertSticker = problems.bool("notConvertSticker", record.notConvertSticker);
    const options = readMessageOptions(problems, record);
    problems.throwIfAny("sticker message");
    return new SendStickerMessageDto(
      compact({ number: number!, sticker: sticker!, notConvertSticker, ...options }),
    );
  }
}

/**
 * Status (story) types.
 *
 * @example
 * ```ts
 * import { STATUS_TYPES } from "./media_messages.ts";
 * STATUS_TYPES.includes("text"); // true
 * ```
 */
export const STATUS_TYPES: readonly ["text", "image", "audio", "video"] = ["text", "image", "audio", "video"];
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
  /**
   * Validate; throws `ValidationException` naming every bad field.
   *
   * @example
   * ```ts
   * import { SendStatusMessageDto } from "@gw/gateway";
   * SendStatusMessageDto.from({ type: "image", content: "https://example.com/a.png", statusJidList: ["5511999999999"] });
   * ```
   */
  static from(input: RequestInput<SendStatusMessageDto> | SendStatusMessageDto): SendStatusMessageDto {
    if (input instanceof SendStatusMessageDto) return input;
    const record = requireObject(input, "status message");
    const problems = new Problems();
    const type = problems.oneOf("type", record.type, STATUS_TYPES, { required: true });
    const content = type === undefined || type === "text"
      ? problems.text("content", record.content, { required: true })
      : problems.media("content", record.content);
    const caption = problems.text("caption", record.caption);
    const backgroundColor = problems.text("backgroundColor", record.backgroundColor, {
      required: type === "text",
    });
    if (backgroundColor !== undefined && !/^#[0-9A-Fa-f]{6}$/.test(backgroundColor)) {
      problems.add(`backgroundColor must be a colour like "#008000"`);
    }
    const font = problems.number("font", record.font, {
      required: type === "text",
      integer: true,
      min: 1,
      max: 5,
    });
    const allContacts = problems.bool("allContacts", record.allContacts);
    let statusJidList: string[] | undefined;
    const list = problems.array("statusJidList", record.statusJidList);
    if (list) {
      const normalized = list.map((item, index) => problems.recipient(`statusJidList[${index}]`, item));
      if (normalized.every((item) => item !== undefined)) statusJidList = normalized as string[];
    }
    const noList = record.statusJidList === undefined || record.statusJidList === null || list?.length === 0;
    if (allContacts !== true && noList) {
      problems.add("statusJidList must list at least one recipient unless allContacts is true");
    }
    problems.throwIfAny("status message");
    return new SendStatusMessageDto(
      compact({ type: type!, content: content!, caption, backgroundColor, font, statusJidList, allContacts }),
    );
  }
}
