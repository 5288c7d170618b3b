/**
 * Keeps a scheduled task from overlapping itself: an in-isolate flag, and optionally a {@link TaskLease}.
 *
 * @module
 */

import { getGatewayLogger } from "../log.ts";
import type { TaskLease } from "./task_lease.ts";

const log = getGatewayLogger("tasks");

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
