/**
 * `stateTaskLease`: the scheduled tasks' cross-isolate lease on any `StateStore` (for Workers).
 *
 * @module
 */

import type { StateStore } from "../store/state.ts";
import type { TaskLease } from "./task_lease.ts";

/** Options of {@link stateTaskLease}. */
export interface StateTaskLeaseOptions {
  /** The state namespace of the leases (default `task_lease`). */
  namespace?: string;
  /** Clock, epoch ms (default `Date.now`); it sets each lease's `expiresAt`. */
  now?: () => number;
}

/**
 * A {@link TaskLease} kept in `state`: a lease is an entry created only if absent (`expectedVersion: null`)
 * that expires after `ttlMs`, so of several isolates exactly one holds a task, and a crashed holder's lease
 * can be taken again once it expires. The holder releases it with a compare-and-set on its version, so it
 * never frees a lease someone else took after its own expired.
 *
 * @example Scheduled tasks on Workers, one run at a time across isolates
 * ```ts
 * import { GatewayService } from "@gw/gateway";
 * import { createScheduledHandler } from "@gw/gateway/tasks";
 * import { stateTaskLease } from "@gw/gateway/tasks";
 * import { type D1Database, D1State, D1Store } from "@gw/gateway/cloudflare";
 * interface Env {
 *   DB: D1Database;
 *   GATEWAY_API_URL: string;
 *   GATEWAY_API_KEY: string;
 * }
 * const worker = {
 *   scheduled: createScheduledHandler<Env>({
 *     store: (env) => new D1Store(env.DB),
 *     service: (env) =>
 *       GatewayService.make({
 *         server_url: env.GATEWAY_API_URL,
 *         api_key: env.GATEWAY_API_KEY,
 *         store: new D1Store(env.DB),
 *       }),
 *     lease: (env) => stateTaskLease(new D1State(env.DB)),
 *   }),
 * };
 * // export default worker;  (the Worker's module export)
 * console.log(typeof worker.scheduled);
 * ```
 */
export function stateTaskLease(state: StateStore, options: StateTaskLeaseOptions = {}): TaskLease {
  const namespace = options.namespace ?? "task_lease";
  const now = options.now ?? Date.now;
  return {
    async acquire(name, ttlMs) {
      const version = await state.set(namespace, name, { owner: crypto.randomUUID() }, {
        expectedVersion: null,
        expiresAt: now() + ttlMs,
      });
      if (version === null) return null;
      return async () => {
        await state.delete(namespace, name, { expectedVersion: version });
      };
    },
  };
}
