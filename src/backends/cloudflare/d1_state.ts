/**
 * `D1State`: the `StateStore` on Cloudflare D1.
 *
 * @module
 */

import type * as state from "../../store/state.ts";
import type { D1Database } from "./bindings.ts";
import { d1Runner } from "./sql.ts";
import { SqlStateEngine } from "./sql_state.ts";

/**
 * Shared state in a D1 database (the `gateway_state` table of the shipped migration): exact across every
 * isolate and region that uses the database. A compare-and-set is one SQL statement (`INSERT … ON CONFLICT
 * DO UPDATE … WHERE` or `UPDATE … WHERE version = ?`), so of concurrent writers with the same expectation
 * exactly one wins. An entry past its `expiresAt` reads as absent at once; each write also deletes a few
 * expired rows, so they do not pile up.
 *
 * @example Claim a key once across isolates
 * ```ts
 * import { type D1Database, D1State } from "@gw/gateway/cloudflare";
 * export default {
 *   async fetch(_request: Request, env: { DB: D1Database }) {
 *     const state = new D1State(env.DB);
 *     const won = await state.set("claims", "order-42", { by: "me" }, { expectedVersion: null });
 *     return new Response(won === null ? "already claimed" : "claimed");
 *   },
 * };
 * ```
 */
export class D1State implements state.StateStore {
  readonly #engine: SqlStateEngine;

  /** Use `db` (after {@link applyD1Migrations} or `wrangler d1 migrations apply`). */
  constructor(db: D1Database, options: { now?: () => number } = {}) {
    this.#engine = new SqlStateEngine(d1Runner(db), options.now ?? Date.now);
  }

  /** Read a live entry, or null. */
  get<T>(namespace: string, key: string): Promise<state.StateEntry<T> | null> {
    return this.#engine.get<T>(namespace, key);
  }

  /** Write an entry; with `expectedVersion`, only when the current version is that one (`null`: absent). */
  set<T>(namespace: string, key: string, value: T, options?: state.StateSetOptions): Promise<string | null> {
    return this.#engine.set(namespace, key, value, options);
  }

  /** Delete a live entry (only at `expectedVersion` when given); true when one was deleted. */
  delete(namespace: string, key: string, options?: { expectedVersion?: string }): Promise<boolean> {
    return this.#engine.delete(namespace, key, options);
  }

  /** List live entries of a namespace in key order. */
  list<T>(namespace: string, options?: state.StateListOptions): Promise<state.StateListEntry<T>[]> {
    return this.#engine.list<T>(namespace, options);
  }
}
