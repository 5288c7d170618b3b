/**
 * Message sends: every route under `/message`. Each send goes through the shared send pipeline (never
 * retried when its outcome is unknown, recorded in the store, counted, `MessageSent` dispatched once).
 *
 * @module
 */

import type { ApiResponse } from "../client/response.ts";
import {
  SendAudioMessageDto,
  SendMediaMessageDto,
  SendPtvMessageDto,
  SendStatusMessageDto,
  SendStickerMessageDto,
} from "../dto/media_messages.ts";
import type { MessageOptions } from "../dto/message_options.ts";
import {
  type ButtonInput,
  type ListSection,
  SendButtonsMessageDto,
  SendListMessageDto,
} from "../dto/interactive_messages.ts";
import {
  type ContactCard,
  SendContactMessageDto,
  SendLocationMessageDto,
  SendPollMessageDto,
  SendReactionMessageDto,
  SendTemplateMessageDto,
} from "../dto/structured_messages.ts";
import { readTextBody, SendTextMessageDto, textBodyOf } from "../dto/text_message.ts";
import type { RequestBody, RequestInput } from "../dto/request_dto.ts";
import {
  type NumberCheckRow,
  RECIPIENT_CACHE_TTL_MS,
  type ResolvedRecipient,
  resolveRecipientWith,
} from "../address/recipient_resolver.ts";
import { type MediaInputOptions, type MediaSource, toMediaInput } from "../media/media_input.ts";
import {
  runSendMany,
  type SendManyItem,
  type SendManyOptions,
  type SendManyReport,
} from "../pacing/send_many.ts";
import { MemoryState } from "../backends/memory/state.ts";
import { splitOptions } from "./args.ts";
import { type CallOptions, Resource, type SendSpec } from "./resource.ts";
import { ROUTE, type RouteEntry } from "./routes.ts";
import type { MessageRef, SendMessageResponse } from "./types.ts";

/** Shared send options plus call options, the last argument of the short send methods. */
export type SendOptions = MessageOptions & CallOptions;

/** Extra fields of a media send (`image`, `video`, `document`). */
export interface MediaSendOptions extends SendOptions {
  /** MIME type. */
  mimetype?: string;
  /** File name (required for base64 documents). */
  fileName?: string;
}

/**
 * The answer of a send: the server's response, and with `resolve` the JID the message went to.
 *
 * @example
 * ```ts
 * import { GatewayService } from "@gw/gateway";
 * const gw = GatewayService.make({ server_url: "http://localhost:8080", api_key: "k", instance: "sales" });
 * const res = await gw.messages().text("5511999998888", "Hi", { resolve: true });
 * console.log(res.resolvedJid, res.recipientRewritten); // "551199998888@s.whatsapp.net" true
 * ```
 */
export interface SendResponse extends ApiResponse<SendMessageResponse> {
  /** With `resolve`: the JID the message was sent to. */
  readonly resolvedJid?: string;
  /** With `resolve`: true when that JID is not the number as given (a variant or a LID). */
  readonly recipientRewritten?: boolean;
}

/** Options of {@link MessagesResource.sendFile}: the media kind, an optional caption, send and call options. */
export type SendFileOptions = MediaInputOptions & SendOptions & { caption?: string };

/**
 * Message sends. Short forms (`text(to, text)`) build the request object for you; DTO forms
 * (`sendText(dto | object)`) take the full body. All validate before sending and return the server's answer
 * (`res.json("key.id")` is the message id).
 *
 * @example
 * ```ts
 * import { GatewayService } from "@gw/gateway";
 * const gw = GatewayService.make({ server_url: "http://localhost:8080", api_key: "k", instance: "sales" });
 * const res = await gw.messages().text("5511999999999", "Hello", { delay: 1200 });
 * console.log(res.json("key.id"));
 * ```
 */
export class MessagesResource extends Resource {
  #deliver(
    route: RouteEntry,
    validBody: object,
    to: string,
    options?: CallOptions,
    vary: Pick<SendSpec, "kind" | "bucket"> = {},
  ): Promise<SendResponse> {
    const body = validBody as Record<string, unknown>;
    const resolve = options?.resolve ?? this.context.recipients?.resolve ?? false;
    // The common case hands the pipeline's promise back as it is: no async layer of its own.
    if (!resolve || typeof body.number !== "string") {
      return this.send<SendMessageResponse>({ route, body, to, ...vary }, options);
    }
    return this.#deliverResolved(route, body, body.number, to, options, vary);
  }

  async #deliverResolved(
    route: RouteEntry,
    given: Record<string, unknown>,
    number: string,
    to: string,
    options: CallOptions | undefined,
    vary: Pick<SendSpec, "kind" | "bucket">,
  ): Promise<SendResponse> {
    const recipient = await this.resolveRecipient(number, options);
    const body = { ...given, number: recipient.jid };
    const response = await this.send<SendMessageResponse>({ route, body, to, ...vary }, options);
    return Object.assign(response, { resolvedJid: recipient.jid, recipientRewritten: recipient.rewritten });
  }

  /**
   * The JID the account of `number` is registered under, for this instance: asks `/chat/whatsappNumbers`
   * once with the number and its variants (Brazil with and without the 9th digit, Mexico `521`/`52`,
   * Argentina `549`/`54`) and caches the answer per instance in the store (`recipients.cache_ttl_seconds`,
   * default 7 days), so a cached number costs one store read. A JID is returned as given. Throws
   * `ValidationException` for a number without a country code (before any request) and `MessageException`
   * (`not_on_whatsapp`) when no variant has an account.
   *
   * @example
   * ```ts
   * import { GatewayService } from "@gw/gateway";
   * const gw = GatewayService.make({ server_url: "http://localhost:8080", api_key: "k", instance: "sales" });
   * const { jid, rewritten } = await gw.messages().resolveRecipient("+55 11 99999-8888");
   * ```
   */
  async resolveRecipient(number: string, options: CallOptions = {}): Promise<ResolvedRecipient> {
    const ttl = this.context.recipients?.cache_ttl_seconds;
    return await resolveRecipientWith({
      instance: this.instanceName(options),
      state: this.context.store?.state,
      ttlMs: ttl === undefined ? RECIPIENT_CACHE_TTL_MS : ttl * 1000,
      now: this.context.now,
      ask: async (numbers) => {
        const res = await this.call<NumberCheckRow[]>(ROUTE.chat.whatsappNumbers, { body: { numbers } }, {
          ...options,
          idempotencyKey: undefined,
        });
        return res.data;
      },
    }, number);
  }

  /**
   * Send a text (`POST /message/sendText`).
   *
   * @example
   * ```ts
   * import { GatewayService } from "@gw/gateway";
   * const gw = GatewayService.make({ server_url: "http://localhost:8080", api_key: "k", instance: "sales" });
   * await gw.messages().text("+55 11 99999-9999", "Hello", { linkPreview: false });
   * ```
   */
  text(to: string, text: string, options?: SendOptions): Promise<SendResponse> {
    if (options !== undefined) {
      const [body, call] = splitOptions(options);
      return this.sendText({ ...body, number: to, text }, call);
    }
    let body: RequestBody<SendTextMessageDto>;
    try {
      body = textBodyOf(to, text);
    } catch (error) {
      return Promise.reject(error);
    }
    return this.#deliver(ROUTE.message.sendText, body, body.number);
  }

  /**
   * Send a text from a request object (`POST /message/sendText`).
   *
   * @example
   * ```ts
   * import { GatewayService, SendTextMessageDto } from "@gw/gateway";
   * const gw = GatewayService.make({ server_url: "http://localhost:8080", api_key: "k", instance: "sales" });
   * await gw.messages().sendText(SendTextMessageDto.from({ number: "5511999999999", text: "Hi" }));
   * ```
   */
  sendText(
    dto: SendTextMessageDto | RequestInput<SendTextMessageDto>,
    options?: CallOptions,
  ): Promise<SendResponse> {
    // The body alone: a request object built here would never be read.
    let body: RequestBody<SendTextMessageDto>;
    try {
      body = dto instanceof SendTextMessageDto ? dto.body : readTextBody(dto);
    } catch (error) {
      // A bad argument rejects the promise, as from every other send method.
      return Promise.reject(error);
    }
    return this.#deliver(ROUTE.message.sendText, body, body.number, options);
  }

  /**
   * Send an image by URL or raw base64 (`POST /message/sendMedia`).
   *
   * @example
   * ```ts
   * import { GatewayService } from "@gw/gateway";
   * const gw = GatewayService.make({ server_url: "http://localhost:8080", api_key: "k", instance: "sales" });
   * await gw.messages().image("5511999999999", "https://example.com/a.png", "Look");
   * ```
   */
  async image(
    to: string,
    media: string,
    caption?: string,
    options?: MediaSendOptions,
  ): Promise<SendResponse> {
    return await this.#media("image", to, media, caption, options);
  }

  /**
   * Send a video (`POST /message/sendMedia`).
   *
   * @example
   * ```ts
   * import { GatewayService } from "@gw/gateway";
   * const gw = GatewayService.make({ server_url: "http://localhost:8080", api_key: "k", instance: "sales" });
   * await gw.messages().video("5511999999999", "https://example.com/v.mp4", "Clip");
   * ```
   */
  async video(
    to: string,
    media: string,
    caption?: string,
    options?: MediaSendOptions,
  ): Promise<SendResponse> {
    return await this.#media("video", to, media, caption, options);
  }

  /**
   * Send a document (`POST /message/sendMedia`); `fileName` is required for base64 content.
   *
   * @example
   * ```ts
   * import { GatewayService } from "@gw/gateway";
   * const gw = GatewayService.make({ server_url: "http://localhost:8080", api_key: "k", instance: "sales" });
   * await gw.messages().document("5511999999999", "https://example.com/a.pdf", "a.pdf", "Invoice");
   * ```
   */
  async document(
    to: string,
    media: string,
    fileName?: string,
    caption?: string,
    options?: MediaSendOptions,
  ): Promise<SendResponse> {
    return await this.#media("document", to, media, caption, {
      ...options,
      fileName: fileName ?? options?.fileName,
    });
  }

  /**
   * Send a file of any form (URL, bytes, `Blob`/`File`, data URI, base64) as an image, video, document,
   * voice note (`audio`) or sticker: `toMediaInput` turns it into what the server accepts (MIME type
   * sniffed, file name kept, size checked before any request), then the matching route sends it.
   *
   * @example
   * ```ts
   * import { GatewayService } from "@gw/gateway";
   * const gw = GatewayService.make({ server_url: "http://localhost:8080", api_key: "k", instance: "sales" });
   * const file = new File([new Uint8Array([0x25, 0x50, 0x44, 0x46, 0x2d])], "invoice.pdf");
   * await gw.messages().sendFile("5511999999999", file, { type: "document", caption: "Your invoice" });
   * ```
   */
  async sendFile(to: string, source: MediaSource, options: SendFileOptions): Promise<SendResponse> {
    const { type, fileName, mimetype, caption, ...rest } = options ?? ({} as SendFileOptions);
    const input = await toMediaInput(source, { type, fileName, mimetype });
    const [body, call] = splitOptions(rest);
    if (type === "audio") return await this.sendAudio({ ...body, number: to, audio: input.media }, call);
    if (type === "sticker") {
      return await this.sendSticker({ ...body, number: to, sticker: input.media }, call);
    }
    return await this.sendMedia({
      ...body,
      number: to,
      mediatype: type,
      media: input.media,
      mimetype: input.mimetype,
      fileName: input.fileName,
      caption,
    }, call);
  }

  /**
   * Send many messages at a pace that does not look like spam, resumably. Each item carries an
   * `idempotencyKey` (passed to its send); progress is kept per batch in the shared state (the store's
   * when configured), so running the same items again after a crash or a restart skips what was sent.
   * Sends for one instance go one at a time (also across processes), with a jittered gap, a minimum
   * interval per recipient, a daily cap (with an optional warm-up), "typing..." before each text, and a
   * pause on restriction signals: a banned instance (403), a refused key, or `pauseAfterFailures` failed
   * sends in a row. A paused instance stays paused until `new SendPacer(state).resume(...)`; a daily cap
   * ends by itself the next UTC day. Resolves a report (sent, failed, skipped, paused, unknown) and calls
   * `onProgress` after each item.
   *
   * @example
   * ```ts
   * import { GatewayService } from "@gw/gateway";
   * const gw = GatewayService.make({ server_url: "http://localhost:8080", api_key: "k", instance: "sales" });
   * const report = await gw.messages().sendMany([
   *   { idempotencyKey: "promo-1-ana", to: "5511999999999", text: "Hi Ana, our sale starts today" },
   *   { idempotencyKey: "promo-1-bia", to: "5511988887777", text: "Hi Bia, our sale starts today" },
   * ], { minGapMs: 5000, onProgress: (p) => console.log(`${p.done}/${p.total}`) });
   * console.log(report.sent, report.failed, report.skipped, report.paused);
   * ```
   */
  async sendMany(items: readonly SendManyItem[], options: SendManyOptions = {}): Promise<SendManyReport> {
    const call: CallOptions = { instance: options.instance };
    const instance = this.instanceName(call);
    const connection = this.context.connection ??
      this.context.client.getConnectionManager().getActiveConnectionName();
    const ref = { connection, instance };
    const client = this.context.client;
    const health = this.context.health;
    return await runSendMany(
      {
        ref,
        state: this.context.state ?? new MemoryState({ now: this.context.now }),
        store: this.context.store,
        now: this.context.now,
        sleep: (ms, signal) => client.sleep(ms, signal),
        restricted: async () => {
          const record = await health?.get(ref);
          return record?.status === "banned"
            ? `instance "${instance}" is banned: ${record.reason?.description ?? "restricted by WhatsApp"}`
            : undefined;
        },
        send: async (item, delay) => {
          const sendCall = { instance, idempotencyKey: item.idempotencyKey, signal: options.signal };
          const res = item.file
            ? await this.sendFile(item.to, item.file.source, {
              type: item.file.type,
              fileName: item.file.fileName,
              caption: item.text,
              ...sendCall,
            })
            : await this.text(item.to, item.text ?? "", { ...sendCall, ...(delay ? { delay } : {}) });
          const id = res.json<unknown>("key.id");
          return { messageId: typeof id === "string" ? id : undefined, replayed: res.replayed };
        },
      },
      items,
      options,
    );
  }

  async #media(
    type: SendMediaMessageDto["mediatype"],
    to: string,
    media: string,
    caption?: string,
    options?: MediaSendOptions,
  ): Promise<SendResponse> {
    const [body, call] = splitOptions(options);
    return await this.sendMedia({ ...body, number: to, mediatype: type, media, caption }, call);
  }

  /**
   * Send media from a request object (`POST /message/sendMedia`).
   *
   * @example
   * ```ts
   * import { GatewayService } from "@gw/gateway";
   * const gw = GatewayService.make({ server_url: "http://localhost:8080", api_key: "k", instance: "sales" });
   * await gw.messages().sendMedia({ number: "5511999999999", mediatype: "image", media: "https://example.com/a.png" });
   * ```
   */
  async sendMedia(
    dto: SendMediaMessageDto | RequestInput<SendMediaMessageDto>,
    options?: CallOptions,
  ): Promise<SendResponse> {
    const valid = SendMediaMessageDto.from(dto);
    return await this.#deliver(ROUTE.message.sendMedia, valid.body, valid.body.number, options, {
      kind: valid.body.mediatype,
    });
  }

  /**
   * Send a voice note (`POST /message/sendWhatsAppAudio`).
   *
   * @example
   * ```ts
   * import { GatewayService } from "@gw/gateway";
   * const gw = GatewayService.make({ server_url: "http://localhost:8080", api_key: "k", instance: "sales" });
   * await gw.messages().audio("5511999999999", "https://example.com/a.ogg");
   * ```
   */
  async audio(
    to: string,
    audio: string,
    options?: SendOptions & { encoding?: boolean },
  ): Promise<SendResponse> {
    const [body, call] = splitOptions(options);
    return await this.sendAudio({ ...body, number: to, audio }, call);
  }

  /**
   * Send a voice note from a request object (`POST /message/sendWhatsAppAudio`).
   *
   * @example
   * ```ts
   * import { GatewayService } from "@gw/gateway";
   * const gw = GatewayService.make({ server_url: "http://localhost:8080", api_key: "k", instance: "sales" });
   * await gw.messages().sendAudio({ number: "5511999999999", audio: "https://example.com/a.mp3", encoding: true });
   * ```
   */
  async sendAudio(
    dto: SendAudioMessageDto | RequestInput<SendAudioMessageDto>,
    options?: CallOptions,
  ): Promise<SendResponse> {
    const valid = SendAudioMessageDto.from(dto);
    return await this.#deliver(ROUTE.message.sendWhatsAppAudio, valid.body, valid.body.number, options);
  }

  /**
   * Send a round video note (`POST /message/sendPtv`).
   *
   * @example
   * ```ts
   * import { GatewayService } from "@gw/gateway";
   * const gw = GatewayService.make({ server_url: "http://localhost:8080", api_key: "k", instance: "sales" });
   * await gw.messages().ptv("5511999999999", "https://example.com/v.mp4");
   * ```
   */
  async ptv(to: string, video: string, options?: SendOptions): Promise<SendResponse> {
    const [body, call] = splitOptions(options);
    return await this.sendPtv({ ...body, number: to, video }, call);
  }

  /**
   * Send a round video note from a request object (`POST /message/sendPtv`).
   *
   * @example
   * ```ts
   * import { GatewayService } from "@gw/gateway";
   * const gw = GatewayService.make({ server_url: "http://localhost:8080", api_key: "k", instance: "sales" });
   * await gw.messages().sendPtv({ number: "5511999999999", video: "https://example.com/v.mp4" });
   * ```
   */
  async sendPtv(
    dto: SendPtvMessageDto | RequestInput<SendPtvMessageDto>,
    options?: CallOptions,
  ): Promise<SendResponse> {
    const valid = SendPtvMessageDto.from(dto);
    return await this.#deliver(ROUTE.message.sendPtv, valid.body, valid.body.number, options);
  }

  /**
   * Send a sticker (`POST /message/sendSticker`).
   *
   * @example
   * ```ts
   * import { GatewayService } from "@gw/gateway";
   * const gw = GatewayService.make({ server_url: "http://localhost:8080", api_key: "k", instance: "sales" });
   * await gw.messages().sticker("5511999999999", "https://example.com/s.webp");
   * ```
   */
  async sticker(
    to: string,
    sticker: string,
    options?: SendOptions & { notConvertSticker?: boolean },
  ): Promise<SendResponse> {
    const [body, call] = splitOptions(options);
    return await this.sendSticker({ ...body, number: to, sticker }, call);
  }

  /**
   * Send a sticker from a request object (`POST /message/sendSticker`).
   *
   * @example
   * ```ts
   * import { GatewayService } from "@gw/gateway";
   * const gw = GatewayService.make({ server_url: "http://localhost:8080", api_key: "k", instance: "sales" });
   * await gw.messages().sendSticker({ number: "5511999999999", sticker: "https://example.com/s.png" });
   * ```
   */
  async sendSticker(
    dto: SendStickerMessageDto | RequestInput<SendStickerMessageDto>,
    options?: CallOptions,
  ): Promise<SendResponse> {
    const valid = SendStickerMessageDto.from(dto);
    return await this.#deliver(ROUTE.message.sendSticker, valid.body, valid.body.number, options);
  }

  /**
   * Send a location (`POST /message/sendLocation`).
   *
   * @example
   * ```ts
   * import { GatewayService } from "@gw/gateway";
   * const gw = GatewayService.make({ server_url: "http://localhost:8080", api_key: "k", instance: "sales" });
   * await gw.messages().location("5511999999999", -23.5505, -46.6333, "Office", "Av. Paulista, 1000");
   * ```
   */
  async location(
    to: string,
    latitude: number,
    longitude: number,
    name?: string,
    address?: string,
    options?: SendOptions,
  ): Promise<SendResponse> {
    const [body, call] = splitOptions(options);
    return await this.sendLocation({ ...body, number: to, latitude, longitude, name, address }, call);
  }

  /**
   * Send a location from a request object (`POST /message/sendLocation`).
   *
   * @example
   * ```ts
   * import { GatewayService } from "@gw/gateway";
   * const gw = GatewayService.make({ server_url: "http://localhost:8080", api_key: "k", instance: "sales" });
   * await gw.messages().sendLocation({ number: "5511999999999", latitude: 0, longitude: 0, name: "Null Island" });
   * ```
   */
  async sendLocation(
    dto: SendLocationMessageDto | RequestInput<SendLocationMessageDto>,
    options?: CallOptions,
  ): Promise<SendResponse> {
    const valid = SendLocationMessageDto.from(dto);
    return await this.#deliver(ROUTE.message.sendLocation, valid.body, valid.body.number, options);
  }

  /**
   * Send one or more contact cards (`POST /message/sendContact`).
   *
   * @example
   * ```ts
   * import { GatewayService } from "@gw/gateway";
   * const gw = GatewayService.make({ server_url: "http://localhost:8080", api_key: "k", instance: "sales" });
   * await gw.messages().contact("5511999999999", { fullName: "Ana", phoneNumber: "+55 11 98888-7777" });
   * ```
   */
  async contact(
    to: string,
    contacts: ContactCard | ContactCard[],
    options?: SendOptions,
  ): Promise<SendResponse> {
    const [body, call] = splitOptions(options);
    return await this.sendContact(
      { ...body, number: to, contact: Array.isArray(contacts) ? contacts : [contacts] },
      call,
    );
  }

  /**
   * Send contact cards from a request object (`POST /message/sendContact`).
   *
   * @example
   * ```ts
   * import { GatewayService } from "@gw/gateway";
   * const gw = GatewayService.make({ server_url: "http://localhost:8080", api_key: "k", instance: "sales" });
   * await gw.messages().sendContact({ number: "5511999999999", contact: [{ fullName: "Ana", phoneNumber: "5511988887777" }] });
   * ```
   */
  async sendContact(
    dto: SendContactMessageDto | RequestInput<SendContactMessageDto>,
    options?: CallOptions,
  ): Promise<SendResponse> {
    const valid = SendContactMessageDto.from(dto);
    return await this.#deliver(ROUTE.message.sendContact, valid.body, valid.body.number, options);
  }

  /**
   * React to a message (`POST /message/sendReaction`); `""` removes the reaction.
   *
   * @example
   * ```ts
   * import { GatewayService } from "@gw/gateway";
   * const gw = GatewayService.make({ server_url: "http://localhost:8080", api_key: "k", instance: "sales" });
   * await gw.messages().reaction({ remoteJid: "5511999999999@s.whatsapp.net", id: "3EB0", fromMe: false }, "👍");
   * ```
   */
  async reaction(
    key: MessageRef,
    reaction: string,
    options?: CallOptions,
  ): Promise<SendResponse> {
    return await this.sendReaction({ key, reaction }, options);
  }

  /**
   * React from a request object (`POST /message/sendReaction`).
   *
   * @example
   * ```ts
   * import { GatewayService } from "@gw/gateway";
   * const gw = GatewayService.make({ server_url: "http://localhost:8080", api_key: "k", instance: "sales" });
   * await gw.messages().sendReaction({ key: { remoteJid: "5511999999999@s.whatsapp.net", id: "3EB0", fromMe: true }, reaction: "" });
   * ```
   */
  async sendReaction(
    dto: SendReactionMessageDto | RequestInput<SendReactionMessageDto>,
    options?: CallOptions,
  ): Promise<SendResponse> {
    const valid = SendReactionMessageDto.from(dto);
    return await this.#deliver(ROUTE.message.sendReaction, valid.body, valid.body.key.remoteJid, options);
  }

  /**
   * Send a poll (`POST /message/sendPoll`); `selectableCount` defaults to 1.
   *
   * @example
   * ```ts
   * import { GatewayService } from "@gw/gateway";
   * const gw = GatewayService.make({ server_url: "http://localhost:8080", api_key: "k", instance: "sales" });
   * await gw.messages().poll("5511999999999", "Lunch?", ["Pizza", "Sushi"], { selectableCount: 1 });
   * ```
   */
  async poll(
    to: string,
    name: string,
    values: string[],
    options?: SendOptions & { selectableCount?: number },
  ): Promise<SendResponse> {
    const [body, call] = splitOptions(options);
    return await this.sendPoll({ ...body, number: to, name, values }, call);
  }

  /**
   * Send a poll from a request object (`POST /message/sendPoll`).
   *
   * @example
   * ```ts
   * import { GatewayService } from "@gw/gateway";
   * const gw = GatewayService.make({ server_url: "http://localhost:8080", api_key: "k", instance: "sales" });
   * await gw.messages().sendPoll({ number: "5511999999999", name: "Days?", values: ["Mon", "Tue"], selectableCount: 0 });
   * ```
   */
  async sendPoll(
    dto: SendPollMessageDto | RequestInput<SendPollMessageDto>,
    options?: CallOptions,
  ): Promise<SendResponse> {
    const valid = SendPollMessageDto.from(dto);
    return await this.#deliver(ROUTE.message.sendPoll, valid.body, valid.body.number, options);
  }

  /**
   * Send a list message (`POST /message/sendList`).
   *
   * @example
   * ```ts
   * import { GatewayService } from "@gw/gateway";
   * const gw = GatewayService.make({ server_url: "http://localhost:8080", api_key: "k", instance: "sales" });
   * await gw.messages().list("5511999999999", {
   *   title: "Menu", footerText: "Thanks", buttonText: "Open",
   *   sections: [{ title: "Food", rows: [{ title: "Pizza", rowId: "pizza" }] }],
   * });
   * ```
   */
  async list(
    to: string,
    list: {
      title: string;
      description?: string;
      footerText: string;
      buttonText: string;
      sections: ListSection[];
    },
    options?: SendOptions,
  ): Promise<SendResponse> {
    const [body, call] = splitOptions(options);
    return await this.sendList({ ...body, ...list, number: to }, call);
  }

  /**
   * Send a list message from a request object (`POST /message/sendList`).
   *
   * @example
   * ```ts
   * import { GatewayService } from "@gw/gateway";
   * const gw = GatewayService.make({ server_url: "http://localhost:8080", api_key: "k", instance: "sales" });
   * await gw.messages().sendList({ number: "5511999999999", title: "T", footerText: "F", buttonText: "B",
   *   sections: [{ title: "S", rows: [{ title: "R", rowId: "r" }] }] });
   * ```
   */
  async sendList(
    dto: SendListMessageDto | RequestInput<SendListMessageDto>,
    options?: CallOptions,
  ): Promise<SendResponse> {
    const valid = SendListMessageDto.from(dto);
    return await this.#deliver(ROUTE.message.sendList, valid.body, valid.body.number, options);
  }

  /**
   * Send buttons (`POST /message/sendButtons`): up to 3 reply buttons, or other kinds, or one pix button.
   *
   * @example
   * ```ts
   * import { GatewayService } from "@gw/gateway";
   * const gw = GatewayService.make({ server_url: "http://localhost:8080", api_key: "k", instance: "sales" });
   * await gw.messages().buttons("5511999999999", { title: "Pick", buttons: [{ type: "reply", displayText: "Yes", id: "yes" }] });
   * ```
   */
  async buttons(
    to: string,
    message: {
      title?: string;
      description?: string;
      footer?: string;
      thumbnailUrl?: string;
      buttons: ButtonInput[];
    },
    options?: SendOptions,
  ): Promise<SendResponse> {
    const [body, call] = splitOptions(options);
    return await this.sendButtons({ ...body, ...message, number: to }, call);
  }

  /**
   * Send buttons from a request object (`POST /message/sendButtons`).
   *
   * @example
   * ```ts
   * import { GatewayService } from "@gw/gateway";
   * const gw = GatewayService.make({ server_url: "http://localhost:8080", api_key: "k", instance: "sales" });
   * await gw.messages().sendButtons({ number: "5511999999999", buttons: [{ type: "url", displayText: "Site", url: "https://example.com" }] });
   * ```
   */
  async sendButtons(
    dto: SendButtonsMessageDto | RequestInput<SendButtonsMessageDto>,
    options?: CallOptions,
  ): Promise<SendResponse> {
    const valid = SendButtonsMessageDto.from(dto);
    return await this.#deliver(ROUTE.message.sendButtons, valid.body, valid.body.number, options);
  }

  /**
   * Post a status (story) (`POST /message/sendStatus`).
   *
   * @example
   * ```ts
   * import { GatewayService } from "@gw/gateway";
   * const gw = GatewayService.make({ server_url: "http://localhost:8080", api_key: "k", instance: "sales" });
   * await gw.messages().status({ type: "text", content: "Open today", backgroundColor: "#008000", font: 1, allContacts: true });
   * ```
   */
  async status(
    status: RequestInput<SendStatusMessageDto>,
    options?: CallOptions,
  ): Promise<SendResponse> {
    return await this.sendStatus(status, options);
  }

  /**
   * Post a status from a request object (`POST /message/sendStatus`).
   *
   * @example
   * ```ts
   * import { GatewayService, SendStatusMessageDto } from "@gw/gateway";
   * const gw = GatewayService.make({ server_url: "http://localhost:8080", api_key: "k", instance: "sales" });
   * await gw.messages().sendStatus(SendStatusMessageDto.from({ type: "image", content: "https://example.com/a.png", allContacts: true }));
   * ```
   */
  async sendStatus(
    dto: SendStatusMessageDto | RequestInput<SendStatusMessageDto>,
    options?: CallOptions,
  ): Promise<SendResponse> {
    const valid = SendStatusMessageDto.from(dto);
    const bucket = valid.body.type === "text" ? "messages" : "media";
    return await this.#deliver(ROUTE.message.sendStatus, valid.body, "status@broadcast", options, { bucket });
  }

  /**
   * Send an approved template (`POST /message/sendTemplate`; WhatsApp Business instances only).
   *
   * @example
   * ```ts
   * import { GatewayService } from "@gw/gateway";
   * const gw = GatewayService.make({ server_url: "http://localhost:8080", api_key: "k", instance: "sales" });
   * await gw.messages().template("5511999999999", "hello_world", "en_US");
   * ```
   */
  async template(
    to: string,
    name: string,
    language: string,
    components?: Record<string, unknown>[],
    options?: CallOptions & { webhookUrl?: string },
  ): Promise<SendResponse> {
    const [body, call] = splitOptions(options);
    return await this.sendTemplate({ ...body, number: to, name, language, components }, call);
  }

  /**
   * Send a template from a request object (`POST /message/sendTemplate`).
   *
   * @example
   * ```ts
   * import { GatewayService } from "@gw/gateway";
   * const gw = GatewayService.make({ server_url: "http://localhost:8080", api_key: "k", instance: "sales" });
   * await gw.messages().sendTemplate({ number: "5511999999999", name: "order", language: "pt_BR", components: [] });
   * ```
   */
  async sendTemplate(
    dto: SendTemplateMessageDto | RequestInput<SendTemplateMessageDto>,
    options?: CallOptions,
  ): Promise<SendResponse> {
    const valid = SendTemplateMessageDto.from(dto);
    return await this.#deliver(ROUTE.message.sendTemplate, valid.body, valid.body.number, options);
  }
}
