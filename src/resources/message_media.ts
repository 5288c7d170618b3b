/**
 * The media kinds of `MessagesResource`: short arguments or a request object, read into one send.
 *
 * @module
 */

import {
  SendAudioMessageDto,
  SendMediaMessageDto,
  SendPtvMessageDto,
  SendStatusMessageDto,
  SendStickerMessageDto,
} from "../dto/media_messages.ts";
import type { RequestInput } from "../dto/request_dto.ts";
import { type MediaInput, type MediaKind, type MediaSource, toMediaInput } from "../media/media_input.ts";
import { invalid } from "./args.ts";
import type { CallOptions } from "./resource.ts";
import { ROUTE } from "./routes.ts";
import { TextMessages } from "./messages_text.ts";
import {
  type MediaSendOptions,
  type MessageSend,
  type SendFileOptions,
  sendOf,
  type SendOptions,
  type SendResponse,
  shortForm,
} from "./message_send.ts";

type Kind = "image" | "video" | "document";
type AnyMediaRequest = SendMediaMessageDto | RequestInput<SendMediaMessageDto>;

/** A `SendMediaMessageDto`, or its fields with `mediatype` omitted or the method's kind. */
export type MediaRequest<K extends "image" | "video" | "document"> =
  | SendMediaMessageDto
  | Omit<RequestInput<SendMediaMessageDto>, "mediatype"> & { mediatype?: K };
type KindRequest = MediaRequest<Kind>;

function mediaOf(input: AnyMediaRequest, call: CallOptions | undefined): MessageSend {
  const valid = SendMediaMessageDto.from(input);
  return sendOf(ROUTE.message.sendMedia, valid, call, { kind: valid.body.mediatype });
}

/** A request object sent as `kind`: its `mediatype` defaults to `kind` and may not be another one. */
function mediaRequest(kind: Kind, request: KindRequest, call: CallOptions | undefined): MessageSend {
  const given = request instanceof SendMediaMessageDto ? request.body.mediatype : request.mediatype;
  if (given !== undefined && given !== kind) {
    invalid("media message", `${kind}() sends mediatype "${kind}"; got "${given}": use ${given}()`);
  }
  return mediaOf(
    request instanceof SendMediaMessageDto ? request : { ...request, mediatype: kind } as AnyMediaRequest,
    call,
  );
}

/** `image`/`video`: `(to, media, caption?, options?)` or `(request, callOptions?)`. */
export function pictureSend(
  kind: "image" | "video",
  first: string | KindRequest,
  media?: string | CallOptions,
  caption?: string,
  options?: MediaSendOptions,
  call?: CallOptions,
): MessageSend {
  if (typeof first !== "string") return mediaRequest(kind, first, media as CallOptions | undefined);
  return mediaOf(
    shortForm({ number: first, mediatype: kind, media, caption }, options) as AnyMediaRequest,
    call,
  );
}

/** `document(to, media, fileName?, caption?, options?)` or `document(request, callOptions?)`. */
export function documentSend(
  first: string | KindRequest,
  media?: string | CallOptions,
  fileName?: string,
  caption?: string,
  options?: MediaSendOptions,
  call?: CallOptions,
): MessageSend {
  if (typeof first !== "string") return mediaRequest("document", first, media as CallOptions | undefined);
  const fields = {
    number: first,
    mediatype: "document",
    media,
    caption,
    fileName: fileName ?? options?.fileName,
  };
  return mediaOf(shortForm(fields, options) as AnyMediaRequest, call);
}

/**
 * `audio(to, audio, options?)` or `audio(request, callOptions?)`: a voice note, or with a request of
 * `mediatype: "audio"` an audio file (`sendMedia`).
 */
export function audioSend(
  first: string | SendAudioMessageDto | RequestInput<SendAudioMessageDto> | AnyMediaRequest,
  second?: string | CallOptions,
  options?: SendOptions & { encoding?: boolean },
  shortCall?: CallOptions,
): MessageSend {
  const short = typeof first === "string";
  const call = short ? shortCall : second as CallOptions | undefined;
  if (!short && (first instanceof SendMediaMessageDto || "mediatype" in first)) {
    return mediaOf(first as AnyMediaRequest, call);
  }
  const input = short ? shortForm({ number: first, audio: second }, options) : first;
  const valid = SendAudioMessageDto.from(input as RequestInput<SendAudioMessageDto>);
  return sendOf(ROUTE.message.sendWhatsAppAudio, valid, call);
}

/** `ptv(to, video, options?)` or `ptv(request, callOptions?)`. */
export function ptvSend(
  first: string | SendPtvMessageDto | RequestInput<SendPtvMessageDto>,
  second?: string | CallOptions,
  options?: SendOptions,
  shortCall?: CallOptions,
): MessageSend {
  const [input, call] = typeof first === "string"
    ? [shortForm({ number: first, video: second }, options), shortCall]
    : [first, second as CallOptions | undefined];
  return sendOf(
    ROUTE.message.sendPtv,
    SendPtvMessageDto.from(input as RequestInput<SendPtvMessageDto>),
    call,
  );
}

/** `sticker(to, sticker, options?)` or `sticker(request, callOptions?)`. */
export function stickerSend(
  first: string | SendStickerMessageDto | RequestInput<SendStickerMessageDto>,
  second?: string | CallOptions,
  options?: SendOptions & { notConvertSticker?: boolean },
  shortCall?: CallOptions,
): MessageSend {
  const [input, call] = typeof first === "string"
    ? [shortForm({ number: first, sticker: second }, options), shortCall]
    : [first, second as CallOptions | undefined];
  return sendOf(
    ROUTE.message.sendSticker,
    SendStickerMessageDto.from(input as RequestInput<SendStickerMessageDto>),
    call,
  );
}

/** `status(request, callOptions?)`: a story, sent to `status@broadcast`. */
export function statusSend(
  request: SendStatusMessageDto | RequestInput<SendStatusMessageDto>,
  call?: CallOptions,
): MessageSend {
  const valid = SendStatusMessageDto.from(request);
  const bucket = valid.body.type === "text" ? "messages" : "media";
  return { ...sendOf(ROUTE.message.sendStatus, valid, call, { bucket }), to: "status@broadcast" };
}

/** `sendFile`'s send of a file `toMediaInput` has read: its kind picks the route. */
export function fileSend(
  to: string,
  type: MediaKind,
  file: MediaInput,
  options: SendOptions & { caption?: string },
  call: CallOptions | undefined,
): MessageSend {
  const { caption, ...rest } = options;
  if (type === "audio") return audioSend(to, file.media, rest, call);
  if (type === "sticker") return stickerSend(to, file.media, rest, call);
  const { media, mimetype, fileName } = file;
  const input = shortForm({ number: to, mediatype: type, media, mimetype, fileName, caption }, rest);
  return mediaOf(input as AnyMediaRequest, call);
}

type DropFirst<T extends unknown[]> = T extends [unknown, ...infer Rest] ? Rest : never;

/**
 * Media sends (image, video, document, voice note, video note, sticker, status, any file); `MessagesResource`
 * adds the structured kinds.
 *
 * @example
 * ```ts
 * import { GatewayService } from "@gw/gateway";
 * const gw = GatewayService.make({ server_url: "http://localhost:8080", api_key: "k", instance: "sales" });
 * await gw.messages().image("5511999999999", "https://example.com/a.png", "Look");
 * ```
 */
export class MediaMessages extends TextMessages {
  /** Send an image by URL or raw base64 (`POST /message/sendMedia`), or a media request of that type. */
  image(request: MediaRequest<"image">, options?: CallOptions): Promise<SendResponse>;
  /** The short form: the recipient, the fields of this kind, optional fields, then the call options. */
  image(
    to: string,
    media: string,
    caption?: string,
    options?: MediaSendOptions,
    call?: CallOptions,
  ): Promise<SendResponse>;
  image(...args: DropFirst<Parameters<typeof pictureSend>>): Promise<SendResponse> {
    return this.run(() => pictureSend("image", ...args));
  }

  /** Send a video by URL or raw base64 (`POST /message/sendMedia`), or a media request of that type. */
  video(request: MediaRequest<"video">, options?: CallOptions): Promise<SendResponse>;
  /** The short form: the recipient, the fields of this kind, optional fields, then the call options. */
  video(
    to: string,
    media: string,
    caption?: string,
    options?: MediaSendOptions,
    call?: CallOptions,
  ): Promise<SendResponse>;
  video(...args: DropFirst<Parameters<typeof pictureSend>>): Promise<SendResponse> {
    return this.run(() => pictureSend("video", ...args));
  }

  /** Send a document (`POST /message/sendMedia`); `fileName` is required for base64 content. */
  document(request: MediaRequest<"document">, options?: CallOptions): Promise<SendResponse>;
  /** The short form: the recipient, the fields of this kind, optional fields, then the call options. */
  document(
    to: string,
    media: string,
    fileName?: string,
    caption?: string,
    options?: MediaSendOptions,
    call?: CallOptions,
  ): Promise<SendResponse>;
  document(...args: Parameters<typeof documentSend>): Promise<SendResponse> {
    return this.run(() => documentSend(...args));
  }

  /**
   * Send a voice note (`POST /message/sendWhatsAppAudio`), or with a media request of `mediatype: "audio"`
   * an audio file (`POST /message/sendMedia`).
   */
  audio(
    request:
      | SendAudioMessageDto
      | RequestInput<SendAudioMessageDto>
      | SendMediaMessageDto
      | RequestInput<SendMediaMessageDto>,
    options?: CallOptions,
  ): Promise<SendResponse>;
  /** The short form: the recipient, the fields of this kind, optional fields, then the call options. */
  audio(
    to: string,
    audio: string,
    options?: SendOptions & { encoding?: boolean },
    call?: CallOptions,
  ): Promise<SendResponse>;
  audio(...args: Parameters<typeof audioSend>): Promise<SendResponse> {
    return this.run(() => audioSend(...args));
  }

  /** Send a round video note (`POST /message/sendPtv`). */
  ptv(
    request: SendPtvMessageDto | RequestInput<SendPtvMessageDto>,
    options?: CallOptions,
  ): Promise<SendResponse>;
  /** The short form: the recipient, the fields of this kind, optional fields, then the call options. */
  ptv(to: string, video: string, options?: SendOptions, call?: CallOptions): Promise<SendResponse>;
  ptv(...args: Parameters<typeof ptvSend>): Promise<SendResponse> {
    return this.run(() => ptvSend(...args));
  }

  /** Send a sticker (`POST /message/sendSticker`). */
  sticker(
    request: SendStickerMessageDto | RequestInput<SendStickerMessageDto>,
    options?: CallOptions,
  ): Promise<SendResponse>;
  /** The short form: the recipient, the fields of this kind, optional fields, then the call options. */
  sticker(
    to: string,
    sticker: string,
    options?: SendOptions & { notConvertSticker?: boolean },
    call?: CallOptions,
  ): Promise<SendResponse>;
  sticker(...args: Parameters<typeof stickerSend>): Promise<SendResponse> {
    return this.run(() => stickerSend(...args));
  }

  /** Post a status (story) (`POST /message/sendStatus`). */

  status(
    request: SendStatusMessageDto | RequestInput<SendStatusMessageDto>,
    options?: CallOptions,
  ): Promise<SendResponse> {
    return this.run(() => statusSend(request, options));
  }

  /**
   * Send a file of any form (URL, bytes, `Blob`/`File`, data URI, base64) as an image, video, document,
   * voice note (`audio`) or sticker: MIME type sniffed, file name kept, size checked before any request.
   */
  async sendFile(
    to: string,
    source: MediaSource,
    options: SendFileOptions,
    call?: CallOptions,
  ): Promise<SendResponse> {
    const { type, fileName, mimetype, ...rest } = options ?? ({} as SendFileOptions);
    const file = await toMediaInput(source, { type, fileName, mimetype });
    return await this.run(() => fileSend(to, type, file, rest, call));
  }
}
