/**
 * The receiver's pipeline, in order; each stage is a file of this folder and answers or lets the request
 * go on:
 *
 * 1. `route.ts`: enabled, the webhook route, the method (404, 405, health check 200);
 * 2. the application's middleware (`routeMiddleware`), in order;
 * 3. `guard.ts`: a usable secret (503), the content type (415);
 * 4. `read_body.ts`: the raw bytes within the size and time limits (413, 400, 408);
 * 5. `verify.ts`: the signature (401);
 * 6. `parse.ts`: JSON and the envelope (400);
 * 7. `dedupe.ts`: a delivery already processed (200 duplicate) or in progress (409);
 * 8. dispatch: `dispatch_sync.ts` (200 / 500), `dispatch_queue.ts` (202 / 503) or `dispatch_wait_until.ts`
 *    (202);
 * 9. `respond.ts`: every answer is built and counted there.
 *
 * The per-request state is one {@link RequestState}; what the handler was configured with is the
 * {@link Receiver}. The pipeline never rejects: any unexpected error becomes a 500.
 *
 * @module
 */

import type { RunContext } from "../run.ts";
import { dedupeStage } from "./dedupe.ts";
import { dispatchQueue, logReceived } from "./dispatch_queue.ts";
import { dispatchSync } from "./dispatch_sync.ts";
import { dispatchWaitUntil } from "./dispatch_wait_until.ts";
import { guardRequest } from "./guard.ts";
import { parseStage } from "./parse.ts";
import { bodyRefused } from "./read_body.ts";
import { fail } from "./respond.ts";
import { routeRequest, type WebhookRoute } from "./route.ts";
import { type Receiver, RequestState, type WebhookExecutionContext } from "./state.ts";
import { verificationRefused, verifyBody } from "./verify.ts";

/** Answer one request. Never rejects. */
export function runPipeline(
  receiver: Receiver,
  request: Request,
  ctx: WebhookExecutionContext | undefined,
): Promise<Response> {
  try {
    const route = routeRequest(receiver, request);
    if (route instanceof Response) return Promise.resolve(route);
    const middleware = receiver.middleware;
    if (middleware.length === 0) return accept(receiver, request, route, ctx);
    const step = (index: number, current: Request): Promise<Response> =>
      index < middleware.length
        ? Promise.resolve(middleware[index](current, (next) => step(index + 1, next ?? current)))
        : accept(receiver, current, route, ctx);
    return step(0, request).catch((error) => fail(receiver, error));
  } catch (error) {
    return Promise.resolve(fail(receiver, error));
  }
}

// From the routed request to a verified payload. It stays small on purpose: V8 saves an async function's
// live registers at every await, and measured under Deno.serve a bigger function cost about 2 µs per
// request more.
async function accept(
  receiver: Receiver,
  request: Request,
  route: WebhookRoute,
  ctx: WebhookExecutionContext | undefined,
): Promise<Response> {
  try {
    const guarded = guardRequest(receiver, request);
    if (guarded !== undefined) return guarded;
    const body = await receiver.deadlines.read(request, receiver.maxBodyBytes);
    if (typeof body === "number") return bodyRefused(receiver, body);
    const state = new RequestState(request, route, ctx, body);
    try {
      state.deliveryId = (await verifyBody(receiver, state)).id;
    } catch (error) {
      return verificationRefused(receiver, state, error);
    }
    let parsed = parseStage(receiver, state);
    if (parsed instanceof Promise) parsed = await parsed;
    if (parsed !== undefined) return parsed;
    return receiver.direct
      ? dispatchSync(receiver, state, receiver.storelessContext)
      : deliver(receiver, state).catch((error) => fail(receiver, error));
  } catch (error) {
    return fail(receiver, error);
  }
}

// Everything after parsing when there is something to claim, log or queue.
async function deliver(receiver: Receiver, state: RequestState): Promise<Response> {
  const refused = await dedupeStage(receiver, state);
  if (refused !== undefined) return refused;
  const mode = receiver.queue === undefined ? "sync" : receiver.queue.modeFor(state.ctx);
  if (mode === "queue") return await dispatchQueue(receiver, state);
  await logReceived(receiver, state);
  const context: RunContext = receiver.store === undefined ? receiver.storelessContext : {
    store: receiver.store,
    metrics: receiver.metrics,
    logId: state.deliveryId,
    final: true,
    now: receiver.now,
  };
  return mode === "wait_until"
    ? dispatchWaitUntil(receiver, state, context)
    : await dispatchSync(receiver, state, context);
}
