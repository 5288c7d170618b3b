/**
 * Stage "dispatch", sync mode: the handlers run before the answer; 200 when they all succeeded, 500 when
 * one failed (the server retries it; the dedupe claim is given back). Answers without a promise when the
 * handlers finished synchronously (the usual no-op or quick handler). Internal.
 *
 * @module
 */

import { type RunContext, runWebhook } from "../run.ts";
import { completeClaim, releaseClaim } from "./dedupe.ts";
import { BODIES, count, reportFailure, respond } from "./respond.ts";
import type { Receiver, RequestState } from "./state.ts";

function processed(receiver: Receiver, state: RequestState): Response | Promise<Response> {
  count(receiver, state.payload.event, "200");
  if (receiver.dedupe === undefined) return respond(200, BODIES.ok);
  return completeClaim(receiver, state.deliveryId).then(() => respond(200, BODIES.ok));
}

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

/** Stage "dispatch", sync mode: run the handlers now and answer with their outcome. */
export function dispatchSync(receiver: Receiver, state: RequestState): Response | Promise<Response> {
  let pending: Promise<void> | undefined;
  try {
    pending = runWebhook(receiver.processor, state.payload, runContextOf(receiver, state), state.arrival);
  } catch (error) {
    return failed(receiver, state, error);
  }
  if (pending === undefined) return processed(receiver, state);
  return pending.then(() => processed(receiver, state), (error) => failed(receiver, state, error));
}
