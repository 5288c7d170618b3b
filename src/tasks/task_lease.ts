/**
 * `TaskLease`: the contract of a lock shared by every isolate that runs the same scheduled tasks. Its own
 * file so that the guard (`task_guard.ts`) and the leases that implement it (`state_lease.ts`,
 * `backends/redis/lease.ts`, `backends/kv/lease.ts`) depend on it, not on each other.
 *
 * @module
 */

/**
 * A lock shared by every isolate that runs the same tasks. `acquire` resolves to a release function, or
 * to null when another holder has the lease.
 *
 * @example A lease that always grants (no cross-isolate protection)
 * ```ts
 * import type { TaskLease } from "@gw/gateway/tasks";
 * const lease: TaskLease = { acquire: () => Promise.resolve(() => Promise.resolve()) };
 * ```
 */
export interface TaskLease {
  /** Take the lease `name` for `ttlMs`; null when someone else holds it. */
  acquire(name: string, ttlMs: number): Promise<(() => Promise<void>) | null>;
}
