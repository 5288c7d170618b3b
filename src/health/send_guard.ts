import { getGatewayLogger } from "../log.ts";
import type { InstanceHealthRecord, InstanceRef } from "./health_types.ts";
import type { InstanceHealth } from "./instance_health.ts";

const log = getGatewayLogger("health");

/**
 * The breaker's hook before a send: throws `InstanceDisconnectedException` while it is open; a `state` probe
 * polls first. True when the instance was clean: {@link settleSend} then has nothing to heal.
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

/** {@link guardSend}'s answer without waiting, or undefined when it has to take its asynchronous way. */
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

/** The breaker's hook after a send; a failed health write is logged, never thrown over the send's outcome. */
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
