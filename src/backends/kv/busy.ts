/**
 * The one retry policy for writes to a busy Deno KV database.
 *
 * A local KV file shared by several processes (or handles) is one SQLite database: a writer that finds
 * another one's transaction open gets "database is locked" and nothing was written, so the write can be
 * tried again like a lost race. Remote KV (Deploy, KV Connect) reports contention through atomic checks
 * alone and never throws this. Every KV write path of the library (store, state, lease, queue hand-off,
 * dedupe, limiter) goes through {@link withBusyRetry}, so a busy file slows writers down and never fails a
 * write sequence half-way.
 *
 * @module
 */

import { abortableSleep } from "../../timing.ts";

/** Options of {@link withBusyRetry}. */
export interface BusyRetryOptions {
  /** Give up (rethrow the busy error) after this long, in ms (default 30 000). */
  deadlineMs?: number;
  /** Longest random wait between two tries, in ms (default 64). */
  maxBackoffMs?: number;
  /** Clock in epoch ms (default `Date.now`). */
  now?: () => number;
  /** Sleep (default `setTimeout`); injected by tests. */
  sleep?: (ms: number) => Promise<void>;
}

const DEFAULT_DEADLINE_MS = 30_000;
const DEFAULT_MAX_BACKOFF_MS = 64;

/** True when `error` is SQLite's "database is locked/busy": nothing was written and the write may be retried. */
export function isBusy(error: unknown): boolean {
  return error instanceof Error && /database is locked|database is busy|SQLITE_BUSY/i.test(error.message);
}

/**
 * Run `write`, and run it again after a jittered backoff (up to 1, 2, 4 … `maxBackoffMs` ms) while it
 * fails because the database is busy, until `deadlineMs` has passed. Any other error is thrown at once.
 * `write` must be safe to repeat: a busy error means that nothing of it was committed.
 */
export async function withBusyRetry<T>(write: () => Promise<T>, options: BusyRetryOptions = {}): Promise<T> {
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? abortableSleep;
  const maxBackoff = options.maxBackoffMs ?? DEFAULT_MAX_BACKOFF_MS;
  const deadline = now() + (options.deadlineMs ?? DEFAULT_DEADLINE_MS);
  for (let round = 0;; round++) {
    try {
      return await write();
    } catch (error) {
      if (!isBusy(error) || now() >= deadline) throw error;
      await sleep(Math.random() * Math.min(maxBackoff, 2 ** round));
    }
  }
}

/**
 * `Deno.openKv(path)` through the same policy: a process that opens a file while another one is creating or
 * writing it can get "database is locked" from the open itself. Deno only (called, never at import time).
 */
export function openKvWhenFree(path?: string, options: BusyRetryOptions = {}): Promise<Deno.Kv> {
  return withBusyRetry(() => Deno.openKv(path), options);
}
