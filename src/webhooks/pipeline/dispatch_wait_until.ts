/**
 * Stage "dispatch", `waitUntil` mode (Workers without a queue): 202 at once, the handlers run after the
 * response inside `ctx.waitUntil`. A failure there cannot be retried by the server: it is logged, counted
 * and, with a store, the webhook log is marked failed; the dedupe claim is given back. Internal.
 *
 * @module
 */

import { runWebhook } from "../run.ts";
import { completeClaim, releaseClaim } from "./dedupe.ts";
import { runContextOf } from "./dispatch_sync.ts";
import { BODIES, count, reportFailure, respond } from "./respond.ts";
import type { Receiver, RequestState } from "./state.ts";

/** Hand the handlers to `state.ctx.waitUntil` and answer 202. */
export function dispatchWaitUntil(receiver: Receiver, state: RequestState): Response {
  const id = state.deliveryId;
  const context = runContextOf(receiver, state);
  const work = runWebhook(receiver.processor, state.payload, context, state.arrival)
    .then(() => completeClaim(receiver, id), (error) => {
      reportFailure(receiver, state.payload, 202, error);
      return releaseClaim(receiver, id);
    })
    .catch(() => {});
  state.ctx!.waitUntil(work);
  count(receiver, state.payload.event, "202");
  return respond(202, BODIES.queued);
}
