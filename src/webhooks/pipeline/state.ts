/**
 * Every type the pipeline's stages share, in one place: the {@link Receiver} (what one
 * `createWebhookHandler` call configured, built once), the {@link RequestState} (everything known about one
 * request, filled in stage by stage), the {@link ReceiverStage} shape every stage has, and the shapes of the parts
 * the receiver holds (route, secret problem, body deadlines, queue dispatch, reports). The stage files import
 * from here and this file imports no stage, so there is no cycle. Internal.
 *
 * @module
 */

import type { Arrival, WriteOrder, WriteTurn } from "../../inbound/arrivals.ts";
import type { MetricsCollector } from "../../metrics.ts";
import type { GatewayStore } from "../../store/store.ts";
import type { WebhookDedupe } from "../dedupe.ts";
import type { WebhookPayloadDto } from "../payload.ts";
import type { WebhookProcessor } from "../processor.ts";
import type { WebhookJobQueue } from "../queue/interface.ts";
import type { RunContext } from "../run.ts";
import type { MiddlewareFn, NextFunction } from "../../util/compose.ts";
import type { WebhookVerifier } from "../verify/verifier.ts";

/** The part of a Workers `ExecutionContext` the handler uses. */
export interface WebhookExecutionContext {
  /** Keep the isolate alive until `promise` settles, after the response was sent. */
  waitUntil(promise: Promise<unknown>): void;
}

/** What route middleware reads and writes: the request, and on the way back the answer. */
export interface WebhookRequestContext {
  /** The request; a middleware may replace it before calling `next()`. */
  request: Request;
  /** The answer: set by a middleware that answers itself (without `next()`), else by the receiver. */
  response: Response | undefined;
}

/**
 * Route middleware, run in order before verification (the library's one `(ctx, next)` shape): call `next()`
 * to go on (after it, `ctx.response` is the receiver's answer, which it may replace), or answer by setting
 * `ctx.response` without calling it.
 *
 * @example
 * ```ts
 * import type { WebhookMiddleware } from "@gw/gateway/webhooks";
 * const blockList: WebhookMiddleware = async (ctx, next) => {
 *   if (ctx.request.headers.get("x-forwarded-for") === "10.0.0.66") {
 *     ctx.response = new Response("forbidden", { status: 403 });
 *     return;
 *   }
 *   await next();
 * };
 * ```
 */
export type WebhookMiddleware = MiddlewareFn<WebhookRequestContext>;

/** A matched route. */
export interface WebhookRoute {
  /** Instance from the URL, when there is one. */
  instance: string | undefined;
  /** Event name from the byEvents suffix, when there is one. */
  event: string | undefined;
  /** Whether the path is also the health check (`/<prefix>/health`). */
  health: boolean;
}

/** Why a receiver has no usable secret (or no usable configuration at all). */
export interface SecretProblem {
  /** `unset`, `empty`, `permission` (the variable may not be read), or `invalid` (a setting is wrong). */
  readonly cause: "unset" | "empty" | "permission" | "invalid";
  /** The setting to fix. */
  readonly setting: string;
  /** One line for the operator; never contains a secret. */
  readonly message: string;
}

/** What reading a body gave: the bytes, or the status to answer (400, 408, 413). */
export type BodyReadResult = Uint8Array | 400 | 408 | 413;

/** The time and size limits of body reads (`read_body.ts`). */
export interface BodyDeadlines {
  /** Time for a body to arrive once the headers did, in ms. */
  readonly timeoutMs: number;
  /** Read `request`'s body within the limits. */
  read(request: Request, max: number): Promise<BodyReadResult>;
  /** Stop the timer (the handler is closed). */
  stop(): void;
}

/** How a webhook accepted by this handler is processed. */
export type DispatchMode = "sync" | "queue" | "wait_until";

/** Queue mode of a handler (`dispatch_queue.ts`). */
export interface QueueMode {
  /** The claim commits with the job (a KV dedupe on the queue's own KV). */
  readonly claimsAtomically: boolean;
  /** How a webhook is processed; Workers pass `ctx` per request, so it is chosen per request. */
  modeFor(ctx: WebhookExecutionContext | undefined): DispatchMode;
  /** The queue jobs go to. */
  queue(): Promise<WebhookJobQueue>;
  /** Jobs are written in the order their webhooks arrived (a turn taken when the body is in). */
  readonly order: WriteOrder;
  /** Close what the handler opened itself. */
  close(): Promise<void>;
}

/** The operator's stderr lines, at most one per cause per interval (`reports.ts`). */
export interface Reports {
  report(cause: string, line: () => string): void;
}

/** What a handler was configured with, resolved once when it is created. */
export interface Receiver {
  readonly enabled: boolean;
  readonly prefix: string;
  /** Matched routes per URL string (the server posts to the same few URLs over and over). */
  readonly routes: Map<string, WebhookRoute | null>;
  /** The stages, in order, with the application's route middleware after the route (`pipeline.ts`). */
  readonly stages: readonly ReceiverStage[];
  readonly maxBodyBytes: number;
  readonly deadlines: BodyDeadlines;
  readonly verifier: WebhookVerifier;
  /** Why the receiver cannot verify anything (no usable secret), if so. */
  readonly secretProblem: SecretProblem | undefined;
  /** Whether a body digest is needed (dedupe or webhook logs without a signed id). */
  readonly wantsDigest: boolean;
  readonly processor: WebhookProcessor;
  readonly store: GatewayStore | undefined;
  readonly metrics: MetricsCollector | undefined;
  readonly dedupe: WebhookDedupe | undefined;
  readonly now: () => number;
  /** The operator's stderr lines (401s), at most one per cause per minute on `now`. */
  readonly reports: Reports;
  /** Queue mode settings, when queue mode is on. */
  readonly queue: QueueMode | undefined;
  /** Without a store the run context does not depend on the request: shared. */
  readonly storelessContext: RunContext;
}

const NO_ROUTE: WebhookRoute = Object.freeze({ instance: undefined, event: undefined, health: false });
const EMPTY = new Uint8Array(0);

/**
 * A stage of the receiver: the library's one `(ctx, next)` shape, on the request's state. It answers by
 * setting `state.response` without calling `next()`, or goes on with `next()`.
 */
export type ReceiverStage = MiddlewareFn<RequestState>;

/** Everything known about one request, filled in as it goes through the stages. */
export class RequestState implements WebhookRequestContext {
  /** The request (a middleware may replace it). */
  request: Request;
  /** The answer, when route middleware answered or wants to see it. */
  response: Response | undefined = undefined;
  readonly ctx: WebhookExecutionContext | undefined;
  /** The matched route (stage "route"). */
  route: WebhookRoute = NO_ROUTE;
  /** The raw body (stage "read body"). */
  body: Uint8Array = EMPTY;
  /** When verification started (epoch ms): the signature's clock and the payload's `receivedAt`. */
  receivedAt = 0;
  /** SHA-256 of the body, computed alongside verification when needed. */
  digest: Promise<string> | undefined = undefined;
  /** The signed delivery id (`webhook-id`) or the body digest. */
  deliveryId: string | undefined = undefined;
  /** Its place in arrival order, taken when its body was in (not in queue mode: the worker takes it). */
  arrival: Arrival<WebhookPayloadDto> | undefined = undefined;
  /** In queue mode: its turn to write its job, taken when its body was in (jobs are written in that order). */
  writeTurn: WriteTurn | undefined = undefined;
  /** The verified, parsed envelope (stage "parse"). */
  payload: WebhookPayloadDto = undefined as unknown as WebhookPayloadDto;

  /** The handler this request came to. */
  readonly receiver: Receiver;
  #stage = -1;

  constructor(receiver: Receiver, request: Request, ctx: WebhookExecutionContext | undefined) {
    this.receiver = receiver;
    this.request = request;
    this.ctx = ctx;
  }

  /** Run the next stage (each stage calls it at most once); settled when the stages after it are. */
  readonly next: NextFunction = () => {
    try {
      return Promise.resolve(this.receiver.stages[++this.#stage](this, this.next)) as Promise<void>;
    } catch (error) {
      return Promise.reject(error);
    }
  };
}
