import { MessageReceived, type MessageReceivedDetail } from "../../events.ts";
import type { GatewayStore, InboundMessageRecord } from "../../store/store.ts";
import type { WebhookEventSpelling } from "../events/names.ts";
import type { WebhookPayloadDto } from "../payload.ts";

type Fields = Omit<MessageReceivedDetail, "chat">;

function record(fields: Fields, payload: WebhookPayloadDto): InboundMessageRecord {
  const out: InboundMessageRecord = {
    id: fields.messageId,
    instance: fields.instance,
    remoteJid: fields.remoteJid,
    payload: payload.data,
    receivedAt: payload.receivedAt,
  };
  if (fields.sender !== undefined) out.sender = fields.sender;
  if (fields.messageType !== undefined) out.messageType = fields.messageType;
  if (fields.text !== undefined) out.text = fields.text;
  const timestamp = payload.messageTimestamp;
  if (timestamp !== undefined) out.timestamp = timestamp;
  return out;
}

/**
 * Stores each inbound message in a {@link GatewayStore} (an observer of a processor with a store, or a
 * `MessageReceived` listener); a failed write fails the webhook, so it is retried instead of lost.
 *
 * @example
 * ```ts
 * import { MemoryStore, MessageReceived, ProcessIncomingMessage, WebhookProcessor } from "@gw/gateway";
 * new WebhookProcessor().events.addEventListener(MessageReceived.type, new ProcessIncomingMessage(new MemoryStore()));
 * ```
 */
export class ProcessIncomingMessage implements EventListenerObject {
  /** Where messages are stored. */
  readonly store: GatewayStore;
  /** The events it observes. */
  readonly events: readonly WebhookEventSpelling[] = ["messages.upsert"];

  /** Bind to a store. */
  constructor(store: GatewayStore) {
    this.store = store;
  }

  /** Store the message when `payload` is an inbound message; else nothing. */
  async observe(payload: WebhookPayloadDto): Promise<void> {
    if (!payload.isInboundMessage) return;
    await this.store.saveInbound(record({
      messageId: payload.messageId ?? "",
      instance: payload.instance,
      remoteJid: payload.remoteJid ?? "",
      sender: payload.senderJid,
      text: payload.text,
      messageType: payload.messageType,
    }, payload));
  }

  /** Store one `MessageReceived` (the write goes to `event.waitUntil`); other events are ignored. */
  handleEvent(event: Event): void {
    if (event instanceof MessageReceived) {
      event.waitUntil(this.store.saveInbound(record(event, event.payload)));
    }
  }
}
