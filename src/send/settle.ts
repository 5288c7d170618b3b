/**
 * The settle stage: the breaker learns each send's outcome (a success heals the instance, a disconnect
 * answered by the server counts towards opening it).
 *
 * @module
 */

import type { InstanceHealth } from "../health/instance_health.ts";
import { settleSend } from "../health/send_guard.ts";
import type { SendStage } from "./types.ts";

/** The settle stage over `health`. */
export function settleStage(health: InstanceHealth): SendStage {
  return async (send, next) => {
    let response;
    try {
      response = await next(send);
    } catch (error) {
      await settleSend(health, send.ref, error);
      throw error;
    }
    // A send the guard found clean has nothing to heal: no call, no await.
    if (!send.healthClean) await settleSend(health, send.ref);
    return response;
  };
}
