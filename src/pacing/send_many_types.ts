import type { InstanceRef } from "../health/health_types.ts";
import type { MediaKind, MediaSource } from "../media/media_input.ts";
import type { StateStore } from "../store/state.ts";
import type { GatewayStore } from "../store/store.ts";
import type { PacingPause } from "./pacer.ts";
import type { PacingOptions } from "./rules.ts";

/** One message of a bulk send: a text, or a file (with an optional caption). */
export interface SendManyItem {
  /** Unique per message and stable across runs: passed to the send, and how a rerun knows it was sent. */
  idempotencyKey: string;
  /** Recipient (number or JID). */
  to: string;
  /** The text (or a file's caption). */
  text?: string;
  /** A file to send instead of a text. */
  file?: { source: MediaSource; type: MediaKind; fileName?: string };
}

/** What happened to one item. */
export type SendManyItemStatus = "sent" | "failed" | "skipped" | "paused" | "unknown";

/** One item's result. */
export interface SendManyItemResult {
  /** The item's idempotency key. */
  idempotencyKey: string;
  /** Recipient. */
  to: string;
  /**
   * `sent` (by this run), `skipped` (sent before, or replayed by its idempotency key), `failed`, `paused`
   * (not tried), `unknown` (an earlier run stopped mid-send; not resent).
   */
  status: SendManyItemStatus;
  /** The message id, when sent. */
  messageId?: string;
  /** Why it failed. */
  error?: string;
}

/** A progress event: after each item. */
export interface SendManyProgress {
  /** Items finished so far (this run and earlier ones). */
  done: number;
  /** Items in the batch. */
  total: number;
  /** Counts so far. */
  sent: number;
  /** Failed so far. */
  failed: number;
  /** Skipped (sent before this run). */
  skipped: number;
  /** The item just finished. */
  item: SendManyItemResult;
}

/** The final report. */
export interface SendManyReport {
  /** The batch id (progress is kept under it). */
  batchId: string;
  /** Items in the batch. */
  total: number;
  /** Sent by this run. */
  sent: number;
  /** Failed in this run (or permanently in an earlier one). */
  failed: number;
  /** Sent before this run: by an earlier run, or by a send with the same idempotency key (a replay). */
  skipped: number;
  /** Not tried because sending is paused. */
  paused: number;
  /** Stopped mid-send by an earlier run: maybe sent, so not resent. */
  unknown: number;
  /** The pause that stopped the run, if one did. */
  pause: PacingPause | null;
  /** Every item, in input order. */
  items: SendManyItemResult[];
}

/** Options of `messages().sendMany(items, options)`. */
export interface SendManyOptions extends PacingOptions {
  /** The batch's id (default: derived from the items' keys, so the same items resume the same batch). */
  batchId?: string;
  /** Instance to send from (default: the bound one). */
  instance?: string;
  /** Called after each item (awaited). */
  onProgress?: (progress: SendManyProgress) => void | Promise<void>;
  /** Stops the run between items (the report counts what is left as paused). */
  signal?: AbortSignal;
  /** Sleep used for the pacing waits (default: the client's; tests inject one). */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Random number in [0, 1) for the jitter (default `Math.random`). */
  random?: () => number;
  /** Stable id of this runner: a restarted runner with the same id takes over its own lease at once. */
  workerId?: string;
  /** How long a runner's lease on an instance lasts without renewal, in ms (default 60000). */
  leaseMs?: number;
}

/** What the runner needs from the service, bound to one instance. */
export interface SendManyDeps {
  /** The instance. */
  ref: InstanceRef;
  /** Shared state (store.state, or the service's memory state). */
  state: StateStore;
  /** The record store, when configured (tells what an interrupted send did). */
  store?: GatewayStore;
  /** Clock. */
  now: () => number;
  /** Default sleep. */
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Send one item; resolves the message id, and whether the idempotency claim replayed an earlier send. */
  send: (item: SendManyItem, delay: number | undefined) => Promise<SentItem>;
  /** Whether the instance is known banned or restricted, with the reason. */
  restricted: () => Promise<string | undefined>;
}

/** What one send did: `replayed` when the idempotency claim answered with an earlier send's result. */
export interface SentItem {
  /** The message id, when the server gave one. */
  messageId?: string;
  /** True when nothing was sent now: an earlier send with the same key had sent it. */
  replayed: boolean;
}
