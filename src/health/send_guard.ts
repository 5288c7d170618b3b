/**
 * The breaker's two hooks in the send path: ask before a send, report after it.
 *
 * @module
 */

import { getGatewayLogger } from "../log.ts";
import type { InstanceHealthRecord, InstanceRef } from "./health_types.ts";
import type { InstanceHealth } from "./instance_health.ts";

const log = getGatewayLogger("health");

/**
 * Before a send: throws `InstanceDisconnectedException` while the breaker is open. For a `state` probe,
 * `pollState` asks the server for the state (recorded by it); the send goes only when that says `open`.
 * Resolves true when the instance was known open with no failure (the common case, one read of the
 * health): its success then has nothing to heal, and {@link settleSend} skips it.
 */
export function guardSend(
  health: InstanceHealth | undefined,
  ref: InstanceRef,
  pollState: () => Promise<unknown>,
): Promise<boolean> {
  if (!health) return Promise.resolve(false);
  return health.get(ref).then((seen) =>
    seen.breaker === "closed" ? isClean(seen) : admitThroughBreaker(health, ref, pollState)
  );
}

/**
 * {@link guardSend}'s answer without waiting, when the health reads at once (memory) and the breaker is
 * closed: whether the instance is clean. Undefined when the guard has to take its asynchronous way.
 */
export function guardSendNow(health: InstanceHealth, ref: InstanceRef): boolean | undefined {
  const breaker = health.breakerNow(ref);
  return breaker === undefined ? undefined : breaker === "clean";
}

/** A closed breaker admits without a write; a send to an instance known open with no failure is clean. */
function isClean(seen: InstanceHealthRecord): boolean {
  return seen.status === "open" && seen.consecutiveFailures === 0;
}

/** The breaker is not closed: ask `admit`, and for a `state` probe poll the state first. */
async function admitThroughBreaker(
  health: InstanceHealth,
  ref: InstanceRef,
  pollState: () => Promise<unknown>,
): Promise<boolean> {
  const admission = await health.admit(ref);
  if (admission !== "probe_state") return false;
  await pollState();
  // The poll recorded what it saw; asking again either passes (open) or throws the refusal.
  const record = await health.get(ref);
  if (record.status !== "open") await health.admit(ref);
  return false;
}

/**
 * After a send: record its outcome. A success of a send that {@link guardSend} found clean records nothing
 * (there is nothing to heal). A health write that fails is logged, never thrown: the send's own outcome is
 * what the caller needs.
 */
export async function settleSend(
  health: InstanceHealth | undefined,
  ref: InstanceRef,
  error?: unknown,
  clean = false,
): Promise<void> {
  if (!health || (error === undefined && clean)) return;
  try {
    if (error === undefined) await health.recordSendSuccess(ref);
    else await health.recordSendFailure(ref, error);
  } catch (failure) {
    log.warn("Cannot record health of instance {instance}: {error}", {
      instance: ref.instance,
      error: String(failure),
    });
  }
}
