/**
 * Message sends: one method per kind under `/message`, taking short arguments or a request object.
 *
 * @module
 */

import { MemoryState } from "../backends/memory/state.ts";
import type {
  ButtonInput,
  ListSection,
  SendButtonsMessageDto,
  SendListMessageDto,
} from "../dto/interactive_messages.ts";
import type { RequestInput } from "../dto/request_dto.ts";
import type {
  ContactCard,
  SendContactMessageDto,
  SendLocationMessageDto,
  SendPollMessageDto,
  SendReactionMessageDto,
  SendTemplateMessageDto,
} from "../dto/structured_messages.ts";
import {
  runSendMany,
  type SendManyItem,
  type SendManyOptions,
  type SendManyReport,
} from "../pacing/send_many.ts";
import { MediaMessages } from "./message_media.ts";
import type { MediaSendOptions, SendFileOptions, SendOptions, SendResponse } from "./message_send.ts";
import {
  buttonsSend,
  contactSend,
  listSend,
  locationSend,
  pollSend,
  reactionSend,
  templateSend,
} from "./message_structured.ts";
import type { CallOptions } from "./resource.ts";
import type { MessageRef } from "./types.ts";

export type { MediaSendOptions, SendFileOptions, SendOptions, SendResponse };

/**
 * Message sends, one method per kind. Each takes the short arguments (`text(to, text, options?)`) or the
 * request object (`text(SendTextMessageDto.from(...))` or its fields, then the call options), validates
 * before sending and returns the server's answer (`res.json("key.id")` is the message id).
 *
 * @example
 * ```ts
 * import { GatewayService } from "@gw/gateway";
 * const gw = GatewayService.make({ server_url: "http://localhost:8080", api_key: "k", instance: "sales" });
 * const res = await gw.messages().text("5511999999999", "Hello", { delay: 1200 });
 * console.log(res.json("key.id"));
 * ```
 */
export class MessagesResource extends MediaMessages {
  /** Send a location (`POST /message/sendLocation`). */
  location(
    request: SendLocationMessageDto | RequestInput<SendLocationMessageDto>,
    options?: CallOptions,
  ): Promise<SendResponse>;
  /** The short form: the recipient, the fields of this kind, optional fields, then the call options. */
  location(
    to: string,
    latitude: number,
    longitude: number,
    name?: string,
    address?: string,
    options?: SendOptions,
    call?: CallOptions,
  ): Promise<SendResponse>;
  location(...args: Parameters<typeof locationSend>): Promise<SendResponse> {
    return this.run(() => locationSend(...args));
  }

  /** Send one or more contact cards (`POST /message/sendContact`). */
  contact(
    request: SendContactMessageDto | RequestInput<SendContactMessageDto>,
    options?: CallOptions,
  ): Promise<SendResponse>;
  /** The short form: the recipient, the fields of this kind, optional fields, then the call options. */
  contact(
    to: string,
    contacts: ContactCard | ContactCard[],
    options?: SendOptions,
    call?: CallOptions,
  ): Promise<SendResponse>;
  contact(...args: Parameters<typeof contactSend>): Promise<SendResponse> {
    return this.run(() => contactSend(...args));
  }

  /** React to a message (`POST /message/sendReaction`); `""` removes the reaction. */
  reaction(
    request: SendReactionMessageDto | RequestInput<SendReactionMessageDto>,
    options?: CallOptions,
  ): Promise<SendResponse>;
  /** The short form: the recipient, the fields of this kind, optional fields, then the call options. */
  reaction(key: MessageRef, reaction: string, options?: CallOptions): Promise<SendResponse>;
  reaction(...args: Parameters<typeof reactionSend>): Promise<SendResponse> {
    return this.run(() => reactionSend(...args));
  }

  /** Send a poll (`POST /message/sendPoll`); `selectableCount` defaults to 1. */
  poll(
    request: SendPollMessageDto | RequestInput<SendPollMessageDto>,
    options?: CallOptions,
  ): Promise<SendResponse>;
  /** The short form: the recipient, the fields of this kind, optional fields, then the call options. */
  poll(
    to: string,
    name: string,
    values: string[],
    options?: SendOptions & { selectableCount?: number },
    call?: CallOptions,
  ): Promise<SendResponse>;
  poll(...args: Parameters<typeof pollSend>): Promise<SendResponse> {
    return this.run(() => pollSend(...args));
  }

  /** Send a list message (`POST /message/sendList`). */
  list(
    request: SendListMessageDto | RequestInput<SendListMessageDto>,
    options?: CallOptions,
  ): Promise<SendResponse>;
  /** The short form: the recipient, the fields of this kind, optional fields, then the call options. */
  list(
    to: string,
    list: {
      title: string;
      description?: string;
      footerText: string;
      buttonText: string;
      sections: ListSection[];
    },
    options?: SendOptions,
    call?: CallOptions,
  ): Promise<SendResponse>;
  list(...args: Parameters<typeof listSend>): Promise<SendResponse> {
    return this.run(() => listSend(...args));
  }

  /** Send buttons (`POST /message/sendButtons`): up to 3 reply buttons, or other kinds, or one pix button. */
  buttons(
    request: SendButtonsMessageDto | RequestInput<SendButtonsMessageDto>,
    options?: CallOptions,
  ): Promise<SendResponse>;
  /** The short form: the recipient, the fields of this kind, optional fields, then the call options. */
  buttons(
    to: string,
    message: {
      title?: string;
      description?: string;
      footer?: string;
      thumbnailUrl?: string;
      buttons: ButtonInput[];
    },
    options?: SendOptions,
    call?: CallOptions,
  ): Promise<SendResponse>;
  buttons(...args: Parameters<typeof buttonsSend>): Promise<SendResponse> {
    return this.run(() => buttonsSend(...args));
  }

  /** Send an approved template (`POST /message/sendTemplate`; WhatsApp Business instances only). */
  template(
    request: SendTemplateMessageDto | RequestInput<SendTemplateMessageDto>,
    options?: CallOptions,
  ): Promise<SendResponse>;
  /** The short form: the recipient, the fields of this kind, optional fields, then the call options. */
  template(
    to: string,
    name: string,
    language: string,
    components?: Record<string, unknown>[],
    options?: { webhookUrl?: string },
    call?: CallOptions,
  ): Promise<SendResponse>;
  template(...args: Parameters<typeof templateSend>): Promise<SendResponse> {
    return this.run(() => templateSend(...args));
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
            }, sendCall)
            : await this.text(item.to, item.text ?? "", delay ? { delay } : undefined, sendCall);
          const id = res.json<unknown>("key.id");
          return { messageId: typeof id === "string" ? id : undefined, replayed: res.replayed };
        },
      },
      items,
      options,
    );
  }
}
