/**
 * A Lua script run atomically on the Redis server: `EVALSHA`, and `EVAL` once when the server does not
 * have it cached yet (after a restart or a `SCRIPT FLUSH`). Internal to `./redis`.
 *
 * The scripts build some key names from their arguments (index keys that depend on a record's old
 * status), so they need every key on one server: a standalone Redis, or a primary with replicas.
 *
 * @module
 */

import type { RedisConnection } from "./connection.ts";

/** A Lua script and its SHA-1, computed once. */
export class RedisScript {
  readonly #source: string;
  #sha: Promise<string> | undefined;

  constructor(source: string) {
    this.#source = source;
  }

  /** Run the script with `keys` and `args`; resolves to its raw reply. */
  async run<T = unknown>(connection: RedisConnection, keys: string[], args: string[]): Promise<T> {
    const sha = await (this.#sha ??= sha1(this.#source));
    const tail = [String(keys.length), ...keys, ...args];
    try {
      return await connection.command<T>(["EVALSHA", sha, ...tail]);
    } catch (error) {
      if (!(error instanceof Error) || !error.message.startsWith("NOSCRIPT")) throw error;
      return await connection.command<T>(["EVAL", this.#source, ...tail]);
    }
  }
}

async function sha1(text: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-1", new TextEncoder().encode(text)));
  return Array.from(digest, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

/**
 * `SET key value PX ttl` unless a live record holds the key, judged by the expiry time at the end of the
 * stored value (`<anything>:<expiresAt>`) on the caller's clock, not by Redis's TTL alone: a record whose
 * time has passed is taken over at once. Dedupe claims and task leases both claim this way.
 * KEYS[1] the key; ARGV: now, the value to write (ending in `:<expiresAt>`), its TTL in ms. Returns 1 or 0.
 */
export const SET_UNLESS_LIVE: RedisScript = new RedisScript(`
local held = redis.call('GET', KEYS[1])
if held then
  local expires = tonumber(string.match(held, ':([^:]*)$'))
  if expires ~= nil and expires > tonumber(ARGV[1]) then return 0 end
end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
return 1
`);
