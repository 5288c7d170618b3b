/**
 * `KvState`: the `StateStore` on Deno KV. Each entry is one key `[...prefix, "state", namespace, key]`
 * holding its JSON and its own expiry time (KV's `expireIn` is lazy, so an expired entry is filtered on
 * read and only cleaned up by KV later). Compare-and-set uses the key's versionstamp.
 *
 * @module
 */

import { withBusyRetry } from "./busy.ts";
import * as state from "../../store/state.ts";

interface Stored {
  json: string;
  expiresAt?: number;
}

/** KV's own clean-up of an expired entry comes this long after our expiry, so reads always see ours first. */
const EXPIRE_SLACK_MS = 60_000;
/** Rounds of a compare-and-set that lost to a concurrent writer before giving up (each re-reads). */
const MAX_ROUNDS = 50;

/**
 * Shared state on Deno KV: exact across processes on one KV file, and on Deno Deploy.
 *
 * @example
 * ```ts
 * import { KvState } from "@gw/gateway";
 * const kv = await Deno.openKv(":memory:");
 * const state = new KvState(kv);
 * await state.set("lid", "123@lid", "5511999999999");
 * console.log((await state.get<string>("lid", "123@lid"))?.value); // "5511999999999"
 * kv.close();
 * ```
 */
export class KvState implements state.StateStore {
  readonly #kv: Deno.Kv;
  readonly #base: Deno.KvKey;
  readonly #now: () => number;

  /** Wrap an open `Deno.Kv`. */
  constructor(kv: Deno.Kv, options: { prefix?: Deno.KvKey; now?: () => number } = {}) {
    this.#kv = kv;
    this.#base = [...(options.prefix ?? ["gateway"]), "state"];
    this.#now = options.now ?? Date.now;
  }

  #key(namespace: string, key: string): Deno.KvKey {
    return [...this.#base, namespace, key];
  }

  #isLive(stored: Stored | null): stored is Stored {
    return stored !== null && (stored.expiresAt === undefined || stored.expiresAt > this.#now());
  }

  /** Read a live entry. */
  async get<T>(namespace: string, key: string): Promise<state.StateEntry<T> | null> {
    state.checkStateKey(namespace, key);
    const entry = await this.#kv.get<Stored>(this.#key(namespace, key));
    return this.#isLive(entry.value) ? entryOf<T>(entry.value, entry.versionstamp!) : null;
  }

  /** Write an entry, with an optional compare-and-set on its version. */
  async set<T>(
    namespace: string,
    key: string,
    value: T,
    options: state.StateSetOptions = {},
  ): Promise<string | null> {
    const stored: Stored = { json: state.checkStateSet(namespace, key, value, options) };
    if (options.expiresAt !== undefined) stored.expiresAt = options.expiresAt;
    const kvKey = this.#key(namespace, key);
    const expected = options.expectedVersion;
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const op = this.#kv.atomic();
      if (expected !== undefined) {
        const current = await this.#kv.get<Stored>(kvKey);
        const live = this.#isLive(current.value);
        if (expected === null ? live : !live || current.versionstamp !== expected) return null;
        // Checked against what was read: a dead (expired) entry may be replaced, a live one only if unchanged.
        op.check({ key: kvKey, versionstamp: current.versionstamp });
      }
      op.set(kvKey, stored, this.#expireIn(stored));
      const result = await withBusyRetry(() => op.commit());
      if (result.ok) return result.versionstamp;
      if (typeof expected === "string") return null;
    }
    throw new Error(`Cannot store state "${namespace}/${key}": too many concurrent writers`);
  }

  #expireIn(stored: Stored): { expireIn?: number } {
    if (stored.expiresAt === undefined) return {};
    return { expireIn: Math.max(1, stored.expiresAt - this.#now()) + EXPIRE_SLACK_MS };
  }

  /** Delete an entry. */
  async delete(namespace: string, key: string, options: { expectedVersion?: string } = {}): Promise<boolean> {
    state.checkStateKey(namespace, key);
    const kvKey = this.#key(namespace, key);
    const current = await this.#kv.get<Stored>(kvKey);
    if (!this.#isLive(current.value)) return false;
    if (options.expectedVersion !== undefined && current.versionstamp !== options.expectedVersion) {
      return false;
    }
    const result = await withBusyRetry(() =>
      this.#kv.atomic().check({ key: kvKey, versionstamp: current.versionstamp }).delete(kvKey).commit()
    );
    return result.ok;
  }

  /** List live entries of a namespace in key order. */
  async list<T>(namespace: string, options?: state.StateListOptions): Promise<state.StateListEntry<T>[]> {
    const limit = state.checkStateList(namespace, options);
    const prefix = options?.prefix ?? "";
    const space = [...this.#base, namespace];
    const selector: Deno.KvListSelector = prefix === ""
      ? { prefix: space }
      : { start: [...space, prefix], end: [...space, prefix + "\u{10FFFF}"] };
    const out: state.StateListEntry<T>[] = [];
    for await (const entry of this.#kv.list<Stored>(selector)) {
      const key = entry.key[entry.key.length - 1];
      if (typeof key !== "string" || !key.startsWith(prefix) || !this.#isLive(entry.value)) continue;
      out.push({ key, ...entryOf<T>(entry.value, entry.versionstamp) });
      if (out.length >= limit) break;
    }
    return out;
  }
}

function entryOf<T>(stored: Stored, version: string): state.StateEntry<T> {
  const entry: state.StateEntry<T> = { value: JSON.parse(stored.json) as T, version };
  if (stored.expiresAt !== undefined) entry.expiresAt = stored.expiresAt;
  return entry;
}
