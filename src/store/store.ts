/**
 * The record store: what the library sent and received, so that failed sends can be retried and old
 * records pruned. Implementations: `MemoryStore` (tests, Workers) and `KvStore` (Deno KV).
 *
 * All times are Unix epoch milliseconds.
 *
 * @module
 */

import type { StateStore } from "./state.ts";

/** Where an outbound message stands. */
export type OutboundStatus = "pending" | "sent" | "failed";

/** One message sent (or attempted) through the library. */
export interface OutboundMessageRecord {
  /** Local id of the record (a UUID), not the server's message id. */
  id: string;
  /** Connection name used for the send. */
  connection: string;
  /** Instance the message was sent from. */
  instance: string;
  /** The `number` the message was addressed to. */
  recipient: string;
  /** Message kind: `text`, `media`, `audio`, `location`, ... */
  type: string;
  /** Route template of the send, e.g. `/message/sendText/{instance}`. */
  route: string;
  /** The JSON body sent, kept so that the send can be retried as it was. */
  body: unknown;
  /** Where the send stands. */
  status: OutboundStatus;
  /** True when the send may have reached the server although it failed (a resend could deliver twice). */
  outcomeUnknown: boolean;
  /** How many times the retry task resent it. */
  retryCount: number;
  /** True when it failed in a way a resend cannot fix (invalid request, recipient not on the network). */
  permanent?: boolean;
  /** The last error message, when it failed. */
  lastError?: string;
  /** The server's message id (`key.id`), once sent. */
  messageId?: string;
  /** The caller's idempotency key, when the send had one (the claim in `store.state` links it here). */
  idempotencyKey?: string;
  /**
   * While `pending`, when the sender's claim ends; still `pending` after it: the sender died mid-send,
   * and the record is settled as outcome-unknown, never resent blindly.
   */
  claimedUntil?: number;
  /** When the record was created. */
  createdAt: number;
  /** When the record last changed. */
  updatedAt: number;
}

/** One inbound message, from a `messages.upsert` webhook. */
export interface InboundMessageRecord {
  /** The message id (`key.id`). */
  id: string;
  /** Instance that received it. */
  instance: string;
  /** Chat JID as sent (`key.remoteJid`). */
  remoteJid: string;
  /** The sender resolved to a phone-number JID when the payload allows it. */
  sender?: string;
  /** The message type (`conversation`, `imageMessage`, ...). */
  messageType?: string;
  /** The text, when the message has one. */
  text?: string;
  /** The message's own timestamp, in ms. */
  timestamp?: number;
  /** The event data as received. */
  payload: unknown;
  /** When the webhook arrived. */
  receivedAt: number;
}

/** Where a received webhook stands. */
export type WebhookLogStatus = "received" | "processed" | "failed" | "duplicate";

/** One received webhook. */
export interface WebhookLogRecord {
  /** Local id (the delivery id, or a digest of the raw body). */
  id: string;
  /** Canonical event kind (`MESSAGES_UPSERT`). */
  event: string;
  /** Instance name. */
  instance: string;
  /** When it arrived. */
  receivedAt: number;
  /** Where its processing stands. */
  status: WebhookLogStatus;
  /** The last error, when processing failed. */
  error?: string;
  /** How long the handlers took, in ms. */
  processingMs?: number;
  /** When the record last changed. */
  updatedAt: number;
}

/** The last known state of an instance. */
export interface InstanceSnapshot {
  /** Connection name. */
  connection: string;
  /** Instance name. */
  instance: string;
  /** `open`, `connecting`, `close`, or another state the server reported. */
  state: string;
  /** The instance's own JID, when known. */
  ownerJid?: string;
  /** Profile name, when known. */
  profileName?: string;
  /** When the snapshot was taken. */
  updatedAt: number;
}

/** The kinds of record a store keeps (and `prune` removes). */
export type RecordKind = "outbound" | "inbound" | "webhook_logs" | "instances";

/** Every record kind, in a fixed order. */
export const RECORD_KINDS: readonly RecordKind[] = ["outbound", "inbound", "webhook_logs", "instances"];

/** A filter for listing outbound messages, oldest first. */
export interface OutboundQuery {
  /** Only records with this status. */
  status?: OutboundStatus;
  /** Only records created before this time. */
  createdBefore?: number;
  /** Only records of this instance. */
  instance?: string;
  /** At most this many records. */
  limit?: number;
  /** Only records after this one in the oldest-first order (`createdAt`, then `id`): for paging. */
  startAfter?: { createdAt: number; id: string };
}

/**
 * Persistence for the library's records. Every multi-key update is atomic in the KV implementation.
 *
 * @example Using the in-memory store
 * ```ts
 * import { MemoryStore } from "@gw/gateway";
 * const store = new MemoryStore();
 * const failed = await store.listOutbound({ status: "failed", limit: 10 });
 * ```
 */
export interface GatewayStore {
  /** Small shared key/value state with compare-and-set (claims, directories, caches, progress). */
  readonly state: StateStore;

  /** Create or replace an outbound record. */
  saveOutbound(record: OutboundMessageRecord): Promise<void>;
  /** Read an outbound record by its local id. */
  getOutbound(id: string): Promise<OutboundMessageRecord | null>;
  /**
   * Apply `changes` only if `updatedAt` still equals `expectedUpdatedAt` (atomic compare-and-set): the
   * new record, or null when it changed meanwhile or does not exist.
   */
  updateOutbound(
    id: string,
    changes: Partial<Omit<OutboundMessageRecord, "id" | "createdAt">>,
    expectedUpdatedAt?: number,
  ): Promise<OutboundMessageRecord | null>;
  /** List outbound records, oldest first, through the status and time indexes. */
  listOutbound(query?: OutboundQuery): Promise<OutboundMessageRecord[]>;

  /** Store an inbound message (idempotent per instance and id). */
  saveInbound(record: InboundMessageRecord): Promise<void>;
  /** Read an inbound message. */
  getInbound(instance: string, id: string): Promise<InboundMessageRecord | null>;

  /** Create or replace a webhook log. */
  saveWebhookLog(record: WebhookLogRecord): Promise<void>;
  /** Read a webhook log. */
  getWebhookLog(id: string): Promise<WebhookLogRecord | null>;
  /** List webhook logs with a status, oldest first. */
  listWebhookLogs(query?: { status?: WebhookLogStatus; limit?: number }): Promise<WebhookLogRecord[]>;

  /** Create or replace an instance snapshot. */
  saveInstanceSnapshot(snapshot: InstanceSnapshot): Promise<void>;
  /** Read an instance snapshot. */
  getInstanceSnapshot(connection: string, instance: string): Promise<InstanceSnapshot | null>;

  /** Remove (or with `dryRun` only count) records of `kind` older than `before`; returns how many. */
  prune(kind: RecordKind, before: number, options?: { dryRun?: boolean }): Promise<number>;
}
