/**
 * The base of `MessagesResource`: the one way a send goes out, recipient resolution, and text sends.
 *
 * @module
 */

import {
  type NumberCheckRow,
  RECIPIENT_CACHE_TTL_MS,
  type ResolvedRecipient,
  resolveRecipientWith,
} from "../address/recipient_resolver.ts";
import type { RequestInput } from "../dto/request_dto.ts";
import type { SendTextMessageDto } from "../dto/text_message.ts";
import { type MessageSend, type SendOptions, type SendResponse, textSend } from "./message_send.ts";
import { type CallOptions, Resource } from "./resource.ts";
import { ROUTE } from "./routes.ts";
import type { SendMessageResponse } from "./types.ts";

/**
 * Text sends and recipient resolution; `MessagesResource` adds the other kinds.
 *
 * @example
 * ```ts
 * import { GatewayService } from "@gw/gateway";
 * const gw = GatewayService.make({ server_url: "http://localhost:8080", api_key: "k", instance: "sales" });
 * const { jid } = await gw.messages().resolveRecipient("+55 11 99999-8888");
 * await gw.messages().text(jid, "Hello");
 * ```
 */
export class TextMessages extends Resource {
  /**
   * A send built by `build` (which validates: its error rejects the promise), sent through the pipeline. A
   * field, not a method: the subclasses' public methods are what their prototypes list.
   */
  protected readonly run = (build: () => MessageSend): Promise<SendResponse> => {
    let built: MessageSend;
    try {
      built = build();
    } catch (error) {
      return Promise.reject(error);
    }
    const { route, body, to, call, vary } = built;
    const resolve = call?.resolve ?? this.context.recipients?.resolve ?? false;
    if (!resolve || typeof body.number !== "string") {
      return this.send<SendMessageResponse>({ route, body, to, ...vary }, call);
    }
    return this.#sendResolved(built, body.number);
  };

  async #sendResolved({ route, body, to, call, vary }: MessageSend, number: string): Promise<SendResponse> {
    // The instance is resolved once (the cache key needs it) and named to the lookup and the send.
    const named = { ...call, instance: this.instanceName(call) };
    const recipient = await this.#recipientIn(named.instance, number, named);
    const resolved = { ...body, number: recipient.jid };
    const response = await this.send<SendMessageResponse>({ route, body: resolved, to, ...vary }, named);
    return Object.assign(response, { resolvedJid: recipient.jid, recipientRewritten: recipient.rewritten });
  }

  /**
   * The JID the account of `number` is registered under, for this instance: asks `/chat/whatsappNumbers`
   * once with the number and its variants (Brazil with and without the 9th digit, Mexico `521`/`52`,
   * Argentina `549`/`54`) and caches the answer per instance in the store (`recipients.cache_ttl_seconds`,
   * default 7 days), so a cached number costs one store read. A JID is returned as given. Throws
   * `ValidationException` for a number without a country code (before any request) and `MessageException`
   * (`not_on_whatsapp`) when no variant has an account.
   */
  async resolveRecipient(number: string, options: CallOptions = {}): Promise<ResolvedRecipient> {
    return await this.#recipientIn(this.instanceName(options), number, options);
  }

  /** {@link TextMessages.resolveRecipient} on an instance already resolved. */
  async #recipientIn(instance: string, number: string, options: CallOptions): Promise<ResolvedRecipient> {
    const ttl = this.context.recipients?.cache_ttl_seconds;
    return await resolveRecipientWith({
      instance,
      state: this.context.store?.state,
      ttlMs: ttl === undefined ? RECIPIENT_CACHE_TTL_MS : ttl * 1000,
      now: this.context.now,
      ask: async (numbers) => {
        const res = await this.call<NumberCheckRow[]>(ROUTE.chat.whatsappNumbers, { body: { numbers } }, {
          ...options,
          instance,
          idempotencyKey: undefined,
        });
        return res.data;
      },
    }, number);
  }

  /** Send a text (`POST /message/sendText`): `(to, text, options?)`, or a request object and call options. */
  text(
    request: SendTextMessageDto | RequestInput<SendTextMessageDto>,
    options?: CallOptions,
  ): Promise<SendResponse>;
  /** The short form: the recipient, the fields of this kind, optional fields, then the call options. */
  text(to: string, text: string, options?: SendOptions, call?: CallOptions): Promise<SendResponse>;
  text(...args: Parameters<typeof textSend>): Promise<SendResponse> {
    return this.run(() => textSend(...args));
  }
}
