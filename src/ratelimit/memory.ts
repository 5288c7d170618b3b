/**
 * A per-process rate limiter: for tests, scripts, a single server process and Workers isolates.
 *
 * @module
 */

import type { RateLimiterInterface } from "./limiter.ts";
import { checkArguments, checkDecay, nextWindow, secondsUntilFree, type WindowEntry } from "./window.ts";

/** Options of {@link MemoryRateLimiter}. */
export interface MemoryRateLimiterOptions {
  /** The clock, in epoch ms (default `Date.now`); tests pass a fake one. */
  now?: () => number;
}

// Expired windows are dropped when read; a sweep every this many attempts bounds the memory kept by keys
// that are never read again (no timer, so nothing keeps a process or an isolate alive).
const SWEEP_EVERY = 1024;

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
  readonly #windows = new Map<string, WindowEntry>();
  readonly #now: () => number;
  #untilSweep = SWEEP_EVERY;

  /**
   * Create an empty limiter.
   *
   * @example With a fake clock
   * ```ts
   * import { MemoryRateLimiter } from "@gw/gateway";
   * let now = 0;
   * const limiter = new MemoryRateLimiter({ now: () => now });
   * ```
   */
  constructor(options: MemoryRateLimiterOptions = {}) {
    this.#now = options.now ?? Date.now;
  }

  /**
   * Take one slot for `key`; true when fewer than `maxAttempts` were taken in the current window.
   *
   * @example
   * ```ts
   * import { MemoryRateLimiter } from "@gw/gateway";
   * const allowed = await new MemoryRateLimiter().attempt("k", 1, 60); // true
   * ```
   */
  attempt(key: string, maxAttempts: number, decaySeconds: number): Promise<boolean> {
    try {
      checkArguments(key, maxAttempts, decaySeconds);
      const now = this.#now();
      if (--this.#untilSweep <= 0) this.#sweep(now);
      const next = nextWindow(this.#windows.get(key), maxAttempts, decaySeconds, now);
      if (next === null) return Promise.resolve(false);
      this.#windows.set(key, next);
      return Promise.resolve(true);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /**
   * Seconds until `key` has a free slot: 0 when one is free now, otherwise the time left in the full
   * window (fractional, exact to the millisecond).
   *
   * @example
   * ```ts
   * import { MemoryRateLimiter } from "@gw/gateway";
   * const limiter = new MemoryRateLimiter();
   * await limiter.attempt("k", 1, 60);
   * await limiter.availableIn("k", 60); // 60
   * ```
   */
  availableIn(key: string, decaySeconds: number): Promise<number> {
    try {
      checkDecay(key, decaySeconds);
      const now = this.#now();
      const entry = this.#windows.get(key);
      if (entry && now >= entry.reset) this.#windows.delete(key);
      return Promise.resolve(secondsUntilFree(entry, now));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /**
   * Forget every slot taken for `key`.
   *
   * @example
   * ```ts
   * import { MemoryRateLimiter } from "@gw/gateway";
   * await new MemoryRateLimiter().clear("k");
   * ```
   */
  clear(key: string): Promise<void> {
    this.#windows.delete(key);
    return Promise.resolve();
  }

  /**
   * Number of keys with a window kept in memory (expired ones included until swept).
   *
   * @example
   * ```ts
   * import { MemoryRateLimiter } from "@gw/gateway";
   * new MemoryRateLimiter().size; // 0
   * ```
   */
  get size(): number {
    return this.#windows.size;
  }

  #sweep(now: number): void {
    this.#untilSweep = Math.max(SWEEP_EVERY, this.#windows.size);
    for (const [key, entry] of this.#windows) {
      if (now >= entry.reset) this.#windows.delete(key);
    }
  }
}
