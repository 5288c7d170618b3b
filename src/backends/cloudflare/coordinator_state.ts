/**
 * `CoordinatorState`: the `StateStore` on Workers through `GatewayCoordinator`.
 *
 * @module
 */

import { checkOptionKeys } from "../../option_keys.ts";
import * as state from "../../store/state.ts";
import type { DurableObjectNamespace } from "./bindings.ts";
import { callCoordinator, type CoordinatorObjectName, objectFor } from "./coordinator_protocol.ts";

/** Options of {@link CoordinatorState}. */
export interface CoordinatorStateOptions {
  /** The object that holds a namespace (default `state:<namespace>`: one object per namespace). */
  objectName?: CoordinatorObjectName;
  /** The clock for expiry, epoch ms (default `Date.now`). */
  now?: () => number;
}

/**
 * A {@link StateStore} kept in `GatewayCoordinator` Durable Objects, one object per namespace: every
 * compare-and-set of a namespace runs in its object, one at a time, so claims (idempotency keys, leases)
 * are exact across isolates and regions, with the object's strong consistency. Use it as the state of a
 * store on Workers (for example beside `D1Store`, or instead of `MemoryStore`'s per-isolate state).
 *
 * @example Claim an idempotency key once, from any isolate
 * ```ts
 * import { CoordinatorState, type DurableObjectNamespace, GatewayCoordinator } from "@gw/gateway/cloudflare";
 * export { GatewayCoordinator };
 * export default {
 *   async fetch(_request: Request, env: { COORDINATOR: DurableObjectNamespace }) {
 *     const state = new CoordinatorState(env.COORDINATOR);
 *     const won = await state.set("idempotency", "order-42", { at: Date.now() }, { expectedVersion: null });
 *     return new Response(won === null ? "duplicate" : "first");
 *   },
 * };
 * ```
 */
export class CoordinatorState implements state.StateStore {
  readonly #namespace: DurableObjectNamespace;
  readonly #objectName: CoordinatorObjectName;
  readonly #now: () => number;

  /** Use the coordinator objects of `namespace`. */
  constructor(namespace: DurableObjectNamespace, options: CoordinatorStateOptions = {}) {
    checkOptionKeys(options, { objectName: true, now: true }, "new CoordinatorState");
    this.#namespace = namespace;
    this.#objectName = options.objectName ?? ((space) => `state:${space}`);
    this.#now = options.now ?? Date.now;
  }

  #call<T>(namespace: string, request: Parameters<typeof callCoordinator>[2], what: string): Promise<T> {
    return callCoordinator<T>(this.#namespace, objectFor(this.#objectName, namespace), request, what);
  }

  /** Read a live entry, or null. */
  async get<T>(namespace: string, key: string): Promise<state.StateEntry<T> | null> {
    state.checkStateKey(namespace, key);
    return await this.#call(
      namespace,
      { op: "state.get", namespace, key, now: this.#now() },
      `Cannot read state "${namespace}/${key}"`,
    );
  }

  /** Write an entry; with `expectedVersion`, only when the current version is that one (`null`: absent). */
  async set<T>(
    namespace: string,
    key: string,
    value: T,
    options: state.StateSetOptions = {},
  ): Promise<string | null> {
    state.checkStateSet(namespace, key, value, options);
    const sent: state.StateSetOptions = {};
    if (options.expectedVersion !== undefined) sent.expectedVersion = options.expectedVersion;
    if (options.expiresAt !== undefined) sent.expiresAt = options.expiresAt;
    return await this.#call(
      namespace,
      { op: "state.set", namespace, key, value, options: sent, now: this.#now() },
      `Cannot store state "${namespace}/${key}"`,
    );
  }

  /** Delete a live entry (only at `expectedVersion` when given); true when one was deleted. */
  async delete(namespace: string, key: string, options: { expectedVersion?: string } = {}): Promise<boolean> {
    state.checkStateKey(namespace, key);
    return await this.#call(
      namespace,
      { op: "state.delete", namespace, key, options, now: this.#now() },
      `Cannot delete state "${namespace}/${key}"`,
    );
  }

  /** List live entries of a namespace in key order. */
  async list<T>(namespace: string, options: state.StateListOptions = {}): Promise<state.StateListEntry<T>[]> {
    state.checkStateList(namespace, options);
    return await this.#call(
      namespace,
      { op: "state.list", namespace, options, now: this.#now() },
      `Cannot list state "${namespace}"`,
    );
  }
}
