/**
 * `StateStore`: small shared key/value state with compare-and-set and expiry, for the features that
 * coordinate through the store (idempotency claims, the LID directory, recipient caches, message status,
 * instance health, task progress). One contract, one implementation per engine: `MemoryState`, `KvState`,
 * and the Redis and Cloudflare backends.
 *
 * Values are JSON-compatible and small (at most {@link MAX_STATE_VALUE_BYTES} as JSON). An entry past its
 * `expiresAt` reads as absent at once, whatever the engine's own expiry does later.
 *
 * @module
 */

/** Largest value a state entry holds, as JSON (under Deno KV's 64 KiB value limit). */
export const MAX_STATE_VALUE_BYTES = 48 * 1024;

/** One entry of the shared state. */
export interface StateEntry<T> {
  /** The stored value. */
  value: T;
  /** Opaque version: changes on every write; pass it back as `expectedVersion` to compare-and-set. */
  version: string;
  /** When the entry stops existing (epoch ms), if it expires. */
  expiresAt?: number;
}

/** An entry with its key, as {@link StateStore.list} answers. */
export interface StateListEntry<T> extends StateEntry<T> {
  /** The entry's key within its namespace. */
  key: string;
}

/** Options of {@link StateStore.set}. */
export interface StateSetOptions {
  /** Write only at this current version (`null`: only when no live entry exists); omitted: always. */
  expectedVersion?: string | null;
  /** When the entry expires (epoch ms); omitted: never. */
  expiresAt?: number;
}

/** Options of {@link StateStore.list}. */
export interface StateListOptions {
  /** Only keys that start with this text. */
  prefix?: string;
  /** At most this many entries (default 1000). */
  limit?: number;
}

/**
 * Shared key/value state with compare-and-set. Keys live in namespaces (`idempotency`, `lid`, ...).
 *
 * @example Claiming a key once
 * ```ts
 * import { MemoryState } from "@gw/gateway";
 * const state = new MemoryState();
 * const first = await state.set("claims", "order-42", { by: "a" }, { expectedVersion: null });
 * const second = await state.set("claims", "order-42", { by: "b" }, { expectedVersion: null });
 * console.log(first !== null, second); // true null
 * ```
 */
export interface StateStore {
  /** Read a live entry, or null. */
  get<T>(namespace: string, key: string): Promise<StateEntry<T> | null>;
  /** Write an entry; returns its new version, or null when `expectedVersion` did not match. */
  set<T>(namespace: string, key: string, value: T, options?: StateSetOptions): Promise<string | null>;
  /** Delete an entry (only at `expectedVersion` when given); true when a live entry was deleted. */
  delete(namespace: string, key: string, options?: { expectedVersion?: string }): Promise<boolean>;
  /** List live entries of a namespace in key order. */
  list<T>(namespace: string, options?: StateListOptions): Promise<StateListEntry<T>[]>;
}

const encoder = new TextEncoder();
const DEFAULT_LIST_LIMIT = 1000;

/** Check a namespace and key; throws `TypeError` naming the bad one. */
export function checkStateKey(namespace: string, key: string): void {
  if (typeof namespace !== "string" || namespace === "") {
    throw new TypeError(`Cannot use state: namespace must be a non-empty string`);
  }
  if (typeof key !== "string" || key === "") {
    throw new TypeError(`Cannot use state: key must be a non-empty string (namespace "${namespace}")`);
  }
}

/** Encode a value to JSON, refusing one over the size limit or not JSON-compatible. */
function encodeStateValue(namespace: string, key: string, value: unknown): string {
  const json = JSON.stringify(value);
  if (json === undefined) {
    throw new TypeError(`Cannot store state "${namespace}/${key}": the value is not JSON-compatible`);
  }
  // A UTF-16 code unit is at most 3 UTF-8 bytes: a short text needs no encoding to be known small enough.
  if (json.length * 3 <= MAX_STATE_VALUE_BYTES) return json;
  const bytes = encoder.encode(json).byteLength;
  if (bytes > MAX_STATE_VALUE_BYTES) {
    throw new RangeError(
      `Cannot store state "${namespace}/${key}": the value is ${bytes} bytes as JSON, over ${MAX_STATE_VALUE_BYTES}`,
    );
  }
  return json;
}

/** Check `expiresAt` when given. */
function checkExpiresAt(expiresAt: number | undefined): void {
  if (expiresAt !== undefined && !Number.isFinite(expiresAt)) {
    throw new TypeError(`Cannot store state: "expiresAt" must be a finite epoch-ms time`);
  }
}

/** The list limit, checked. */
function listLimit(options: StateListOptions | undefined): number {
  const limit = options?.limit ?? DEFAULT_LIST_LIMIT;
  if (!Number.isInteger(limit) || limit < 1) {
    throw new RangeError(`Cannot list state: "limit" must be a positive integer, got "${String(limit)}"`);
  }
  return limit;
}

/** Check a `StateStore.set`'s arguments alike in every engine; the value as JSON. */
export function checkStateSet(
  namespace: string,
  key: string,
  value: unknown,
  options: StateSetOptions,
): string {
  checkStateKey(namespace, key);
  checkExpiresAt(options.expiresAt);
  return encodeStateValue(namespace, key, value);
}

/** Check the arguments of a `StateStore.list` the same way in every engine, and return the limit. */
export function checkStateList(namespace: string, options: StateListOptions | undefined): number {
  checkStateKey(namespace, "-");
  return listLimit(options);
}
