/**
 * The shapes of `retryFailedMessages`: the service it sends through, its options and what it reports.
 *
 * @module
 */

import type { RequestOptions } from "../client/client.ts";
import type { GatewayStore } from "../store/store.ts";

/** The part of `GatewayService` the task uses: a `GatewayService` fits, and so does a test fake. */
export interface RetryService {
  /**
   * The client that sends: the task calls `request("POST", route, { body, instance, connection, bucket,
   * idempotent: false, serverDelayMs })` with the record's original body (a message send is never repeated
   * by the client).
   */
  getClient(): {
    request(method: "POST", route: string, options: RequestOptions): Promise<{ data: unknown }>;
  };
  /** When present, `MessageSent` is dispatched on it for every message the task sends. */
  readonly events?: EventTarget;
  /** When present, every message the task sends is counted. */
  getMetrics?(): { messageSent(type: string): void };
}

/** Options of {@link retryFailedMessages}. */
export interface RetryFailedOptions {
  /** Sends the messages. */
  service: RetryService;
  /** Where the failed records are. */
  store: GatewayStore;
  /** Records already resent this many times are skipped (default 3). */
  maxRetries?: number;
  /** At most this many resends per run (default 100); skipped records do not count. */
  limit?: number;
  /** Only records of this instance. */
  instance?: string;
  /** Only report what would be resent: nothing is claimed, looked up or sent. */
  dryRun?: boolean;
  /**
   * How long a resend holds its record (`claimedUntil`), in ms (default 15 minutes, longer than a send
   * may take); a record still `pending` after it is settled as outcome-unknown.
   */
  claimMs?: number;
  /** A record whose outcome is unknown is looked up only once its last attempt is this old (default 60 000). */
  reconcileMinAgeMs?: number;
  /** Stops the run before the next record (the one in flight finishes). */
  signal?: AbortSignal;
  /** Called after each record, e.g. for a progress bar. */
  onResult?: (result: RetryRecordResult) => void;
  /** Clock in epoch ms (default `Date.now`). */
  now?: () => number;
}

/** Why a record was skipped. */
export type RetrySkipReason =
  | "outcome_unknown"
  | "max_retries"
  | "permanent"
  | "claimed_elsewhere"
  // Its idempotency key was used for another request within the key's window (the error says which key).
  | "key_reused";

/** What happened to one record. */
export interface RetryRecordResult {
  /** The record's local id. */
  id: string;
  /** `sent`, `failed`, `skipped`, `reconciled` (unknown outcome, found on the server), or `would_retry`. */
  status: "sent" | "failed" | "skipped" | "reconciled" | "would_retry";
  /** The error of a failed resend, or of the key a `key_reused` record could not take. */
  error?: string;
  /** Why it was skipped. */
  reason?: RetrySkipReason;
  /** The server's message id of a sent record. */
  messageId?: string;
  /** The record's retry count after this run. */
  retryCount: number;
}

/** What {@link retryFailedMessages} did. */
export interface RetryFailedResult {
  /** Resends made (in a dry run: resends that would be made). */
  attempted: number;
  /** Resends that succeeded. */
  sent: number;
  /** Resends that failed again. */
  failed: number;
  /** Records with an unknown outcome found on the server: settled as sent without a resend. */
  reconciled: number;
  /** Records left alone (outcome still unknown, retries used up, or claimed by another run). */
  skipped: number;
  /** Whether this was a dry run. */
  dryRun: boolean;
  /** One entry per record looked at, oldest first. */
  results: RetryRecordResult[];
}
