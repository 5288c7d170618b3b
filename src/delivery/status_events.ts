/**
 * Events of `MessageStatusTracker`: a message's status moved forward, or a message stayed `PENDING` too long.
 *
 * @module
 */

/** A delivery status, in the order a message goes through them; `ERROR` is terminal. */
export type MessageStatus = "PENDING" | "SERVER_ACK" | "DELIVERY_ACK" | "READ" | "PLAYED" | "ERROR";

/** What the tracker keeps per message (`key.id`). */
export interface MessageStatusRecord {
  /** The message's `key.id` (not the server's row id). */
  messageId: string;
  /** The furthest status seen. */
  status: MessageStatus;
  /** The instance, when known. */
  instance?: string;
  /** The chat JID, when known. */
  remoteJid?: string;
  /** When the tracker first saw the message (epoch ms). */
  firstSeenAt: number;
  /** When the status last moved (epoch ms). */
  updatedAt: number;
  /** Set once `MessageStuck` was dispatched for it. */
  stuckReported?: boolean;
}

/**
 * Dispatched on the tracker's `events` when a message's status moves forward (never for a duplicate or
 * an out-of-order update).
 *
 * @example
 * ```ts
 * import { MessageStatusChanged, MessageStatusTracker } from "@gw/gateway/delivery";
 * const tracker = new MessageStatusTracker();
 * tracker.events.addEventListener(MessageStatusChanged.type, (event) => {
 *   const { messageId, previous, status } = event as MessageStatusChanged;
 *   console.log(messageId, previous, "→", status);
 * });
 * ```
 */
export class MessageStatusChanged extends Event {
  /** The event type string. */
  static readonly type = "MessageStatusChanged";
  /** The message's `key.id`. */
  readonly messageId: string;
  /** The new status. */
  readonly status: MessageStatus;
  /** The status before, or null for a message seen for the first time. */
  readonly previous: MessageStatus | null;
  /** The whole record after the change. */
  readonly record: MessageStatusRecord;

  /** Build the event. */
  constructor(record: MessageStatusRecord, previous: MessageStatus | null) {
    super(MessageStatusChanged.type);
    this.messageId = record.messageId;
    this.status = record.status;
    this.previous = previous;
    this.record = record;
  }
}

/**
 * Why a message may still be `PENDING`: the instance is not connected, the recipient has no account, or
 * the recipient is addressed by `@lid` only (the server cannot check such an address before sending).
 */
export type StuckCause = "instance_not_open" | "recipient_not_on_whatsapp" | "lid_only_recipient";

/**
 * Dispatched on the tracker's `events` once per message still `PENDING` after `stuckAfterMs`
 * (found by `MessageStatusTracker.checkStuck`), with the likely causes, most likely first.
 *
 * @example
 * ```ts
 * import { MessageStatusTracker, MessageStuck } from "@gw/gateway/delivery";
 * const tracker = new MessageStatusTracker({ stuckAfterMs: 120_000 });
 * tracker.events.addEventListener(MessageStuck.type, (event) => {
 *   const stuck = event as MessageStuck;
 *   console.warn(`message ${stuck.messageId} pending for ${stuck.pendingForMs} ms`, stuck.causes);
 * });
 * ```
 */
export class MessageStuck extends Event {
  /** The event type string. */
  static readonly type = "MessageStuck";
  /** The message's `key.id`. */
  readonly messageId: string;
  /** How long it has been pending, in ms. */
  readonly pendingForMs: number;
  /** Likely causes, most likely first. */
  readonly causes: readonly StuckCause[];
  /** The record. */
  readonly record: MessageStatusRecord;

  /** Build the event. */
  constructor(record: MessageStatusRecord, pendingForMs: number, causes: readonly StuckCause[]) {
    super(MessageStuck.type);
    this.messageId = record.messageId;
    this.pendingForMs = pendingForMs;
    this.causes = causes;
    this.record = record;
  }
}
