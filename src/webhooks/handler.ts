/**
 * The inbound webhook endpoint as one web-standard fetch handler, `(request, envOrInfo?, ctx?) =>
 * Promise<Response>`, which fits `Deno.serve`, `deno serve`, Deno Deploy and Cloudflare Workers unchanged.
 *
 * {@link createWebhookHandler} checks the options once and builds the receiver; each request then goes
 * through the stages of `pipeline/` (route → middleware → guard → read body → verify → parse → dedupe →
 * dispatch → respond; see `pipeline/pipeline.ts`). Every failure is answered; nothing escapes.
 *
 * @module
 */

import { DEFAULTS } from "../config.ts";
import { checkOptionKeys } from "../option_keys.ts";
import { ConfigurationException } from "../errors.ts";
import { MetricsCollector } from "../metrics.ts";
import { MAX_TIMER_MS } from "../util/timers.ts";
import { positiveInteger } from "../util/checks.ts";
import type { GatewayStore } from "../store/store.ts";
import { DEDUPE_OPTION_KEYS, type WebhookDedupe, type WebhookDedupeOptions } from "./dedupe.ts";
import { MemoryWebhookDedupe } from "../backends/memory/dedupe.ts";
import { KvWebhookDedupe } from "../backends/kv/dedupe.ts";
import {
  HANDLER_QUEUE_OPTION_KEYS,
  QueueDispatch,
  type WebhookHandlerQueueOptions,
} from "./pipeline/dispatch_queue.ts";
import { missingSecret } from "./pipeline/guard.ts";
import { receiverStages, runPipeline } from "./pipeline/pipeline.ts";
import { ReadDeadlines } from "./pipeline/read_body.ts";
import { RateLimitedReports } from "./pipeline/reports.ts";
import { normalizePrefix } from "./pipeline/route.ts";
import type {
  Receiver,
  SecretProblem,
  WebhookExecutionContext,
  WebhookMiddleware,
} from "./pipeline/state.ts";
import { WebhookProcessor } from "./processor.ts";
import { SIGNATURE_OPTION_KEYS, type WebhookSignatureOptions } from "./verify/types.ts";
import { WebhookVerifier } from "./verify/verifier.ts";

export type { WebhookHandlerQueueOptions } from "./pipeline/dispatch_queue.ts";
export type { WebhookExecutionContext, WebhookMiddleware, WebhookRequestContext } from "./pipeline/state.ts";

/** Default time limit for a webhook body to arrive, in ms. */
export const DEFAULT_BODY_TIMEOUT_MS = 10_000;
const WHERE = "Invalid webhook configuration";

/** Options of {@link createWebhookHandler}. The configuration file's `webhook` section maps onto them. */
export interface WebhookHandlerOptions {
  /** False answers 404 to every request (default true). */
  enabled?: boolean;
  /** Route prefix (default `gateway/webhook`): `POST /<routePrefix>/<instance>`. */
  routePrefix?: string;
  /** Middleware run in order before verification. */
  routeMiddleware?: readonly WebhookMiddleware[];
  /** Signature scheme, secret and settings (default scheme `auto`). */
  signature?: WebhookSignatureOptions;
  /** Largest accepted body in bytes (default 1 MiB); larger bodies get 413. */
  maxBodyBytes?: number;
  /** Time for the body to arrive once the headers did, in ms (default 10 000); a stalled body gets 408. */
  bodyTimeoutMs?: number;
  /** The processor whose handlers run (default a new one). */
  processor?: WebhookProcessor;
  /** Answer 202 and process later (`true` or settings). */
  queue?: boolean | WebhookHandlerQueueOptions;
  /** Webhook logs and inbound messages are written here. */
  store?: GatewayStore;
  /** Redelivery detection: `true` (in memory), settings (with `kv` for Deno KV), or your own. */
  dedupe?: boolean | WebhookDedupe | (WebhookDedupeOptions & { kv?: Deno.Kv });
  /** Metrics collector (default a new one; `false` for none). */
  metrics?: MetricsCollector | false;
  /** Clock, epoch ms (default `Date.now`). */
  now?: () => number;
}

// Every option and nested option key, so that a misplaced one (`{ secret }`) is refused with a suggestion.
const HANDLER_OPTION_KEYS = {
  enabled: true,
  routePrefix: true,
  routeMiddleware: true,
  signature: SIGNATURE_OPTION_KEYS,
  maxBodyBytes: true,
  bodyTimeoutMs: true,
  processor: true,
  queue: HANDLER_QUEUE_OPTION_KEYS,
  store: true,
  dedupe: { ...DEDUPE_OPTION_KEYS, kv: true },
  metrics: true,
  now: true,
} as const satisfies Record<keyof WebhookHandlerOptions, unknown>;

/** A fetch handler for webhooks, with what it is built on. */
export interface WebhookHandler {
  /** Answer one request. The second argument is Deno's connection info or Workers' env (unused here). */
  (request: Request, envOrInfo?: unknown, ctx?: WebhookExecutionContext): Promise<Response>;
  /** The processor whose handlers run. */
  readonly processor: WebhookProcessor;
  /** The metrics collector, if any. */
  readonly metrics: MetricsCollector | undefined;
  /** Close what the handler opened itself (a KV and its worker) and stop its body timer. */
  close(): Promise<void>;
}

function resolveDedupe(option: WebhookHandlerOptions["dedupe"]): WebhookDedupe | undefined {
  if (option === undefined || option === false) return undefined;
  if (option === true) return new MemoryWebhookDedupe();
  if (typeof (option as WebhookDedupe).claim === "function") return option as WebhookDedupe;
  const { kv, ...settings } = option as WebhookDedupeOptions & { kv?: Deno.Kv };
  return kv !== undefined ? new KvWebhookDedupe(kv, settings) : new MemoryWebhookDedupe(settings);
}

function checkPrefix(value: unknown): string {
  const prefix = value ?? DEFAULTS.route_prefix;
  if (typeof prefix !== "string" || /[?#\s]/.test(prefix)) {
    throw new ConfigurationException(
      'Invalid webhook configuration: "routePrefix" must be a path without spaces, ? or #',
      { setting: "routePrefix" },
    );
  }
  return normalizePrefix(prefix);
}

function checkMiddleware(value: unknown): readonly WebhookMiddleware[] {
  const middleware = value ?? [];
  if (!Array.isArray(middleware) || middleware.some((fn) => typeof fn !== "function")) {
    throw new ConfigurationException(
      'Invalid webhook configuration: "routeMiddleware" must be an array of functions',
      { setting: "routeMiddleware" },
    );
  }
  return middleware;
}

/**
 * The verifier, and why it cannot verify when it has no usable secret. An empty secret is a missing one
 * (`Deno.env.get(...) ?? ""` is a common way to write "unset"); a secret with surrounding whitespace or an
 * empty array throws.
 */
function buildVerifier(
  signature: WebhookSignatureOptions,
  enabled: boolean,
  problem: SecretProblem | undefined,
): { verifier: WebhookVerifier; secretProblem: SecretProblem | undefined } {
  const empty = signature.secret === "";
  const verifier = new WebhookVerifier(empty ? { ...signature, secret: undefined } : signature);
  if (!enabled || verifier.scheme === "none" || verifier.hasSecret) {
    return { verifier, secretProblem: undefined };
  }
  return { verifier, secretProblem: problem ?? missingSecret(verifier.scheme, empty ? "empty" : "unset") };
}

/** The limits of a request's body: its size, and how long it may take to arrive. */
function bodyLimits(options: WebhookHandlerOptions): { maxBodyBytes: number; bodyTimeoutMs: number } {
  return {
    maxBodyBytes: positiveInteger(WHERE, "maxBodyBytes", options.maxBodyBytes, DEFAULTS.max_body_bytes),
    bodyTimeoutMs: positiveInteger(
      WHERE,
      "bodyTimeoutMs",
      options.bodyTimeoutMs,
      DEFAULT_BODY_TIMEOUT_MS,
      MAX_TIMER_MS,
    ),
  };
}

/**
 * The handler behind {@link createWebhookHandler}; `secretProblem` is what the environment told about the
 * secret (a variable that may not be read), for the handler built from it.
 */
export function buildWebhookHandler(
  options: WebhookHandlerOptions,
  secretProblem?: SecretProblem,
): WebhookHandler {
  // A dedupe given as an object with `claim` is an implementation, not settings: its keys are its own.
  const ownDedupe = typeof (options.dedupe as WebhookDedupe | undefined)?.claim === "function";
  checkOptionKeys(
    options,
    ownDedupe ? { ...HANDLER_OPTION_KEYS, dedupe: true } : HANDLER_OPTION_KEYS,
    "createWebhookHandler",
  );
  const enabled = options.enabled !== false;
  const prefix = checkPrefix(options.routePrefix);
  const middleware = checkMiddleware(options.routeMiddleware);
  const { maxBodyBytes, bodyTimeoutMs } = bodyLimits(options);
  const verified = buildVerifier(options.signature ?? {}, enabled, secretProblem);
  const metrics = options.metrics === false ? undefined : options.metrics ?? new MetricsCollector();
  const store = options.store;
  const processor = options.processor ?? new WebhookProcessor();
  if (store !== undefined && processor.store === undefined) processor.useStore(store);
  const dedupe = resolveDedupe(options.dedupe);
  const now = options.now ?? Date.now;
  const queueOptions = options.queue === true ? { enabled: true } : options.queue || undefined;
  const queue = queueOptions !== undefined && queueOptions.enabled !== false
    ? new QueueDispatch(queueOptions, dedupe, { processor, store, metrics, now })
    : undefined;
  const receiver: Receiver = {
    enabled,
    prefix,
    routes: new Map(),
    stages: receiverStages(middleware, dedupe !== undefined),
    maxBodyBytes,
    // Timers run on real time, so the deadlines do too (an injected clock may stand still).
    deadlines: new ReadDeadlines(bodyTimeoutMs),
    verifier: verified.verifier,
    secretProblem: verified.secretProblem,
    wantsDigest: dedupe !== undefined || store !== undefined,
    processor,
    store,
    metrics,
    dedupe,
    now,
    reports: new RateLimitedReports(now),
    queue,
    storelessContext: { metrics, final: true, now },
  };
  const handler = (request: Request, _envOrInfo?: unknown, ctx?: WebhookExecutionContext) =>
    runPipeline(receiver, request, ctx);
  return Object.assign(handler, {
    processor,
    metrics,
    close: async () => {
      receiver.deadlines.stop();
      await queue?.close();
    },
  });
}

/**
 * Create a webhook endpoint. The options are checked here: an out-of-range number, a secret with
 * surrounding whitespace, a NaN tolerance or an unknown scheme throw a `ConfigurationException` now rather
 * than at the first request. Without a usable secret (none, or empty) and a scheme other than `none`, the
 * handler answers every webhook 503 with a body naming `GATEWAY_WEBHOOK_SECRET` (the server retries 5xx,
 * while it drops an event answered 401), and says so once on stderr.
 *
 * @example Deno.serve
 * ```ts
 * import { createWebhookHandler, WebhookProcessor } from "@gw/gateway/webhooks";
 * const processor = new WebhookProcessor().on("messages.upsert", (payload) => {
 *   if (payload.isInboundMessage) console.log(payload.senderJid, payload.text);
 * });
 * const handler = createWebhookHandler({ signature: { secret: Deno.env.get("GATEWAY_WEBHOOK_SECRET") }, processor });
 * Deno.serve({ port: 8000 }, handler);
 * ```
 *
 * @example Cloudflare Workers, processing after the response
 * ```ts
 * import { createWebhookHandler } from "@gw/gateway/webhooks";
 * export default {
 *   fetch: createWebhookHandler({ signature: { secret: "s3cret" }, queue: { mode: "wait_until" } }),
 * };
 * ```
 */
export function createWebhookHandler(options: WebhookHandlerOptions = {}): WebhookHandler {
  return buildWebhookHandler(options);
}
