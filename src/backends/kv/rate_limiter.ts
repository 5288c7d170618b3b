/**
 * A rate limiter in Deno KV: exact across the processes sharing the database, global on Deno Deploy.
 *
 * @module
 */

import { checkOptionKeys } from "../../option_keys.ts";
import { GatewayApiException } from "../../errors.ts";
import { withBusyRetry } from "./busy.ts";
import { abortableSleep } from "../../timing.ts";
import type { RateLimiterInterface } from "../../ratelimit/limiter.ts";
import { positiveInteger } from "../../util/checks.ts";
import * as fixedWindow from "../../ratelimit/window.ts";

/** Options of {@link KvRateLimiter}. */
export interface KvRateLimiterOptions {
  /** Key prefix of the limiter's entries (default `["gateway", "ratelimit"]`). */
  prefix?: Deno.KvKey;
  /** The clock, in epoch ms (default `Date.now`); tests pass a fake one. */
  now?: () => number;
  /** Commits tried per attempt when other processes keep winning the race (default 64). */
  maxConflictRetries?: number;
}

const DEFAULT_PREFIX: Deno.KvKey = ["gateway", "ratelimit"];

/**
 * Fixed-window limiter in Deno KV. A window opens at a key's first attempt and lasts `decaySeconds`;
 * `maxAttempts` attempts succeed in it, counted across every process, isolate or Deploy region that uses
 * the same database.
 *
 * Each attempt reads the key's window and commits the new count with a versionstamp check, so two writers
 * can never both take the last slot: the loser re-reads and retries (a bounded number of times, with a
 * small random backoff). Attempts on one key from the same limiter object run one after another, so only
 * other processes compete for the commit. A refusal writes nothing. Window entries carry `expireIn` so KV drops them by
 * itself, and also store their own end, because KV's expiry is lazy.
 *
 * @example One limit shared by every process using `limits.kv`
 * ```ts
 * import { GatewayService, KvRateLimiter } from "@gw/gateway";
 * const kv = await Deno.openKv("limits.kv");
 * const gw = GatewayService.make({
 *   server_url: "http://localhost:8080",
 *   api_key: "...",
 *   rate_limiting: { limiter: new KvRateLimiter(kv) },
 * });
 * ```
 */
export class KvRateLimiter implements RateLimiterInterface {
  readonly #kv: Deno.Kv;
  readonly #prefix: Deno.KvKey;
  readonly #now: () => number;
  readonly #maxConflictRetries: number;
  // The attempt last queued for each key: a promise chain that serialises this object's attempts per key.
  readonly #queues = new Map<string, Promise<unknown>>();

  /** Use `kv` (the caller opens and closes it). */
  constructor(kv: Deno.Kv, options: KvRateLimiterOptions = {}) {
    checkOptionKeys(options, { prefix: true, now: true, maxConflictRetries: true }, "new KvRateLimiter");
    const retries = positiveInteger(
      "Invalid KvRateLimiter option",
      "maxConflictRetries",
      options.maxConflictRetries,
      64,
    );
    this.#kv = kv;
    this.#prefix = options.prefix ?? DEFAULT_PREFIX;
    this.#now = options.now ?? Date.now;
    this.#maxConflictRetries = retries;
  }

  /**
   * Take one slot for `key`; true when fewer than `maxAttempts` were taken in the current window.
   * Rejects when KV fails, or when other writers won the race `maxConflictRetries` times in a row.
   */
  async attempt(key: string, maxAttempts: number, decaySeconds: number): Promise<boolean> {
    fixedWindow.checkArguments(key, maxAttempts, decaySeconds);
    const previous = this.#queues.get(key);
    const run = () => this.#attempt(key, maxAttempts, decaySeconds);
    const current = previous ? previous.then(run, run) : run();
    this.#queues.set(key, current);
    try {
      return await current;
    } finally {
      if (this.#queues.get(key) === current) this.#queues.delete(key);
    }
  }

  async #attempt(key: string, maxAttempts: number, decaySeconds: number): Promise<boolean> {
    const kvKey = [...this.#prefix, key];
    for (let round = 0; round < this.#maxConflictRetries; round++) {
      const current = await this.#kv.get<fixedWindow.WindowEntry>(kvKey);
      const now = this.#now();
      const next = fixedWindow.nextWindow(current.value, maxAttempts, decaySeconds, now);
      // The read was strongly consistent and counts only grow within a window: refusing needs no write.
      if (next === null) return false;
      const op = this.#kv.atomic()
        .check(current)
        .set(kvKey, next, { expireIn: Math.max(1, Math.ceil(next.reset - now)) });
      if ((await withBusyRetry(() => op.commit())).ok) return true;
      await backoff(round);
    }
    throw new GatewayApiException(
      `Cannot rate limit "${key}": lost the write race ${this.#maxConflictRetries} times in a row`,
    );
  }

  /** Seconds until `key` has a free slot (0 now), exact to the millisecond. */
  async availableIn(key: string, decaySeconds: number): Promise<number> {
    fixedWindow.checkDecay(key, decaySeconds);
    const entry = await this.#kv.get<fixedWindow.WindowEntry>([...this.#prefix, key]);
    return fixedWindow.secondsUntilFree(entry.value, this.#now());
  }

  /** Forget every slot taken for `key`. */
  async clear(key: string): Promise<void> {
    await withBusyRetry(() => this.#kv.delete([...this.#prefix, key]));
  }
}

// Random backoff of up to 1, 2, 4 … 64 ms after a lost compare-and-set: spreads the writers so one wins each round.
function backoff(round: number): Promise<void> {
  const ms = Math.random() * Math.min(64, 2 ** round);
  return abortableSleep(ms);
}
