/**
 * `MemoryState`: the in-process `StateStore`.
 *
 * @module
 */

import { settle } from "../../store/records.ts";
import * as state from "../../store/state.ts";

interface Held {
  json: string;
  version: string;
  expiresAt?: number;
  /** The entry as `getNow` hands it out, parsed on its first read (a write replaces the whole `Held`). */
  frozen?: state.StateEntry<unknown>;
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const item of Object.values(value)) deepFreeze(item);
  }
  return value;
}

/**
 * Shared state within one process: exact there, nothing shared with other isolates. Expired entries are
 * dropped when read, and a sweep on writes keeps memory bounded by the live entries.
 *
 * @example
 * ```ts
 * import { MemoryState } from "@gw/gateway";
 * const state = new MemoryState();
 * await state.set("lid", "123@lid", "5511999999999");
 * console.log((await state.get<string>("lid", "123@lid"))?.value); // "5511999999999"
 * ```
 */
export class MemoryState implements state.StateStore {
  readonly #now: () => number;
  readonly #entries = new Map<string, Map<string, Held>>();
  #counter = 0;
  #writesUntilSweep = 64;
  #size = 0;

  /** Create empty state. */
  constructor(options: { now?: () => number } = {}) {
    this.#now = options.now ?? Date.now;
  }

  /** How many entries are held, counting expired ones not yet swept (for monitoring memory). */
  get size(): number {
    return this.#size;
  }

  #live(namespace: string, key: string): Held | undefined {
    const held = this.#entries.get(namespace)?.get(key);
    if (held === undefined) return undefined;
    if (held.expiresAt !== undefined && held.expiresAt <= this.#now()) {
      this.#remove(namespace, key);
      return undefined;
    }
    return held;
  }

  #remove(namespace: string, key: string): void {
    const space = this.#entries.get(namespace);
    if (space?.delete(key)) {
      this.#size--;
      if (space.size === 0) this.#entries.delete(namespace);
    }
  }

  // Sweeps every expired entry once there have been as many writes as entries were left by the last sweep,
  // so a sweep costs at most two steps per write since the last one and memory stays bounded by the live
  // entries plus the writes since the last sweep.
  #sweepSometimes(): void {
    if (--this.#writesUntilSweep > 0) return;
    const now = this.#now();
    for (const [namespace, space] of this.#entries) {
      for (const [key, held] of space) {
        if (held.expiresAt !== undefined && held.expiresAt <= now) this.#remove(namespace, key);
      }
    }
    this.#writesUntilSweep = Math.max(64, this.#size);
  }

  /** Read a live entry. */
  get<T>(namespace: string, key: string): Promise<state.StateEntry<T> | null> {
    return settle(() => {
      state.checkStateKey(namespace, key);
      const held = this.#live(namespace, key);
      return held === undefined ? null : entryOf<T>(held);
    });
  }

  /** A live entry, synchronously; unlike {@link MemoryState.get} shared, deeply frozen: copy to change. */
  getNow<T>(namespace: string, key: string): Readonly<state.StateEntry<T>> | null {
    state.checkStateKey(namespace, key);
    const held = this.#live(namespace, key);
    if (held === undefined) return null;
    return (held.frozen ??= deepFreeze(entryOf<unknown>(held))) as state.StateEntry<T>;
  }

  /** Write an entry, with an optional compare-and-set on its version. */
  set<T>(
    namespace: string,
    key: string,
    value: T,
    options: state.StateSetOptions = {},
  ): Promise<string | null> {
    return settle(() => {
      const json = state.checkStateSet(namespace, key, value, options);
      const current = this.#live(namespace, key);
      if (options.expectedVersion !== undefined && (current?.version ?? null) !== options.expectedVersion) {
        return null;
      }
      const version = String(++this.#counter).padStart(16, "0");
      let space = this.#entries.get(namespace);
      if (space === undefined) this.#entries.set(namespace, space = new Map());
      if (current === undefined) this.#size++;
      space.set(key, { json, version, expiresAt: options.expiresAt });
      this.#sweepSometimes();
      return version;
    });
  }

  /** Delete an entry. */
  delete(namespace: string, key: string, options: { expectedVersion?: string } = {}): Promise<boolean> {
    return settle(() => {
      state.checkStateKey(namespace, key);
      const current = this.#live(namespace, key);
      if (current === undefined) return false;
      if (options.expectedVersion !== undefined && current.version !== options.expectedVersion) return false;
      this.#remove(namespace, key);
      return true;
    });
  }

  /** List live entries of a namespace in key order. */
  list<T>(namespace: string, options?: state.StateListOptions): Promise<state.StateListEntry<T>[]> {
    return settle(() => {
      const limit = state.checkStateList(namespace, options);
      const prefix = options?.prefix ?? "";
      const keys = [...(this.#entries.get(namespace)?.keys() ?? [])]
        .filter((key) => key.startsWith(prefix))
        .sort(compareText);
      const out: state.StateListEntry<T>[] = [];
      for (const key of keys) {
        const held = this.#live(namespace, key);
        if (held === undefined) continue;
        out.push({ key, ...entryOf<T>(held) });
        if (out.length >= limit) break;
      }
      return out;
    });
  }
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function entryOf<T>(held: Held): state.StateEntry<T> {
  const entry: state.StateEntry<T> = { value: JSON.parse(held.json) as T, version: held.version };
  if (held.expiresAt !== undefined) entry.expiresAt = held.expiresAt;
  return entry;
}
