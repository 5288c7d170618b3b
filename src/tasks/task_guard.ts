/**
 * Keeps a scheduled task from overlapping itself: an in-flight flag within the isolate, and optionally a
 * lease shared by every isolate (a Deno KV key with an expiry).
 *
 * @module
 */

import { getGatewayLogger } from "../log.ts";

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

interface LeaseValue {
  owner: string;
  expiresAt: number;
}

const log = getGatewayLogger("tasks");

/**
 * A {@link TaskLease} on Deno KV: one key per task under `prefix`, taken with a versionstamp check so two
 * isolates never both take it, and freed by its owner only. An expired lease (a crashed holder) can be
 * taken again.
 */
export function kvTaskLease(
  kv: Deno.Kv,
  prefix: Deno.KvKey = ["gateway", "lease"],
  now: () => number = Date.now,
): TaskLease {
  return {
    async acquire(name, ttlMs) {
      const key = [...prefix, name];
      const current = await kv.get<LeaseValue>(key);
      if (current.value !== null && current.value.expiresAt > now()) return null;
      const owner = crypto.randomUUID();
      const result = await kv.atomic()
        .check(current)
        .set(key, { owner, expiresAt: now() + ttlMs } satisfies LeaseValue, { expireIn: ttlMs })
        .commit();
      if (!result.ok) return null;
      return async () => {
        const held = await kv.get<LeaseValue>(key);
        if (held.value?.owner === owner) await kv.atomic().check(held).delete(key).commit();
      };
    },
  };
}

/**
 * Wrap `run` so that a call while a previous one is still running (in this isolate, or under `lease` in
 * any isolate) returns null at once instead of running twice. `lease` may be built from the call's
 * argument (the Workers bindings).
 */
export function guardTask<A, T>(
  name: string,
  run: (arg: A) => Promise<T>,
  lease: TaskLease | ((arg: A) => TaskLease) | undefined,
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
      const held = typeof lease === "function" ? lease(arg) : lease;
      const release = held === undefined ? undefined : await held.acquire(name, leaseMs);
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
