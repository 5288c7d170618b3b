import type { WebhookPayloadDto } from "./webhooks/payload.ts";

/** What {@link MessageSent} carries. */
export interface MessageSentDetail {
  /** The server's message id (`key.id`). */
  messageId: string | null;
  /** Instance the message was sent from. */
  instance: string;
  /** Connection used. */
  connection: string;
  /** Recipient as given to the send (`number`, or the reaction's `key.remoteJid`). */
  to: string;
  /** Message kind: `text`, `media`, `audio`, `location`, ... */
  messageType: string;
  /** The parsed response body (the server's messageRaw). */
  response: unknown;
}

/**
 * Dispatched on `GatewayService.events` once per successful logical message send (not per attempt).
 *
 * @example
 * ```ts
 * import { GatewayService, MessageSent } from "@gw/gateway";
 * const gw = GatewayService.make({ server_url: "http://127.0.0.1:8080", api_key: "k", instance: "sales" });
 * gw.events.addEventListener(MessageSent.type, (event) => console.log((event as MessageSent).messageId));
 * ```
 */
export class MessageSent extends Event implements MessageSentDetail {
  /** The event type string. */
  static readonly type = "MessageSent";
  readonly messageId: string | null;
  readonly instance: string;
  readonly connection: string;
  readonly to: string;
  readonly messageType: string;
  readonly response: unknown;

  /** Build the event. */
  constructor(detail: MessageSentDetail) {
    super(MessageSent.type);
    this.messageId = detail.messageId;
    this.instance = detail.instance;
    this.connection = detail.connection;
    this.to = detail.to;
    this.messageType = detail.messageType;
    this.response = detail.response;
  }
}

/**
 * Base of the processor's events: a promise given to `waitUntil` is awaited; its rejection fails the webhook.
 *
 * @example
 * ```ts
 * import { WebhookEvent } from "@gw/gateway";
 * new WebhookEvent("x").waitUntil(Promise.resolve());
 * ```
 */
export class WebhookEvent extends Event {
  #pending: Promise<unknown>[] | undefined;

  /** Add work the processor must wait for before it answers (or acknowledges the queue job). */
  waitUntil(promise: Promise<unknown>): void {
    // Handled at once: the processor may await it after it rejected.
    promise.catch(() => {});
    (this.#pending ??= []).push(promise);
  }

  /** The promises passed to `waitUntil` so far (used by the processor). */
  get pending(): readonly Promise<unknown>[] {
    return this.#pending ?? [];
  }
}

/**
 * Dispatched on `WebhookProcessor.events` for every verified webhook, before its handlers run.
 *
 * @example
 * ```ts
 * import { WebhookReceived, webhookProcessor } from "@gw/gateway";
 * const { events } = webhookProcessor();
 * events.addEventListener(WebhookReceived.type, (e) => console.log((e as WebhookReceived).event));
 * ```
 */
export class WebhookReceived extends WebhookEvent {
  /** The event type string. */
  static readonly type = "WebhookReceived";
  /** The webhook. */
  readonly payload: WebhookPayloadDto;
  /** Canonical UPPER_SNAKE kind (`payload.event`). */
  readonly event: string;
  /** Instance name (`payload.instance`). */
  readonly instance: string;

  /** Build the event. */
  constructor(payload: WebhookPayloadDto) {
    super(WebhookReceived.type);
    this.payload = payload;
    this.event = payload.event;
    this.instance = payload.instance;
  }
}

/** What {@link MessageReceived} carries besides the payload. */
export interface MessageReceivedDetail {
  /** Message id (`key.id`). */
  messageId: string;
  /** Instance that received it. */
  instance: string;
  /** Chat JID as sent (`key.remoteJid`; may be an `@lid` JID). */
  remoteJid: string;
  /** The sender, resolved to a phone-number JID when the payload allows it. */
  sender: string | undefined;
  /** The chat to reply to, resolved to a phone-number JID when the payload allows it. */
  chat: string | undefined;
  /** Message text or caption. */
  text: string | undefined;
  /** Message type (`conversation`, `imageMessage`, ...). */
  messageType: string | undefined;
}

/**
 * Dispatched on `WebhookProcessor.events` for an inbound message, after {@link WebhookReceived}.
 *
 * @example
 * ```ts
 * import { MessageReceived, webhookProcessor } from "@gw/gateway";
 * const { events } = webhookProcessor();
 * events.addEventListener(MessageReceived.type, (e) => console.log((e as MessageReceived).text));
 * ```
 */
export class MessageReceived extends WebhookEvent implements MessageReceivedDetail {
  /** The event type string. */
  static readonly type = "MessageReceived";
  /** The webhook. */
  readonly payload: WebhookPayloadDto;
  readonly #detail: Partial<MessageReceivedDetail>;

  /** Build the event; fields not in `detail` are read from the payload when asked for. */
  constructor(payload: WebhookPayloadDto, detail: Partial<MessageReceivedDetail> = {}) {
    super(MessageReceived.type);
    this.payload = payload;
    this.#detail = detail;
  }

  get messageId(): string {
    return this.#detail.messageId ?? this.payload.messageId ?? "";
  }

  get instance(): string {
    return this.#detail.instance ?? this.payload.instance;
  }

  get remoteJid(): string {
    return this.#detail.remoteJid ?? this.payload.remoteJid ?? "";
  }

  get sender(): string | undefined {
    return "sender" in this.#detail ? this.#detail.sender : this.payload.senderJid;
  }

  get chat(): string | undefined {
    return "chat" in this.#detail ? this.#detail.chat : this.payload.chatJid;
  }

  get text(): string | undefined {
    return "text" in this.#detail ? this.#detail.text : this.payload.text;
  }

  get messageType(): string | undefined {
    return "messageType" in this.#detail ? this.#detail.messageType : this.payload.messageType;
  }
}
