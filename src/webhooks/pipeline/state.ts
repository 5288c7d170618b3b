/**
 * The two objects the pipeline passes along: the {@link Receiver} (what one `createWebhookHandler` call
 * configured, built once) and the {@link RequestState} (everything known about one request, filled in
 * stage by stage). Internal.
 *
 * @module
 */

import type { MetricsCollector } from "../../metrics.ts";
import type { GatewayStore } from "../../store/store.ts";
import type { WebhookDedupe } from "../dedupe.ts";
import type { WebhookPayloadDto } from "../payload.ts";
import type { WebhookProcessor } from "../processor.ts";
import type { RunContext } from "../run.ts";
import type { WebhookVerifier } from "../signature.ts";
import type { QueueDispatch } from "./dispatch_queue.ts";
import type { ReadDeadlines } from "./read_body.ts";
import type { RateLimitedReports } from "./reports.ts";
import type { SecretProblem } from "./guard.ts";
import type { WebhookRoute } from "./route.ts";

/** The part of a Workers `ExecutionContext` the handler uses. */
export interface WebhookExecutionContext {
  /** Keep the isolate alive until `promise` settles, after the response was sent. */
  waitUntil(promise: Promise<unknown>): void;
}

/**
 * A middleware run before verification, in order: call `next` (optionally with a new request) to go on,
 * or answer directly.
 */
export type WebhookMiddleware = (
  request: Request,
  next: (request?: Request) => Promise<Response>,
) => Promise<Response>;

/** What a handler was configured with, resolved once when it is created. */
export interface Receiver {
  readonly enabled: boolean;
  readonly prefix: string;
  /** Matched routes per URL string (the server posts to the same few URLs over and over). */
  readonly routes: Map<string, WebhookRoute | null>;
  readonly middleware: readonly WebhookMiddleware[];
  readonly maxBodyBytes: number;
  readonly deadlines: ReadDeadlines;
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
  readonly reports: RateLimitedReports;
  /** Queue mode settings, when queue mode is on. */
  readonly queue: QueueDispatch | undefined;
  /** Nothing to claim, log or queue: the handlers run right after parsing. */
  readonly direct: boolean;
  /** Without a store the run context does not depend on the request: shared. */
  readonly storelessContext: RunContext;
}

/** Everything known about one request, filled in as it goes through the stages. */
export class RequestState {
  readonly request: Request;
  readonly route: WebhookRoute;
  readonly ctx: WebhookExecutionContext | undefined;
  /** When verification started (epoch ms): the signature's clock and the payload's `receivedAt`. */
  receivedAt = 0;
  /** The raw body. */
  readonly body: Uint8Array;
  /** SHA-256 of the body, computed alongside verification when needed. */
  digest: Promise<string> | undefined = undefined;
  /** The signed delivery id (`webhook-id`) or the body digest. */
  deliveryId: string | undefined = undefined;
  /** The verified, parsed envelope. */
  payload: WebhookPayloadDto = undefined as unknown as WebhookPayloadDto;

  constructor(
    request: Request,
    route: WebhookRoute,
    ctx: WebhookExecutionContext | undefined,
    body: Uint8Array,
  ) {
    this.request = request;
    this.route = route;
    this.ctx = ctx;
    this.body = body;
  }
}
