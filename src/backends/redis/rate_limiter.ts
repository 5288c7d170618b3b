/**
 * `RedisRateLimiter`: the fixed-window limiter on Redis, exact across processes sharing the server.
 *
 * @module
 */

import { checkOptionKeys } from "../../option_keys.ts";
import type { RateLimiterInterface } from "../../ratelimit/limiter.ts";
import { checkArguments, checkDecay, secondsUntilFree } from "../../ratelimit/window.ts";
import { REDIS_BACKEND_OPTION_KEYS, type RedisBackendOptions, RedisConnection } from "./connection.ts";
import { RedisScript } from "./script.ts";

/** Options of {@link RedisRateLimiter}: the connection, the key prefix, and the clock. */
export type RedisRateLimiterOptions = RedisBackendOptions & {
  /** The clock, in epoch ms (default `Date.now`); tests pass a fake one. */
  now?: () => number;
};

// One attempt, atomically: open a new window when there is none or it has ended (by the caller's clock,
// so the window does not depend on Redis's clock), else count one more unless the window is full.
// KEYS[1] window hash; ARGV: now, maxAttempts, reset of a new window, its TTL in ms.
const ATTEMPT = new RedisScript(`
local now = tonumber(ARGV[1])
local max = tonumber(ARGV[2])
local window = redis.call('HMGET', KEYS[1], 'count', 'reset')
local reset = tonumber(window[2])
if reset == nil or now >= reset then
  redis.call('DEL', KEYS[1])
  redis.call('HSET', KEYS[1], 'count', 1, 'max', ARGV[2], 'start', ARGV[1], 'reset', ARGV[3])
  redis.call('PEXPIRE', KEYS[1], ARGV[4])
  return 1
end
if tonumber(window[1]) >= max then return 0 end
redis.call('HINCRBY', KEYS[1], 'count', 1)
redis.call('HSET', KEYS[1], 'max', ARGV[2])
return 1
`);

/**
 * Fixed-window limiter in Redis. A window opens at a key's first attempt and lasts `decaySeconds`;
 * `maxAttempts` attempts succeed in it, counted across every process that uses the same Redis server and
 * prefix. Each attempt is one Lua script, so two processes can never both take the last slot. A window
 * stores its own end (compared with this limiter's clock) and also expires in Redis by itself.
 *
 * @example One limit shared by every app server
 * ```ts
 * import { GatewayService } from "@gw/gateway";
 * import { RedisRateLimiter } from "@gw/gateway/redis";
 * const limiter = new RedisRateLimiter({ url: "redis://127.0.0.1:6379" });
 * const gw = GatewayService.make({
 *   server_url: "http://localhost:8080",
 *   api_key: "...",
 *   rate_limiting: { limiter },
 * });
 * // ... on shutdown
 * await limiter.close();
 * ```
 */
export class RedisRateLimiter implements RateLimiterInterface {
  readonly #redis: RedisConnection;
  readonly #now: () => number;

  /** Connect with `{ url }` (opened on first use) or use `{ client }` (yours). */
  constructor(options: RedisRateLimiterOptions) {
    checkOptionKeys(options, { ...REDIS_BACKEND_OPTION_KEYS, now: true }, "new RedisRateLimiter");
    this.#redis = new RedisConnection("RedisRateLimiter", options);
    this.#now = options.now ?? Date.now;
  }

  #key(key: string): string {
    return `${this.#redis.prefix}ratelimit:${key}`;
  }

  /** Take one slot for `key` (true when under `maxAttempts` in the window); rejects when Redis is down. */
  async attempt(key: string, maxAttempts: number, decaySeconds: number): Promise<boolean> {
    checkArguments(key, maxAttempts, decaySeconds);
    const now = this.#now();
    const reset = now + decaySeconds * 1000;
    const taken = await ATTEMPT.run<number>(this.#redis, [this.#key(key)], [
      String(now),
      String(maxAttempts),
      String(reset),
      String(Math.max(1, Math.ceil(reset - now))),
    ]);
    return taken === 1;
  }

  /** Seconds until `key` has a free slot (0 now), exact to the millisecond. */
  async availableIn(key: string, decaySeconds: number): Promise<number> {
    checkDecay(key, decaySeconds);
    const [count, max, start, reset] = await this.#redis.command<(string | null)[]>([
      "HMGET",
      this.#key(key),
      "count",
      "max",
      "start",
      "reset",
    ]);
    if (count === null || max === null || start === null || reset === null) return 0;
    return secondsUntilFree(
      { count: Number(count), max: Number(max), start: Number(start), reset: Number(reset) },
      this.#now(),
    );
  }

  /** Forget every slot taken for `key`. */
  async clear(key: string): Promise<void> {
    await this.#redis.command(["DEL", this.#key(key)]);
  }

  /** Close the connection this limiter opened from its `url` (a given `client` stays open). */
  close(): Promise<void> {
    return this.#redis.close();
  }
}
