/**
 * `RedisTaskLease`: the scheduled tasks' cross-process lease on Redis.
 *
 * @module
 */

import { checkOptionKeys } from "../../option_keys.ts";
import type { TaskLease } from "../../tasks/task_lease.ts";
import { REDIS_BACKEND_OPTION_KEYS, type RedisBackendOptions, RedisConnection } from "./connection.ts";
import { RedisScript, SET_UNLESS_LIVE } from "./script.ts";

/** Options of {@link RedisTaskLease}: the connection, the key prefix, and the clock. */
export type RedisTaskLeaseOptions = RedisBackendOptions & {
  /** The clock, in epoch ms (default `Date.now`). */
  now?: () => number;
};

// Only the owner frees its lease. KEYS[1] lease; ARGV[1] owner.
const RELEASE = new RedisScript(`
local held = redis.call('GET', KEYS[1])
if held and string.sub(held, 1, #ARGV[1] + 1) == ARGV[1] .. ':' then
  redis.call('DEL', KEYS[1])
  return 1
end
return 0
`);

const SLACK_MS = 1000;

/**
 * A {@link TaskLease} on Redis: one key per task, taken atomically so that two app servers never run the
 * same scheduled task at once, and freed by its owner only. A lease whose holder crashed is free again
 * after `ttlMs`.
 *
 * @example Prune and retry on one app server at a time
 * ```ts
 * import { GatewayService } from "@gw/gateway";
 * import { registerScheduledTasks } from "@gw/gateway/tasks";
 * import { RedisStore, RedisTaskLease } from "@gw/gateway/redis";
 * const service = GatewayService.make({ server_url: "http://localhost:8080", api_key: "..." });
 * const store = new RedisStore({ url: "redis://127.0.0.1:6379" });
 * const lease = new RedisTaskLease({ url: "redis://127.0.0.1:6379" });
 * registerScheduledTasks({ service, store, lease });
 * ```
 */
export class RedisTaskLease implements TaskLease {
  readonly #redis: RedisConnection;
  readonly #now: () => number;

  /** Connect with `{ url }` (opened on first use) or use `{ client }` (yours). */
  constructor(options: RedisTaskLeaseOptions) {
    checkOptionKeys(options, { ...REDIS_BACKEND_OPTION_KEYS, now: true }, "new RedisTaskLease");
    this.#redis = new RedisConnection("RedisTaskLease", options);
    this.#now = options.now ?? Date.now;
  }

  /** Take the lease `name` for `ttlMs`: a function that frees it, or null when someone else holds it. */
  async acquire(name: string, ttlMs: number): Promise<(() => Promise<void>) | null> {
    if (typeof name !== "string" || name === "") {
      throw new TypeError("Cannot take a task lease: the name must be a non-empty string");
    }
    if (!Number.isFinite(ttlMs) || ttlMs <= 0) {
      throw new RangeError(`Cannot take the task lease "${name}": ttlMs must be a number > 0`);
    }
    const key = `${this.#redis.prefix}lease:${name}`;
    const owner = crypto.randomUUID();
    const taken = await SET_UNLESS_LIVE.run<number>(this.#redis, [key], [
      String(this.#now()),
      `${owner}:${this.#now() + ttlMs}`,
      String(Math.ceil(ttlMs) + SLACK_MS),
    ]);
    if (taken !== 1) return null;
    return async () => {
      await RELEASE.run(this.#redis, [key], [owner]);
    };
  }

  /** Close the connection opened from `url` (a given `client` stays open). */
  close(): Promise<void> {
    return this.#redis.close();
  }
}
