/**
 * A per-process rate limiter: for tests, scripts, a single server process and Workers isolates.
 *
 * @module
 */

import { checkOptionKeys } from "../../option_keys.ts";
import { ExpiryQueue } from "./expiry_queue.ts";
import type { RateLimiterInterface } from "../../ratelimit/limiter.ts";
import * as fixedWindow from "../../ratelimit/window.ts";

/** Options of {@link MemoryRateLimiter}. */
export interface MemoryRateLimiterOptions {
  /** The clock, in epoch ms (default `Date.now`); tests pass a fake one. */
  now?: () => number;
}

/**
 * Fixed-window limiter kept in this process's memory. A window opens at a key's first attempt and lasts
 * `decaySeconds`; `maxAttempts` attempts succeed in it. JavaScript runs one callback at a time, so it is
 * exact within one isolate; several processes or isolates each count separately (use
 * {@link KvRateLimiter} to share a limit).
 *
 * @example Five attempts per minute
 * ```ts
 * import { MemoryRateLimiter } from "@gw/gateway";
 * const limiter = new MemoryRateLimiter();
 * if (await limiter.attempt("report:alice", 5, 60)) {
 *   // do the work
 * } else {
 *   console.log(`try again in ${await limiter.availableIn("report:alice", 60)} s`);
 * }
 * ```
 */
export class MemoryRateLimiter implements RateLimiterInterface {
  readonly #windows = new Map<string, fixedWindow.WindowEntry>();
  // One queue of window ends per window length: windows of one length open in time order, so they end in
  // that order and the ended ones are at the front. Every call pops them (constant time on average), so the
  // memory held is the windows still open (no timer: nothing keeps a process or an isolate alive).
  readonly #ends = new Map<number, ExpiryQueue>();
  readonly #now: () => number;

  /** Create an empty limiter. */
  constructor(options: MemoryRateLimiterOptions = {}) {
    checkOptionKeys(options, { now: true }, "new MemoryRateLimiter");
    this.#now = options.now ?? Date.now;
  }

  /** Take one slot for `key`; true when fewer than `maxAttempts` were taken in the current window. */
  attempt(key: string, maxAttempts: number, decaySeconds: number): Promise<boolean> {
    try {
      return Promise.resolve(this.attemptNow(key, maxAttempts, decaySeconds));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /**
   * {@link MemoryRateLimiter.attempt} without a promise: memory answers at once, so the rate-limit gate takes
   * a send's slot with no wait of its own. Throws on arguments no window can be built from.
   *
   * @example
   * ```ts
   * import { MemoryRateLimiter } from "@gw/gateway";
   * const limiter = new MemoryRateLimiter();
   * limiter.attemptNow("report:alice", 1, 60); // true
   * limiter.attemptNow("report:alice", 1, 60); // false: the window's one slot is taken
   * ```
   */
  attemptNow(key: string, maxAttempts: number, decaySeconds: number): boolean {
    fixedWindow.checkArguments(key, maxAttempts, decaySeconds);
    const now = this.#now();
    this.#dropEnded(now);
    const current = this.#windows.get(key);
    const next = fixedWindow.nextWindow(current, maxAttempts, decaySeconds, now);
    if (next === null) return false;
    this.#windows.set(key, next);
    if (next !== current && next.start === now && next.count === 1) {
      this.#queueFor(next).push(key, next.reset);
    }
    return true;
  }

  /** Seconds until `key` has a free slot (0 now), exact to the millisecond. */
  availableIn(key: string, decaySeconds: number): Promise<number> {
    try {
      fixedWindow.checkDecay(key, decaySeconds);
      const now = this.#now();
      this.#dropEnded(now);
      return Promise.resolve(fixedWindow.secondsUntilFree(this.#windows.get(key), now));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** Forget every slot taken for `key`. */
  clear(key: string): Promise<void> {
    this.#windows.delete(key);
    return Promise.resolve();
  }

  /** Keys with a window in memory: the open ones, plus those ended since the last call. */
  get size(): number {
    return this.#windows.size;
  }

  #queueFor(entry: fixedWindow.WindowEntry): ExpiryQueue {
    const length = entry.reset - entry.start;
    let queue = this.#ends.get(length);
    if (queue === undefined) this.#ends.set(length, queue = new ExpiryQueue());
    return queue;
  }

  /** Drop every window that has ended; a queue item whose key has a newer window (or none) is skipped. */
  #dropEnded(now: number): void {
    for (const [length, queue] of this.#ends) {
      while (queue.length > 0 && queue.frontTime <= now) {
        const key = queue.frontKey!;
        if (this.#windows.get(key)?.reset === queue.frontTime) this.#windows.delete(key);
        queue.shift();
      }
      if (queue.length === 0) this.#ends.delete(length);
    }
  }
}
