/**
 * The inbound webhook endpoint as one web-standard fetch handler, `(request, envOrInfo?, ctx?) =>
 * Promise<Response>`, which fits `Deno.serve`, `deno serve`, Deno Deploy and Cloudflare Workers unchanged.
 *
 * Pipeline: route → `route_middleware` → content type (415) → body with a size limit (413) → signature
 * (401) → JSON envelope (400) → dedupe claim (200 duplicate) → sync processing (200 / 500), a queue job
 * (Deno KV, or `queue.backend`) or `ctx.waitUntil` (202; 503 when the queue cannot take it). Every failure is answered; nothing escapes.
 *
 * @module
 */

import type { QueueConfig, WebhookConfig, WebhookSignatureConfig } from "../config.ts";
import { DEFAULTS } from "../config.ts";
import { WebhookException } from "../errors.ts";
import { getGatewayLogger } from "../log.ts";
import { denoOnlyError } from "../runtime.ts";
import { MetricsCollector } from "../metrics.ts";
import type { GatewayStore } from "../store/store.ts";
import {
  KvWebhookDedupe,
  MemoryWebhookDedupe,
  type WebhookDedupe,
  type WebhookDedupeOptions,
} from "./dedupe.ts";
import { readBody } from "./body.ts";
import { toHex } from "./encoding.ts";
import { denoEnvLookup, webhookOptionsFromEnv } from "./env.ts";
import { eventLabel, WebhookPayloadDto } from "./payload.ts";
import { WebhookProcessor } from "./processor.ts";
import {
  enqueueWebhookJob,
  type ProcessWebhookJob,
  startWebhookWorker,
  type WebhookJobQueue,
  type WebhookQueueOptions,
  type WebhookWorker,
} from "./queue.ts";
import { matchRoute, normalizePrefix, type WebhookRoute } from "./route.ts";
import { describeError, type RunContext, runWebhook, saveWebhookLog } from "./run.ts";
import { WebhookVerificationException, WebhookVerifier } from "./signature.ts";

const logger = getGatewayLogger("webhook");

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

/** Queue settings of the handler. */
export interface WebhookHandlerQueueOptions extends QueueConfig, WebhookQueueOptions {
  /**
   * `auto` (default): a KV queue when `kv` is given or on Deno, else `ctx.waitUntil` when the runtime passes
   * one (Workers), else sync processing. `kv` or `wait_until` force one. A `backend` is used whatever the mode.
   */
  mode?: "auto" | "kv" | "wait_until";
  /** The KV to enqueue on, or a function opening it. Default on Deno: `Deno.openKv(path)` on first use. */
  kv?: Deno.Kv | (() => Promise<Deno.Kv>);
  /** Path for `Deno.openKv` when the handler opens the KV itself. */
  path?: string;
  /** Start a worker on a KV the handler opened itself (default true). */
  worker?: boolean;
  /** Hand jobs to this queue instead of Deno KV (`RedisWebhookQueue`, `CloudflareWebhookQueue`); its workers run them. */
  backend?: WebhookJobQueue;
}

/** Options of {@link createWebhookHandler}; they follow the configuration's `webhook` section. */
export interface WebhookHandlerOptions extends Omit<WebhookConfig, "signature"> {
  /** Signature scheme and settings (default `hmac`). */
  signature?: WebhookSignatureConfig & { jwt_leeway_seconds?: number };
  /** Middleware run in order before verification. */
  route_middleware?: readonly WebhookMiddleware[];
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

/** A fetch handler for webhooks, with what it is built on. */
export interface WebhookHandler {
  /** Answer one request. The second argument is Deno's connection info or Workers' env (unused here). */
  (request: Request, envOrInfo?: unknown, ctx?: WebhookExecutionContext): Promise<Response>;
  /** The processor whose handlers run. */
  readonly processor: WebhookProcessor;
  /** The metrics collector, if any. */
  readonly metrics: MetricsCollector | undefined;
  /** Close what the handler opened itself (a KV and its worker); a no-op otherwise. */
  close(): Promise<void>;
}

const JSON_TYPE = "application/json";

// A plain object with only the content type lets Deno take its fast path for the response headers. The
// init objects are shared: the Response constructor copies what it reads, so nothing is built per request.
const JSON_HEADERS: Readonly<Record<string, string>> = Object.freeze({ "content-type": JSON_TYPE });
const INITS = new Map<number, ResponseInit>();

function respond(status: number, body: string, extra?: [string, string][]): Response {
  if (extra === undefined) {
    let init = INITS.get(status);
    if (init === undefined) INITS.set(status, init = Object.freeze({ status, headers: JSON_HEADERS }));
    return new Response(body, init);
  }
  const headers: Record<string, string> = { "content-type": JSON_TYPE };
  for (const [name, value] of extra) headers[name] = value;
  return new Response(body, { status, headers });
}

const BODIES = {
  ok: '{"ok":true}',
  queued: '{"ok":true,"queued":true}',
  duplicate: '{"ok":true,"duplicate":true}',
  inProgress: '{"ok":false,"error":"Conflict: the same delivery is being processed"}',
  health: '{"ok":true,"status":"ok"}',
  notJson: '{"ok":false,"error":"Invalid webhook body: not JSON"}',
  noEvent: '{"ok":false,"error":"Invalid webhook body: expected an object with an \\"event\\" name"}',
  badLength: '{"ok":false,"error":"Invalid webhook body: unreadable or bad content-length"}',
  unauthorized: '{"ok":false,"error":"Unauthorized"}',
  notFound: '{"ok":false,"error":"Not Found"}',
  method: '{"ok":false,"error":"Method Not Allowed"}',
  tooLarge: '{"ok":false,"error":"Payload Too Large"}',
  mediaType: '{"ok":false,"error":"Unsupported Media Type: expected application/json"}',
  failed: '{"ok":false,"error":"Webhook processing failed"}',
  unavailable: '{"ok":false,"error":"Service Unavailable"}',
  misconfigured: '{"ok":false,"error":"Webhook endpoint misconfigured"}',
};

function isJsonType(value: string | null): boolean {
  if (value === null) return false;
  if (value === "application/json" || value.startsWith("application/json;")) return true;
  const type = value.split(";", 1)[0].trim().toLowerCase();
  return type === "application/json" || (type.startsWith("application/") && type.endsWith("+json"));
}

async function digest(body: Uint8Array): Promise<string> {
  return toHex(new Uint8Array(await crypto.subtle.digest("SHA-256", body as Uint8Array<ArrayBuffer>)));
}

function resolveDedupe(option: WebhookHandlerOptions["dedupe"]): WebhookDedupe | undefined {
  if (option === undefined || option === false) return undefined;
  if (option === true) return new MemoryWebhookDedupe();
  if (typeof (option as WebhookDedupe).claim === "function") return option as WebhookDedupe;
  const settings = option as WebhookDedupeOptions & { kv?: Deno.Kv };
  return settings.kv !== undefined
    ? new KvWebhookDedupe(settings.kv, settings)
    : new MemoryWebhookDedupe(settings);
}

function checkOptions(options: WebhookHandlerOptions): { prefix: string; maxBody: number } {
  const maxBody = options.max_body_bytes ?? DEFAULTS.max_body_bytes;
  if (typeof maxBody !== "number" || !Number.isInteger(maxBody) || maxBody < 1) {
    throw new WebhookException(
      `Invalid webhook configuration: "max_body_bytes" must be an integer >= 1, got ${String(maxBody)}`,
    );
  }
  const prefix = options.route_prefix ?? DEFAULTS.route_prefix;
  if (typeof prefix !== "string" || /[?#\s]/.test(prefix)) {
    throw new WebhookException(
      `Invalid webhook configuration: "route_prefix" must be a path without spaces, ? or #`,
    );
  }
  const middleware = options.route_middleware ?? [];
  if (!Array.isArray(middleware) || middleware.some((fn) => typeof fn !== "function")) {
    throw new WebhookException(
      `Invalid webhook configuration: "route_middleware" must be an array of functions`,
    );
  }
  return { prefix: normalizePrefix(prefix), maxBody };
}

/**
 * Create a webhook endpoint. The configuration is validated here: an empty secret, a secret with
 * surrounding whitespace, a NaN tolerance or an unknown scheme throw a `WebhookException` now rather than
 * at the first request. With no secret at all (and a scheme other than `none`) the handler fails closed:
 * every webhook gets 401 and an error is logged once.
 *
 * @example Deno.serve
 * ```ts
 * import { createWebhookHandler, WebhookProcessor } from "@gw/gateway";
 * const processor = new WebhookProcessor().on("messages.upsert", (payload) => {
 *   if (payload.isInboundMessage) console.log(payload.senderJid, payload.text);
 * });
 * const handler = createWebhookHandler({ secret: Deno.env.get("GATEWAY_WEBHOOK_SECRET"), processor });
 * Deno.serve({ port: 8000 }, handler);
 * ```
 *
 * @example Cloudflare Workers, processing after the response
 * ```ts
 * import { createWebhookHandler } from "@gw/gateway";
 * export default {
 *   fetch: createWebhookHandler({ secret: "s3cret", queue: { enabled: true, mode: "wait_until" } }),
 * };
 * ```
 */
export function createWebhookHandler(options: WebhookHandlerOptions = {}): WebhookHandler {
  const { prefix, maxBody } = checkOptions(options);
  const enabled = options.enabled !== false;
  const verifier = new WebhookVerifier({ ...options.signature, secret: options.secret });
  if (!verifier.hasSecret && verifier.scheme !== "none" && enabled) {
    logger.error(
      'No webhook secret configured for the "{scheme}" scheme: every webhook will be refused with 401 ' +
        '(set the `secret` option or GATEWAY_WEBHOOK_SECRET, or choose the scheme "none" for local development)',
      { scheme: verifier.scheme },
    );
  }
  const metrics = options.metrics === false ? undefined : options.metrics ?? new MetricsCollector();
  const store = options.store;
  const processor = options.processor ?? new WebhookProcessor();
  if (store !== undefined && processor.store === undefined) processor.useStore(store);
  const dedupe = resolveDedupe(options.dedupe);
  const middleware = options.route_middleware ?? [];
  const clock = options.now ?? Date.now;
  const queue = options.queue === true
    ? { enabled: true }
    : options.queue === false
    ? undefined
    : options.queue;
  const queueEnabled = queue?.enabled === true;
  const queueMode = queue?.mode ?? "auto";
  const wantsDigest = dedupe !== undefined || store !== undefined;
  const decoder = new TextDecoder();
  const routes = new Map<string, WebhookRoute | null>();

  // The KV the queue writes to: given, opened by a given function, or opened here on first use.
  let kvPromise: Promise<Deno.Kv> | undefined;
  let ownKv: Deno.Kv | undefined;
  let ownWorker: WebhookWorker | undefined;
  const denoRuntime = (globalThis as { Deno?: typeof Deno }).Deno;
  const canOpenKv = queue?.kv !== undefined || typeof denoRuntime?.openKv === "function";
  if (queueEnabled && queueMode === "kv" && queue?.backend === undefined && !canOpenKv && !denoRuntime) {
    throw new WebhookException(
      denoOnlyError(
        'the Deno KV queue (queue.mode "kv")',
        "pass queue.kv, or queue.backend (RedisWebhookQueue from @gw/gateway/redis)",
      ).message,
    );
  }
  const getKv = (): Promise<Deno.Kv> => {
    if (kvPromise === undefined) {
      const given = queue?.kv;
      kvPromise = (async () => {
        if (given !== undefined) return typeof given === "function" ? await given() : given;
        const kv = await denoRuntime!.openKv(queue?.path);
        ownKv = kv;
        if (queue?.worker !== false) {
          ownWorker = startWebhookWorker(kv, processor, { ...queue, store, metrics, now: clock });
        }
        return kv;
      })();
      kvPromise.catch(() => kvPromise = undefined);
    }
    return kvPromise;
  };

  const count = (event: string, result: string) => metrics?.webhookReceived(eventLabel(event), result);
  // Refusals are answered with a generic body; the reason goes to the log and the metrics only.
  const refuse = (
    status: number,
    body: string,
    reason: string,
    detail: string,
    event = "UNKNOWN",
    extra?: [string, string][],
  ) => {
    count(event, String(status));
    metrics?.increment("gateway_webhook_rejections_total", { status: String(status), reason });
    if (status !== 404 && status !== 405) {
      logger.warn("Webhook refused ({status} {reason}): {detail}", { status, reason, detail });
    }
    return respond(status, body, extra);
  };

  const fail = (error: unknown): Response => {
    count("UNKNOWN", "500");
    logger.error("Webhook endpoint error: {error}", { error: describeError(error) });
    return respond(500, BODIES.failed);
  };

  // Dedupe bookkeeping after processing; defined once, not per request.
  const release = (deliveryId: string | undefined): void => {
    if (dedupe !== undefined && deliveryId !== undefined) {
      dedupe.release(deliveryId).catch((error) =>
        logger.warn("Cannot release dedupe claim: {error}", { error: describeError(error) })
      );
    }
  };
  const complete = async (deliveryId: string | undefined): Promise<void> => {
    if (dedupe !== undefined && deliveryId !== undefined) {
      try {
        await dedupe.complete(deliveryId, clock());
      } catch (error) {
        logger.warn("Cannot record processed webhook: {error}", { error: describeError(error) });
      }
    }
  };
  // Without a store the run context does not depend on the request (no log id is used): shared.
  const storelessContext: RunContext = { metrics, final: true, now: clock };

  // How an accepted webhook is processed; Workers pass `ctx` per request, so it is chosen per request.
  const modeFor = (ctx: WebhookExecutionContext | undefined): "sync" | "kv" | "wait_until" => {
    if (!queueEnabled) return "sync";
    if (queue?.backend !== undefined) return "kv";
    const waitUntil = typeof ctx?.waitUntil === "function";
    if (queueMode === "kv") return "kv";
    if (queueMode === "wait_until") return waitUntil ? "wait_until" : "sync";
    if (queue?.kv !== undefined) return "kv";
    return waitUntil ? "wait_until" : canOpenKv ? "kv" : "sync";
  };

  const processed = (event: string, deliveryId: string | undefined): Response | Promise<Response> => {
    count(event, "200");
    if (dedupe === undefined) return respond(200, BODIES.ok);
    return complete(deliveryId).then(() => respond(200, BODIES.ok));
  };
  const processingFailed = (event: string, deliveryId: string | undefined): Response => {
    release(deliveryId);
    count(event, "500");
    return respond(500, BODIES.failed);
  };
  // Runs the handlers now. Answers synchronously when they all finished synchronously (the usual no-op or
  // quick handler), so the common case adds no promise.
  const processNow = (
    payload: WebhookPayloadDto,
    deliveryId: string | undefined,
    context: RunContext,
  ): Response | Promise<Response> => {
    let pending: Promise<void> | undefined;
    try {
      pending = runWebhook(processor, payload, context);
    } catch {
      return processingFailed(payload.event, deliveryId);
    }
    if (pending === undefined) return processed(payload.event, deliveryId);
    return pending.then(
      () => processed(payload.event, deliveryId),
      () => processingFailed(payload.event, deliveryId),
    );
  };

  // Everything after verification when there is something to record: the dedupe claim, the webhook log,
  // and the queue or waitUntil hand-off. Kept out of `accept` so that the hot path stays a small function.
  const deliver = async (
    payload: WebhookPayloadDto,
    body: Uint8Array,
    deliveryId: string | undefined,
    route: WebhookRoute,
    ctx: WebhookExecutionContext | undefined,
    now: number,
  ): Promise<Response> => {
    const event = payload.event;
    if (dedupe !== undefined && deliveryId !== undefined) {
      let fresh: boolean;
      try {
        fresh = await dedupe.claim(deliveryId, now);
      } catch (error) {
        return refuse(
          503,
          BODIES.unavailable,
          "dedupe_unavailable",
          `dedupe claim failed: ${describeError(error)}`,
          event,
          RETRY_AFTER,
        );
      }
      if (!fresh && await dedupe.state?.(deliveryId, now) === "processing") {
        // The first delivery is still running and may yet fail: a 200 now would let the server drop the
        // event, so ask it to come back (it retries a 409).
        return refuse(
          409,
          BODIES.inProgress,
          "in_progress",
          "the same delivery is being processed",
          event,
          RETRY_AFTER,
        );
      }
      if (!fresh) {
        count(event, "duplicate");
        if (store !== undefined) {
          await saveWebhookLog(
            store,
            { id: `${deliveryId}/duplicate/${now}`, event, instance: payload.instance, receivedAt: now },
            "duplicate",
            now,
          );
        }
        return respond(200, BODIES.duplicate);
      }
    }
    const logId = deliveryId;
    if (store !== undefined && logId !== undefined) {
      await saveWebhookLog(
        store,
        { id: logId, event, instance: payload.instance, receivedAt: now },
        "received",
        now,
      );
    }
    const mode = modeFor(ctx);
    if (mode === "kv") {
      const job: ProcessWebhookJob = {
        type: "gateway.webhook.process",
        id: crypto.randomUUID(),
        instance: route.instance ?? payload.instance,
        attempt: 0,
        receivedAt: now,
        body,
      };
      if (deliveryId !== undefined) job.deliveryId = deliveryId;
      if (route.event !== undefined) job.event = route.event;
      try {
        if (queue?.backend !== undefined) await queue.backend.enqueue(job);
        else await enqueueWebhookJob(await getKv(), job, queue ?? {});
      } catch (error) {
        release(deliveryId);
        metrics?.queueJob("enqueue_failed");
        return refuse(
          503,
          BODIES.unavailable,
          "queue_unavailable",
          `queue refused the job: ${describeError(error)}`,
          event,
          RETRY_AFTER,
        );
      }
      metrics?.queueJob("enqueued");
      if (dedupe !== undefined) await complete(deliveryId);
      count(event, "202");
      return respond(202, BODIES.queued);
    }
    const context: RunContext = store === undefined
      ? storelessContext
      : { store, metrics, logId, final: true, now: clock };
    if (mode === "wait_until") {
      // Wrapped so that a synchronous failure becomes a rejection handled here, never an unhandled one.
      const work = new Promise<void>((resolve) => resolve(runWebhook(processor, payload, context)))
        .then(() => complete(deliveryId), () => release(deliveryId))
        .catch(() => {});
      ctx!.waitUntil(work);
      count(event, "202");
      return respond(202, BODIES.queued);
    }
    return processNow(payload, deliveryId, context);
  };
  // Nothing to claim, log or queue: the handlers run right after verification.
  const direct = dedupe === undefined && store === undefined && !queueEnabled;

  // The hot path, from the request to a verified payload. Never rejects: every failure is answered here.
  // It stays small on purpose: V8 saves an async function's live registers at every await, and measured
  // under Deno.serve the whole pipeline in one function cost about 2 µs per request more than this split.
  const accept = async (
    request: Request,
    route: WebhookRoute,
    ctx: WebhookExecutionContext | undefined,
  ): Promise<Response> => {
    try {
      const headers = request.headers;
      if (!isJsonType(headers.get("content-type"))) {
        discardBody(request);
        return refuse(
          415,
          BODIES.mediaType,
          "unsupported_media_type",
          `content type "${(headers.get("content-type") ?? "").slice(0, 64)}"`,
        );
      }
      // Fast path: a declared length within the limit is read in one go (readBody handles everything else).
      let body: Uint8Array | 400 | 413;
      const declared = headers.get("content-length");
      if (declared !== null && DIGITS.test(declared) && Number(declared) <= maxBody) {
        try {
          body = new Uint8Array(await request.arrayBuffer());
          if (body.byteLength > maxBody) body = 413;
        } catch {
          body = 400;
        }
      } else {
        body = await readBody(request, maxBody);
      }
      if (body === 413) return refuse(413, BODIES.tooLarge, "body_too_large", `body over ${maxBody} bytes`);
      if (body === 400) {
        return refuse(400, BODIES.badLength, "unreadable_body", "unreadable body or bad content-length");
      }
      const now = clock();
      // The digest runs alongside the signature check: both are Web Crypto calls off the main thread.
      const digestPromise = wantsDigest && verifier.scheme !== "standard" ? digest(body) : undefined;
      let verifiedId: string | undefined;
      try {
        verifiedId = (await verifier.verify(body, headers, now)).id;
      } catch (error) {
        digestPromise?.catch(() => {});
        const reason = error instanceof WebhookVerificationException ? error.reason : "verification_error";
        return refuse(
          401,
          BODIES.unauthorized,
          reason,
          error instanceof Error ? error.message : String(error),
        );
      }
      let parsed: unknown;
      try {
        parsed = JSON.parse(decoder.decode(body));
      } catch {
        digestPromise?.catch(() => {});
        return refuse(400, BODIES.notJson, "invalid_json", "body is not JSON");
      }
      const deliveryId = verifiedId ?? (digestPromise === undefined ? undefined : await digestPromise);
      const payload = WebhookPayloadDto.from(parsed, {
        instance: route.instance,
        event: route.event,
        deliveryId,
        receivedAt: now,
      });
      if (payload === null) {
        return refuse(400, BODIES.noEvent, "invalid_envelope", "body has no valid event name or instance");
      }
      return direct
        ? processNow(payload, deliveryId, storelessContext)
        : deliver(payload, body, deliveryId, route, ctx, now).catch(fail);
    } catch (error) {
      return fail(error);
    }
  };

  const route = (
    request: Request,
    ctx: WebhookExecutionContext | undefined,
  ): Promise<Response> | Response => {
    if (!enabled) {
      discardBody(request);
      return refuse(404, BODIES.notFound, "disabled", "webhooks disabled");
    }
    const url = request.url;
    let matched = routes.get(url);
    if (matched === undefined) {
      matched = matchRoute(url, prefix);
      // Remembered per URL string: the server posts to the same few URLs over and over.
      if (routes.size >= 512) routes.clear();
      routes.set(url, matched);
    }
    if (matched === null) {
      discardBody(request);
      return refuse(404, BODIES.notFound, "not_found", "not the webhook route");
    }
    const method = request.method;
    if (method !== "POST") {
      discardBody(request);
      if (matched.health && (method === "GET" || method === "HEAD")) return respond(200, BODIES.health);
      return refuse(405, BODIES.method, "method_not_allowed", method.slice(0, 16), "UNKNOWN", [[
        "allow",
        matched.health ? "GET, HEAD, POST" : "POST",
      ]]);
    }
    if (middleware.length === 0) return accept(request, matched, ctx);
    const step = (index: number, current: Request): Promise<Response> =>
      index < middleware.length
        ? Promise.resolve(middleware[index](current, (next) => step(index + 1, next ?? current)))
        : accept(current, matched, ctx);
    return step(0, request).catch(fail);
  };

  const handler = (
    request: Request,
    _envOrInfo?: unknown,
    ctx?: WebhookExecutionContext,
  ): Promise<Response> => {
    let result: Promise<Response> | Response;
    try {
      result = route(request, ctx);
    } catch (error) {
      return Promise.resolve(fail(error));
    }
    // Routed promises never reject (accept and the middleware chain answer their own failures).
    return result instanceof Promise ? result : Promise.resolve(result);
  };
  return Object.assign(handler, {
    processor,
    metrics,
    close: async () => {
      const kv = ownKv;
      const worker = ownWorker;
      ownKv = undefined;
      ownWorker = undefined;
      kvPromise = undefined;
      if (worker !== undefined) await worker.idle();
      if (kv !== undefined) kv.close();
      if (worker !== undefined) await worker.finished.catch(() => {});
    },
  });
}

const RETRY_AFTER: [string, string][] = [["retry-after", "5"]];
const DIGITS = /^\d{1,15}$/;

function discardBody(request: Request): void {
  if (request.body !== null && !request.bodyUsed) request.body.cancel().catch(() => {});
}

let defaultProcessor: WebhookProcessor | undefined;

/**
 * The processor behind {@link handleWebhook}: register your handlers on it.
 *
 * @example
 * ```ts
 * import { handleWebhook, webhookProcessor } from "@gw/gateway";
 * webhookProcessor().on("messages.upsert", (payload) => console.log(payload.text));
 * export default { fetch: handleWebhook };
 * ```
 */
export function webhookProcessor(): WebhookProcessor {
  return defaultProcessor ??= new WebhookProcessor();
}

type Built = WebhookHandler | { error: unknown };
let denoDefault: Built | undefined;
const bindingDefaults = new WeakMap<object, Built>();

function build(get: (name: string) => string | undefined): Built {
  try {
    return createWebhookHandler({ ...webhookOptionsFromEnv(get), processor: webhookProcessor() });
  } catch (error) {
    logger.error("Cannot configure the webhook endpoint from the environment: {error}", {
      error: describeError(error),
    });
    return { error };
  }
}

/** Deno's `ServeHandlerInfo` has `remoteAddr`; anything else object-like is Workers bindings. */
function isBindings(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !("remoteAddr" in value);
}

/**
 * A ready-made webhook endpoint over {@link webhookProcessor}, configured from `GATEWAY_WEBHOOK_*`
 * variables (see `WEBHOOK_ENV_VARIABLES`): from the Workers `env` bindings when the runtime passes them as
 * the second argument, else from `Deno.env` (read lazily, never prompting; unreadable variables count as
 * unset). Deno's connection info (`Deno.serve(handleWebhook)`) is recognised and not taken for bindings.
 * Without `GATEWAY_WEBHOOK_SECRET` every webhook is refused (401) unless `GATEWAY_WEBHOOK_SCHEME=none`.
 *
 * @example Workers, Deno Deploy, `deno serve`
 * ```ts
 * import { handleWebhook, webhookProcessor } from "@gw/gateway";
 * webhookProcessor().on("messages.upsert", (payload) => console.log(payload.senderJid, payload.text));
 * export default { fetch: handleWebhook };
 * ```
 *
 * @example Deno.serve
 * ```ts
 * import { handleWebhook } from "@gw/gateway";
 * Deno.serve({ port: 8000 }, handleWebhook);
 * ```
 */
export function handleWebhook(
  request: Request,
  envOrInfo?: unknown,
  ctx?: WebhookExecutionContext,
): Promise<Response> {
  let built: Built | undefined;
  if (isBindings(envOrInfo)) {
    built = bindingDefaults.get(envOrInfo);
    if (built === undefined) {
      const env = envOrInfo;
      const fallback = denoEnvLookup();
      built = build((name) => typeof env[name] === "string" ? env[name] as string : fallback(name));
      bindingDefaults.set(envOrInfo, built);
    }
  } else {
    built = denoDefault ??= build(denoEnvLookup());
  }
  if (typeof built !== "function") {
    discardBody(request);
    return Promise.resolve(respond(500, BODIES.misconfigured));
  }
  return built(request, envOrInfo, ctx);
}

/**
 * Forget the handlers {@link handleWebhook} built from the environment, so that the next request reads it
 * again (for tests, or after changing variables). Closes what they opened.
 *
 * @example
 * ```ts
 * import { resetDefaultWebhookHandler } from "./handler.ts";
 * await resetDefaultWebhookHandler();
 * ```
 */
export async function resetDefaultWebhookHandler(): Promise<void> {
  const built = denoDefault;
  denoDefault = undefined;
  if (typeof built === "function") await built.close();
}
