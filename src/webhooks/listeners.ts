/**
 * The library's own listeners on `WebhookProcessor.events`: a structured log line per webhook, and the
 * storage of inbound messages when a store is configured.
 *
 * @module
 */

import { MessageReceived, WebhookReceived } from "../events.ts";
import { getGatewayLogger } from "../log.ts";
import type { GatewayStore, InboundMessageRecord } from "../store/store.ts";

/**
 * Logs each webhook (category `["gateway", "webhook"]`, level info) with its kind, instance and delivery
 * id; never the body or the `apikey`. Bound by every `WebhookProcessor` unless `log: false`.
 *
 * @example
 * ```ts
 * import { LogWebhookEvent, WebhookProcessor, WebhookReceived } from "@gw/gateway";
 * const processor = new WebhookProcessor({ log: false });
 * processor.events.addEventListener(WebhookReceived.type, new LogWebhookEvent());
 * ```
 */
export class LogWebhookEvent implements EventListenerObject {
  readonly #logger = getGatewayLogger("webhook");

  /** Whether the log level is on, so that the processor can skip building events only this listener reads. */
  get enabled(): boolean {
    return this.#logger.isEnabledFor("info");
  }

  /**
   * Log one `WebhookReceived`; other events are ignored.
   *
   * @example
   * ```ts
   * import { LogWebhookEvent, WebhookPayloadDto, WebhookReceived } from "@gw/gateway";
   * new LogWebhookEvent().handleEvent(new WebhookReceived(WebhookPayloadDto.from({ event: "call", data: {} })!));
   * ```
   */
  handleEvent(event: Event): void {
    if (!(event instanceof WebhookReceived) || !this.enabled) return;
    const { payload } = event;
    this.#logger.info("Webhook {event} received for instance {instance}", {
      event: payload.event,
      rawEvent: payload.rawEvent,
      instance: payload.instance,
      deliveryId: payload.deliveryId,
      messageId: payload.messageId,
    });
  }
}

/**
 * Stores each inbound message (`MessageReceived`) in a {@link GatewayStore}. The write is handed to
 * `event.waitUntil`, so a failed write fails the webhook (and the server or the queue retries it) instead
 * of losing the message. Bound by a `WebhookProcessor` that has a store.
 *
 * @example
 * ```ts
 * import { MemoryStore, MessageReceived, ProcessIncomingMessage, WebhookProcessor } from "@gw/gateway";
 * const processor = new WebhookProcessor();
 * processor.events.addEventListener(MessageReceived.type, new ProcessIncomingMessage(new MemoryStore()));
 * ```
 */
export class ProcessIncomingMessage implements EventListenerObject {
  /** Where messages are stored. */
  readonly store: GatewayStore;

  /**
   * Bind to a store.
   *
   * @example
   * ```ts
   * import { MemoryStore, ProcessIncomingMessage } from "@gw/gateway";
   * new ProcessIncomingMessage(new MemoryStore());
   * ```
   */
  constructor(store: GatewayStore) {
    this.store = store;
  }

  /**
   * Store one `MessageReceived`; other events are ignored.
   *
   * @example
   * ```ts
   * import { MemoryStore, MessageReceived, ProcessIncomingMessage, WebhookPayloadDto } from "@gw/gateway";
   * const payload = WebhookPayloadDto.from({
   *   event: "messages.upsert",
   *   instance: "sales",
   *   data: { key: { id: "3EB0", remoteJid: "5511999999999@s.whatsapp.net", fromMe: false } },
   * })!;
   * const event = new MessageReceived(payload, {
   *   messageId: "3EB0", instance: "sales", remoteJid: "5511999999999@s.whatsapp.net",
   *   sender: undefined, chat: undefined, text: undefined, messageType: undefined,
   * });
   * new ProcessIncomingMessage(new MemoryStore()).handleEvent(event);
   * await Promise.all(event.pending);
   * ```
   */
  handleEvent(event: Event): void {
    if (!(event instanceof MessageReceived)) return;
    const { payload } = event;
    const record: InboundMessageRecord = {
      id: event.messageId,
      instance: event.instance,
      remoteJid: event.remoteJid,
      payload: payload.data,
      receivedAt: payload.receivedAt,
    };
    if (event.sender !== undefined) record.sender = event.sender;
    if (event.messageType !== undefined) record.messageType = event.messageType;
    if (event.text !== undefined) record.text = event.text;
    const timestamp = payload.messageTimestamp;
    if (timestamp !== undefined) record.timestamp = timestamp;
    event.waitUntil(this.store.saveInbound(record));
  }
}

/** The parts of the LID directory and the status tracker {@link LearnFromWebhook} feeds. */
interface Learners {
  learn(payload: unknown): Promise<unknown>;
}
interface Observers {
  observe(payload: WebhookReceived["payload"]): Promise<unknown>;
}

// Events that can carry LID ↔ phone pairs, and events that carry message statuses.
const PAIR_EVENTS: ReadonlySet<string> = new Set([
  "MESSAGES_UPSERT",
  "MESSAGES_SET",
  "MESSAGING_HISTORY_SET",
  "SEND_MESSAGE",
  "CONTACTS_SET",
  "CONTACTS_UPSERT",
  "CONTACTS_UPDATE",
  "CHATS_SET",
  "CHATS_UPSERT",
  "CHATS_UPDATE",
]);
const STATUS_EVENTS: ReadonlySet<string> = new Set([
  "SEND_MESSAGE",
  "MESSAGES_UPDATE",
  "MESSAGES_UPSERT",
  "CONNECTION_UPDATE",
]);

/**
 * Feeds a `LidDirectory` (pairs from messages, contacts, chats, history sync) and a
 * `MessageStatusTracker` (statuses, connection states) from each webhook. The writes are handed to
 * `event.waitUntil`, so a failed write fails the webhook and the server retries it. Bound by a
 * `WebhookProcessor` that has a store.
 *
 * @example
 * ```ts
 * import { LidDirectory, MessageStatusTracker, WebhookProcessor, WebhookReceived } from "@gw/gateway";
 * import { LearnFromWebhook } from "@gw/gateway/webhooks";
 * const processor = new WebhookProcessor();
 * processor.events.addEventListener(
 *   WebhookReceived.type,
 *   new LearnFromWebhook(new LidDirectory(), new MessageStatusTracker()),
 * );
 * ```
 */
export class LearnFromWebhook implements EventListenerObject {
  readonly #directory: Learners;
  readonly #status: Observers;

  /**
   * Bind to a directory and a tracker.
   *
   * @example
   * ```ts
   * import { LidDirectory, MessageStatusTracker } from "@gw/gateway";
   * import { LearnFromWebhook } from "@gw/gateway/webhooks";
   * new LearnFromWebhook(new LidDirectory(), new MessageStatusTracker());
   * ```
   */
  constructor(directory: Learners, status: Observers) {
    this.#directory = directory;
    this.#status = status;
  }

  /**
   * Learn from one `WebhookReceived`; other events are ignored.
   *
   * @example
   * ```ts
   * import { LidDirectory, MessageStatusTracker, WebhookPayloadDto, WebhookReceived } from "@gw/gateway";
   * import { LearnFromWebhook } from "@gw/gateway/webhooks";
   * const event = new WebhookReceived(WebhookPayloadDto.from({ event: "messages.update", data: { keyId: "A", status: "READ" } })!);
   * new LearnFromWebhook(new LidDirectory(), new MessageStatusTracker()).handleEvent(event);
   * await Promise.all(event.pending);
   * ```
   */
  handleEvent(event: Event): void {
    if (!(event instanceof WebhookReceived)) return;
    const { payload } = event;
    if (PAIR_EVENTS.has(payload.event)) event.waitUntil(this.#directory.learn(payload));
    if (STATUS_EVENTS.has(payload.event)) event.waitUntil(this.#status.observe(payload));
  }
}
