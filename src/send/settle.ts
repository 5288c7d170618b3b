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
    try {
      const response = await next(send);
      await settleSend(health, send.ref, undefined, send.healthClean);
      return response;
    } catch (error) {
      await settleSend(health, send.ref, error);
      throw error;
    }
  };
}
