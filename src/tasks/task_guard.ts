/**
 * Keeps a scheduled task from overlapping itself: an in-flight flag within the isolate, and optionally a
 * lease shared by every isolate (a Deno KV key with an expiry).
 *
 * @module
 */

import { getGatewayLogger } from "../log.ts";
import { KvState } from "../store/kv_state.ts";
import type { StateStore } from "../store/state.ts";

/**
 * A lock shared by every isolate that runs the same tasks. `acquire` resolves to a release function, or
 * to null when another holder has the lease.
 *
 * @example A lease that always grants (no cross-isolate protection)
 * ```ts
 * import type { TaskLease } from "@gw/gateway";
 * const lease: TaskLease = { acquire: () => Promise.resolve(() => Promise.resolve()) };
 * ```
 */
export interface TaskLease {
  /** Take the lease `name` for `ttlMs`; null when someone else holds it. */
  acquire(name: string, ttlMs: number): Promise<(() => Promise<void>) | null>;
}

const log = getGatewayLogger("tasks");

/**
 * A {@link TaskLease} on any {@link StateStore}: one entry per task in the `lease` namespace, created only
 * when absent (compare-and-set), with its own expiry so that a crashed holder's lease can be taken again,
 * and freed by its owner only (the delete is checked against the version it wrote).
 *
 * @example A lease shared by every process on one KV file
 * ```ts
 * import { KvState, stateTaskLease } from "@gw/gateway";
 * const kv = await Deno.openKv(":memory:");
 * const lease = stateTaskLease(new KvState(kv));
 * const release = await lease.acquire("prune", 60_000);
 * console.log(release !== null, await lease.acquire("prune", 60_000)); // true null
 * await release?.();
 * kv.close();
 * ```
 */
export function stateTaskLease(state: StateStore, now: () => number = Date.now): TaskLease {
  return {
    async acquire(name, ttlMs) {
      const version = await state.set("lease", name, { owner: crypto.randomUUID() }, {
        expectedVersion: null,
        expiresAt: now() + ttlMs,
      });
      if (version === null) return null;
      return async () => {
        await state.delete("lease", name, { expectedVersion: version });
      };
    },
  };
}

/**
 * A {@link TaskLease} on Deno KV (see {@link stateTaskLease}), keyed under `prefix`.
 */
export function kvTaskLease(
  kv: Deno.Kv,
  prefix: Deno.KvKey = ["gateway"],
  now: () => number = Date.now,
): TaskLease {
  return stateTaskLease(new KvState(kv, { prefix, now }), now);
}

/**
 * Wrap `run` so that a call while a previous one is still running (in this isolate, or under `lease` in
 * any isolate) returns null at once instead of running twice.
 */
export function guardTask<A, T>(
  name: string,
  run: (arg: A) => Promise<T>,
  lease: TaskLease | undefined,
  leaseMs: number,
): (arg: A) => Promise<T | null> {
  let running = false;
  return async (arg) => {
    if (running) {
      log.warn("Skipping {name}: its previous run is still going", { name });
      return null;
    }
    running = true;
    try {
      const release = lease === undefined ? undefined : await lease.acquire(name, leaseMs);
      if (release === null) {
        log.info("Skipping {name}: another isolate holds its lease", { name });
        return null;
      }
      try {
        return await run(arg);
      } finally {
        await release?.().catch((error: unknown) => {
          log.warn("Cannot release the lease of {name}: {error}", { name, error: String(error) });
        });
      }
    } finally {
      running = false;
    }
  };
}
