/**
 * `kvTaskLease`: the scheduled tasks' cross-isolate lease on Deno KV.
 *
 * @module
 */

import { stateTaskLease } from "../../tasks/state_lease.ts";
import type { TaskLease } from "../../tasks/task_lease.ts";
import { KvState } from "./state.ts";

/** A {@link TaskLease} on Deno KV (see {@link stateTaskLease}), keyed under `prefix`. */
export function kvTaskLease(
  kv: Deno.Kv,
  prefix: Deno.KvKey = ["gateway"],
  now: () => number = Date.now,
): TaskLease {
  return stateTaskLease(new KvState(kv, { prefix, now }), { now });
}
