import type { GatewayClient } from "../client/client.ts";
import type { InstanceRef } from "../health/health_types.ts";
import type { InstanceHealth } from "../health/instance_health.ts";
import { guardSend, guardSendNow } from "../health/send_guard.ts";
import type { SendStage } from "./types.ts";

/** Ask the server for an instance's state and record it: the breaker's half-open probe. */
async function pollState(
  client: GatewayClient,
  health: InstanceHealth,
  ref: InstanceRef,
  signal?: AbortSignal,
): Promise<void> {
  const res = await client.request<{ instance?: { state?: unknown } }>(
    "GET",
    "/instance/connectionState/{instance}",
    { connection: ref.connection, instance: ref.instance, signal, maxRetries: 0 },
  );
  const state = res.data?.instance?.state;
  if (typeof state === "string") await health.recordState(ref, state);
}

/**
 * The guard stage: while the breaker holds an instance down, a send is refused before any record or request
 * (`InstanceDisconnectedException`), so the retry task finds no failed record to send into it. Half-open, one
 * probe goes through: the send, or first a `connectionState` poll for a banned or logged-out instance.
 */
export function guardStage(health: InstanceHealth, client: GatewayClient): SendStage {
  return (send, next) => {
    // Memory answers at once: a closed breaker then costs no promise at all.
    const now = guardSendNow(health, send.ref);
    if (now !== undefined) {
      send.healthClean = now;
      return next();
    }
    return guardSend(health, send.ref, () => pollState(client, health, send.ref, send.call.signal)).then(
      (clean) => {
        send.healthClean = clean;
        return next();
      },
    );
  };
}
