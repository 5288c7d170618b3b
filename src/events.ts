/**
 * Events the library dispatches on `EventTarget`s: `MessageSent` on `GatewayService.events`,
 * `WebhookReceived` and `MessageReceived` on `WebhookProcessor.events`.
 *
 * @module
 */

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
 * gw.events.addEventListener(MessageSent.type, (event) => {
 *   console.log((event as MessageSent).messageId);
 * });
 * ```
 */
export class MessageSent extends Event implements MessageSentDetail {
  /** The event type string. */
  static readonly type = "MessageSent";
  /** The server's message id (`key.id`). */
  readonly messageId: string | null;
  /** Instance the message was sent from. */
  readonly instance: string;
  /** Connection used. */
  readonly connection: string;
  /** Recipient as given to the send. */
  readonly to: string;
  /** Message kind. */
  readonly messageType: string;
  /** The parsed response body. */
  readonly response: unknown;

  /**
   * Build the event.
   *
   * @example
   * ```ts
   * import { MessageSent } from "@gw/gateway";
   * new MessageSent({ messageId: "3EB0", instance: "sales", connection: "default", to: "5511999999999", messageType: "text", response: {} });
   * ```
   */
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
