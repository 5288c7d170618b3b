/**
 * The receiver's pipeline, in order; each stage is a file of this folder and answers or lets the request
 * go on:
 *
 * 1. `route.ts`: enabled, the webhook route, the method (404, 405, health check 200);
 * 2. the application's middleware (`routeMiddleware`, `(ctx, next)` with the request and the answer), in
 *    order;
 * 3. `guard.ts`: a usable secret (503), the content type (415);
 * 4. `read_body.ts`: the raw bytes within the size and time limits (413, 400, 408);
 * 5. `verify.ts`: the signature (401);
 * 6. `parse.ts`: JSON and the envelope (400); the update takes its place in its line (the processor's
 *    arrival step, numbered when the body was in);
 * 7. `dedupe.ts`: a delivery already processed (200 duplicate) or in progress (409);
 * 8. dispatch: `dispatch_sync.ts` (200 / 500), `dispatch_queue.ts` (202 / 503) or `dispatch_wait_until.ts`
 *    (202);
 * 9. `respond.ts`: every answer is built and counted there.
 *
 * The application's middleware has the library's one shape, `(ctx, next)` (`src/util/compose.ts`); the
 * receiver's own stages, on the benchmarked hot path, have one signature of their own, `(receiver, state) => Response | undefined` (or a promise of it): it answers,
 * or lets the request go on. The per-request state is one {@link RequestState}; what the handler was
 * configured with is the {@link Receiver}; both, and every other type the stages share, are in `state.ts`.
 * The pipeline never rejects: any unexpected error becomes a 500.
 *
 * @module
 */

import { isWorkers } from "../../runtime.ts";
import { dedupeStage } from "./dedupe.ts";
import { dispatchQueue, logReceived } from "./dispatch_queue.ts";
import { dispatchSync } from "./dispatch_sync.ts";
import { dispatchWaitUntil } from "./dispatch_wait_until.ts";
import { guardStage } from "./guard.ts";
import { parseStage } from "./parse.ts";
import { bodyRefused } from "./read_body.ts";
import { fail } from "./respond.ts";
import { routeStage } from "./route.ts";
import { ARRIVE } from "../processor.ts";
import { type Receiver, RequestState, type WebhookExecutionContext } from "./state.ts";
import { verifyStage } from "./verify.ts";

/** Answer one request. Never rejects. */
export function runPipeline(
  receiver: Receiver,
  request: Request,
  ctx: WebhookExecutionContext | undefined,
): Promise<Response> {
  try {
    const state = new RequestState(request, ctx);
    const refused = routeStage(receiver, state);
    if (refused !== undefined) return Promise.resolve(refused);
    const middleware = receiver.middleware;
    if (middleware === undefined) return accept(receiver, state);
    return middleware(state, async () => {
      state.response = await accept(receiver, state);
    }).then(() => state.response ?? fail(receiver, new Error(UNANSWERED))).catch((error) =>
      fail(receiver, error)
    );
  } catch (error) {
    return Promise.resolve(fail(receiver, error));
  }
}

const UNANSWERED = "Route middleware ended without an answer: set ctx.response or call next()";

// From the routed request to a verified payload. It stays small on purpose: V8 saves an async function's
// live registers at every await.
async function accept(receiver: Receiver, state: RequestState): Promise<Response> {
  try {
    const refused = guardStage(receiver, state);
    if (refused !== undefined) return refused;
    const body = await receiver.deadlines.read(state.request, receiver.maxBodyBytes);
    if (typeof body === "number") return bodyRefused(receiver, body);
    state.body = body;
  } catch (error) {
    return fail(receiver, error);
  }
  // The webhook arrives when its body is in: its place in arrival order is taken here, before any await,
  // and kept by the processing that takes it over (or given up below when none does).
  // In queue mode the worker's processing is the arrival: the job is written in this order instead.
  const queued = receiver.queue !== undefined && receiver.queue.modeFor(state.ctx) === "queue";
  const arrival = state.arrival = queued ? undefined : receiver.processor[ARRIVE]();
  // Not on Workers: a request there cannot wait on a promise another request settles (it would hang).
  const turn = state.writeTurn = queued && !isWorkers() ? receiver.queue!.order.take() : undefined;
  try {
    return await verified(receiver, state);
  } catch (error) {
    return fail(receiver, error);
  } finally {
    if (arrival !== undefined && !arrival.taken) arrival.end();
    turn?.end();
  }
}

async function verified(receiver: Receiver, state: RequestState): Promise<Response> {
  let answer = await verifyStage(receiver, state);
  if (answer !== undefined) return answer;
  answer = await parseStage(receiver, state);
  if (answer !== undefined) return answer;
  state.arrival?.place(state.payload);
  return receiver.direct ? dispatchSync(receiver, state) : deliver(receiver, state);
}

// Everything after parsing when there is something to claim, log or queue.
async function deliver(receiver: Receiver, state: RequestState): Promise<Response> {
  const refused = await dedupeStage(receiver, state);
  if (refused !== undefined) return refused;
  const mode = receiver.queue === undefined ? "sync" : receiver.queue.modeFor(state.ctx);
  if (mode === "queue") return await dispatchQueue(receiver, state);
  await logReceived(receiver, state);
  return mode === "wait_until" ? dispatchWaitUntil(receiver, state) : await dispatchSync(receiver, state);
}
