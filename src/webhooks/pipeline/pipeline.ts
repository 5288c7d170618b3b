/**
 * The receiver's pipeline: its stages in order, each a file of this folder, each the library's one
 * `(ctx, next)` shape on the request's {@link RequestState} (`src/util/compose.ts`): a stage answers by
 * setting `state.response`, or goes on with `next()`.
 *
 * 1. `route.ts`: enabled, the webhook route, the method (404, 405, health check 200);
 * 2. the application's middleware (`routeMiddleware`), in order;
 * 3. `guard.ts`: a usable secret (503), the content type (415);
 * 4. `read_body.ts`: the raw bytes within the size and time limits (413, 400, 408);
 * 5. arrival (here): the update takes its place in its line when its body is in;
 * 6. `verify.ts`: the signature (401);
 * 7. `parse.ts`: JSON and the envelope (400);
 * 8. `dedupe.ts`: a delivery already processed (200 duplicate) or in progress (409);
 * 9. dispatch (here): `dispatch_sync.ts` (200 / 500), `dispatch_queue.ts` (202 / 503) or
 *    `dispatch_wait_until.ts` (202);
 * 10. `respond.ts`: every answer is built and counted there.
 *
 * What the handler was configured with is the {@link Receiver}; it and every type the stages share are in
 * `state.ts`. The pipeline never rejects: any unexpected error becomes a 500.
 *
 * @module
 */

import { isWorkers } from "../../runtime.ts";
import { compose, type MiddlewareFn } from "../../util/compose.ts";
import { ARRIVE } from "../processor.ts";
import { dedupeStage } from "./dedupe.ts";
import { dispatchQueue, logReceived } from "./dispatch_queue.ts";
import { dispatchSync } from "./dispatch_sync.ts";
import { dispatchWaitUntil } from "./dispatch_wait_until.ts";
import { guardStage } from "./guard.ts";
import { parseStage } from "./parse.ts";
import { readBodyStage } from "./read_body.ts";
import { fail } from "./respond.ts";
import { routeStage } from "./route.ts";
import {
  type DispatchMode,
  type Receiver,
  type ReceiverStage,
  RequestState,
  type WebhookExecutionContext,
  type WebhookRequestContext,
} from "./state.ts";
import { verifyStage } from "./verify.ts";

/** Answer one request. Never rejects. */
export function runPipeline(
  receiver: Receiver,
  request: Request,
  ctx: WebhookExecutionContext | undefined,
): Promise<Response> {
  const state = new RequestState(receiver, request, ctx);
  return state.next().then(
    () => state.response ?? fail(receiver, new Error(UNANSWERED)),
    (error) => fail(receiver, error),
  );
}

const UNANSWERED = "Route middleware ended without an answer: set ctx.response or call next()";

/**
 * Stage "arrival": the webhook arrives when its body is in. Its place in arrival order is taken here,
 * before any await, and kept by the processing that takes it over (or given up when none does). In queue
 * mode the worker's processing is the arrival: the job is written in this order instead.
 */
const arrivalStage: ReceiverStage = (state, next) => {
  const receiver = state.receiver;
  const queued = receiver.queue !== undefined && receiver.queue.modeFor(state.ctx) === "queue";
  const arrival = state.arrival = queued ? undefined : receiver.processor[ARRIVE]();
  // Not on Workers: a request there cannot wait on a promise another request settles (it would hang).
  const turn = state.writeTurn = queued && !isWorkers() ? receiver.queue!.order.take() : undefined;
  // A processor without lines gives an arrival already taken: nothing to give up afterwards.
  if ((arrival === undefined || arrival.taken) && turn === undefined) return next();
  return next().finally(() => {
    if (arrival !== undefined && !arrival.taken) arrival.end();
    turn?.end();
  });
};

/** Stage "dispatch": the handlers run now, after the answer (`waitUntil`), or in the queue's worker. */
const dispatchStage: ReceiverStage = (state) => {
  const receiver = state.receiver;
  const mode = receiver.queue === undefined ? "sync" : receiver.queue.modeFor(state.ctx);
  if (mode === "sync" && receiver.store === undefined) return dispatchSync(receiver, state);
  return dispatchRecorded(receiver, state, mode);
};

// With a webhook log to write first, or in queue mode (the job's writer logs it).
async function dispatchRecorded(receiver: Receiver, state: RequestState, mode: DispatchMode): Promise<void> {
  if (mode === "queue") {
    state.response = await dispatchQueue(receiver, state);
    return;
  }
  await logReceived(receiver, state);
  if (mode === "wait_until") state.response = dispatchWaitUntil(receiver, state);
  else await dispatchSync(receiver, state);
}

// After the application's middleware: a failure of the stages after it is the 500 it sees as the answer.
const answered: ReceiverStage = async (state, next) => {
  try {
    await next();
  } catch (error) {
    state.response = fail(state.receiver, error);
  }
};

/** The stages of a receiver, with the application's route middleware (if any) after the route. */
export function receiverStages(
  middleware: readonly MiddlewareFn<WebhookRequestContext>[],
  claims: boolean,
): ReceiverStage[] {
  const accept = [guardStage, readBodyStage, arrivalStage, verifyStage, parseStage];
  if (claims) accept.push(dedupeStage);
  accept.push(dispatchStage);
  if (middleware.length === 0) return [routeStage, ...accept];
  const application = compose(middleware);
  return [routeStage, (state, next) => application(state, next), answered, ...accept];
}
