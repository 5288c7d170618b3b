/**
 * Stage "dispatch", sync mode: the handlers run before the answer; 200 when they all succeeded, 500 when
 * one failed (the server retries it; the dedupe claim is given back). Internal.
 *
 * @module
 */

import { type RunContext, runWebhook } from "../run.ts";
import { completeClaim, releaseClaim } from "./dedupe.ts";
import { BODIES, count, reportFailure, respond } from "./respond.ts";
import type { Receiver, RequestState } from "./state.ts";

function failed(receiver: Receiver, state: RequestState, error: unknown): Response {
  releaseClaim(receiver, state.deliveryId);
  reportFailure(receiver, state.payload, 500, error);
  count(receiver, state.payload.event, "500");
  return respond(500, BODIES.failed);
}

/** The bookkeeping of one run: shared without a store, per request (its webhook log id) with one. */
export function runContextOf(receiver: Receiver, state: RequestState): RunContext {
  if (receiver.store === undefined) return receiver.storelessContext;
  return {
    store: receiver.store,
    metrics: receiver.metrics,
    logId: state.deliveryId,
    final: true,
    now: receiver.now,
  };
}

/** Stage "dispatch", sync mode: run the handlers now; `state.response` is their outcome. */
export async function dispatchSync(receiver: Receiver, state: RequestState): Promise<void> {
  try {
    await runWebhook(receiver.processor, state.payload, runContextOf(receiver, state), state.arrival);
  } catch (error) {
    state.response = failed(receiver, state, error);
    return;
  }
  count(receiver, state.payload.event, "200");
  if (receiver.dedupe !== undefined) await completeClaim(receiver, state.deliveryId);
  state.response = respond(200, BODIES.ok);
}
