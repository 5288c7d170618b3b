import type { InstanceHealth } from "../health/instance_health.ts";
import { settleSend } from "../health/send_guard.ts";
import type { SendStage } from "./types.ts";

/** The settle stage: the breaker learns each send's outcome (a success heals, a disconnect counts). */
export function settleStage(health: InstanceHealth): SendStage {
  return (send, next) =>
    next().then(
      // A send the guard found clean has nothing to heal: no call, no wait.
      () => send.healthClean ? undefined : settleSend(health, send.ref),
      (error) =>
        settleSend(health, send.ref, error).then(() => {
          throw error;
        }),
    );
}
