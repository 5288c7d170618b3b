/**
 * `RedisState`: the `StateStore` on Redis, shared by every process that uses the same server and prefix.
 *
 * @module
 */

import { checkOptionKeys } from "../../option_keys.ts";
import * as state from "../../store/state.ts";
import { REDIS_BACKEND_OPTION_KEYS, type RedisBackendOptions, RedisConnection } from "./connection.ts";
import { RedisScript } from "./script.ts";

/** Options of {@link RedisState}: the connection, the key prefix, and the clock. */
export type RedisStateOptions = RedisBackendOptions & {
  /** The clock, in epoch ms (default `Date.now`): an entry past its `expiresAt` on it reads as absent. */
  now?: () => number;
};

// Redis drops an expiring entry this long after its own expiry time, so that clocks a little apart agree.
const SLACK_MS = 1000;
const LIST_BATCH = 200;

// An entry is live when it exists and its own expiry time (on the caller's clock) is not reached.
const LIVE = `
local function live(entry, now)
  local held = redis.call('HMGET', entry, 'ver', 'exp')
  if not held[1] then return nil end
  if held[2] ~= '' and tonumber(held[2]) <= now then return nil end
  return held[1]
end
`;

// KEYS: entry, key index, expiry index, version counter.
// ARGV: now, json, mode (any | absent | version), expected version, expiresAt or '', TTL ms or '', key,
// entry key prefix (for the sweep).
const SET = new RedisScript(`${LIVE}
local now = tonumber(ARGV[1])
local current = live(KEYS[1], now)
if ARGV[3] == 'absent' and current then return false end
if ARGV[3] == 'version' and current ~= ARGV[4] then return false end
local version = redis.call('INCR', KEYS[4])
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'v', ARGV[2], 'ver', version, 'exp', ARGV[5])
redis.call('ZADD', KEYS[2], 0, ARGV[7])
if ARGV[6] ~= '' then
  redis.call('PEXPIRE', KEYS[1], ARGV[6])
  redis.call('ZADD', KEYS[3], ARGV[5], ARGV[7])
else
  redis.call('ZREM', KEYS[3], ARGV[7])
end
-- Forget a few entries whose time has passed, so that the indexes stay as small as the live entries.
local expired = redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', ARGV[1], 'LIMIT', 0, 32)
for _, key in ipairs(expired) do
  redis.call('DEL', ARGV[8] .. key)
  redis.call('ZREM', KEYS[2], key)
  redis.call('ZREM', KEYS[3], key)
end
return tostring(version)
`);

// KEYS: entry, key index, expiry index. ARGV: now, expected version or '', key.
const DELETE = new RedisScript(`${LIVE}
local current = live(KEYS[1], tonumber(ARGV[1]))
if not current then return 0 end
if ARGV[2] ~= '' and current ~= ARGV[2] then return 0 end
redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[2], ARGV[3])
redis.call('ZREM', KEYS[3], ARGV[3])
return 1
`);

// Namespaces are escaped so that one cannot reach into another through a ':'.
function escapeNamespace(namespace: string): string {
  return namespace.replaceAll("%", "%25").replaceAll(":", "%3A");
}

/**
 * Shared key/value state with compare-and-set on Redis. Every write is one Lua script, so of concurrent
 * compare-and-sets on one key exactly one wins, whichever process sent it. An entry past its `expiresAt`
 * reads as absent at once (on this object's clock) and Redis deletes it by itself soon after.
 *
 * Layout under the prefix: `state:<namespace>:<key>` (a hash: value, version, expiry), and per namespace a
 * sorted set of its keys (for `list`, in UTF-8 byte order) and one of expiry times.
 *
 * @example A claim every app server sees
 * ```ts
 * import { RedisState } from "@gw/gateway/redis";
 * const state = new RedisState({ url: "redis://127.0.0.1:6379" });
 * const won = await state.set("claims", "order-42", { by: "app-1" }, { expectedVersion: null });
 * console.log(won !== null);
 * await state.close();
 * ```
 */
export class RedisState implements state.StateStore {
  readonly #redis: RedisConnection;
  readonly #now: () => number;

  /** Connect with `{ url }` (opened on first use) or use `{ client }` (yours). */
  constructor(options: RedisStateOptions) {
    checkOptionKeys(options, { ...REDIS_BACKEND_OPTION_KEYS, now: true }, "new RedisState");
    this.#redis = new RedisConnection("RedisState", options);
    this.#now = options.now ?? Date.now;
  }

  #keys(namespace: string, key: string): string[] {
    const ns = escapeNamespace(namespace);
    const p = this.#redis.prefix;
    return [`${p}state:${ns}:${key}`, `${p}state_index:${ns}`, `${p}state_expiry:${ns}`, `${p}state_version`];
  }

  /** Read a live entry, or null. */
  async get<T>(namespace: string, key: string): Promise<state.StateEntry<T> | null> {
    state.checkStateKey(namespace, key);
    const [entry] = this.#keys(namespace, key);
    const held = await this.#redis.command<(string | null)[]>(["HMGET", entry, "v", "ver", "exp"]);
    return this.#entry<T>(held);
  }

  #entry<T>([json, version, expires]: (string | null)[]): state.StateEntry<T> | null {
    if (json === null || version === null) return null;
    const out: state.StateEntry<T> = { value: JSON.parse(json) as T, version };
    if (expires !== null && expires !== "") {
      const expiresAt = Number(expires);
      if (expiresAt <= this.#now()) return null;
      out.expiresAt = expiresAt;
    }
    return out;
  }

  /** Write an entry; its new version, or null when `expectedVersion` did not match. */
  async set<T>(
    namespace: string,
    key: string,
    value: T,
    options: state.StateSetOptions = {},
  ): Promise<string | null> {
    const json = state.checkStateSet(namespace, key, value, options);
    const now = this.#now();
    const expected = options.expectedVersion;
    const mode = expected === undefined ? "any" : expected === null ? "absent" : "version";
    const expiresAt = options.expiresAt;
    const keys = this.#keys(namespace, key);
    const version = await SET.run<string | null>(this.#redis, keys, [
      String(now),
      json,
      mode,
      typeof expected === "string" ? expected : "",
      expiresAt === undefined ? "" : String(expiresAt),
      expiresAt === undefined ? "" : String(Math.max(1, Math.ceil(expiresAt - now)) + SLACK_MS),
      key,
      `${this.#redis.prefix}state:${escapeNamespace(namespace)}:`,
    ]);
    return version ?? null;
  }

  /** Delete a live entry (only at `expectedVersion` when given); true when one was deleted. */
  async delete(namespace: string, key: string, options: { expectedVersion?: string } = {}): Promise<boolean> {
    state.checkStateKey(namespace, key);
    const [entry, index, expiry] = this.#keys(namespace, key);
    const deleted = await DELETE.run<number>(this.#redis, [entry, index, expiry], [
      String(this.#now()),
      options.expectedVersion ?? "",
      key,
    ]);
    return deleted === 1;
  }

  /** List live entries of a namespace in key order (UTF-8 byte order), optionally by key prefix. */
  async list<T>(namespace: string, options: state.StateListOptions = {}): Promise<state.StateListEntry<T>[]> {
    const limit = state.checkStateList(namespace, options);
    const prefix = options.prefix ?? "";
    const ns = escapeNamespace(namespace);
    const index = `${this.#redis.prefix}state_index:${ns}`;
    const out: state.StateListEntry<T>[] = [];
    let from = prefix === "" ? "-" : `[${prefix}`;
    while (out.length < limit) {
      const keys = await this.#redis.command<string[]>([
        "ZRANGEBYLEX",
        index,
        from,
        "+",
        "LIMIT",
        "0",
        String(LIST_BATCH),
      ]);
      const matching = keys.filter((key) => key.startsWith(prefix));
      const held = await Promise.all(
        matching.map((key) =>
          this.#redis.command<(string | null)[]>([
            "HMGET",
            `${this.#redis.prefix}state:${ns}:${key}`,
            "v",
            "ver",
            "exp",
          ])
        ),
      );
      for (const [i, key] of matching.entries()) {
        const entry = this.#entry<T>(held[i]);
        if (entry !== null && out.length < limit) out.push({ key, ...entry });
      }
      if (keys.length < LIST_BATCH || matching.length < keys.length) break;
      from = `(${keys[keys.length - 1]}`;
    }
    return out;
  }

  /** Close the connection opened from `url` (a given `client`, or a `RedisStore`'s, stays open). */
  close(): Promise<void> {
    return this.#redis.close();
  }
}
