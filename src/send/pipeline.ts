import type { GatewayClient } from "../client/client.ts";
import type { ApiResponse } from "../client/response.ts";
import type { InstanceHealth } from "../health/instance_health.ts";
import type { MetricsCollector } from "../metrics.ts";
import type { RateLimitBucket } from "../ratelimit/limiter.ts";
import { checkIdempotencyKey, type IdempotencyClaims } from "../store/idempotency.ts";
import type { GatewayStore } from "../store/store.ts";
import { announceStage } from "./announce.ts";
import { claimStage } from "./claim.ts";
import { guardStage } from "./guard.ts";
import { recordStage } from "./record.ts";
import { settleStage } from "./settle.ts";
import { compose } from "../util/compose.ts";
import { CLAIM_SLACK_MS, type SendContext, type SendStage } from "./types.ts";

/** What the pipeline is built from: the service's shared parts. */
export interface SendPipelineParts {
  /** The request pipeline. */
  client: GatewayClient;
  /** Where `MessageSent` is dispatched. */
  events: EventTarget;
  /** Where sends are counted. */
  metrics: MetricsCollector;
  /** Idempotency claims: on `store.state`, or the service's own memory when there is no store. */
  claims: IdempotencyClaims;
  /** Where sends are recorded, when configured. */
  store?: GatewayStore;
  /** Instance health and the send breaker, when kept. */
  health?: InstanceHealth;
  /** Clock in epoch ms. */
  now: () => number;
}

/** One message send as a resource describes it. */
export interface SendRequest {
  /** Route template, e.g. `/message/sendText/{instance}`. */
  route: string;
  /** Message kind for metrics, the store and `MessageSent`: `text`, `media`, `audio`, ... */
  type: string;
  /** The JSON body. */
  body: Record<string, unknown>;
  /** Recipient as given (`number`, or the reaction's `key.remoteJid`). */
  to: string;
  /** Rate-limit bucket: `messages` for most sends, `media` for media. */
  bucket: RateLimitBucket;
  /** Connection name (default: the active connection). */
  connection?: string;
  /** Instance name (default: the connection's `instance`). */
  instance?: string;
  /** Cancels the send. */
  signal?: AbortSignal;
  /** Per-attempt timeout in ms. */
  timeoutMs?: number;
  /** Retries of attempts the server did not act on. */
  maxRetries?: number;
  /** The caller's idempotency key. */
  idempotencyKey?: string;
}

/** The typing delay the server waits out before answering: part of the send's time budget. */
function serverDelayOf(body: Record<string, unknown>): number | undefined {
  return typeof body.delay === "number" && body.delay > 0 ? body.delay : undefined;
}

/**
 * Sends messages through `claim → guard → announce → record → settle → request`, each stage in the chain only
 * when its feature is on (`claim` with a key, `record` with a store, `guard`/`settle` with instance health).
 * On the way back the breaker learns the outcome first, then the record, the count and `MessageSent`, and
 * last the claim. Built once per service.
 *
 * @example
 * ```ts
 * import { GatewayService } from "@gw/gateway";
 * const gw = GatewayService.make({ server_url: "http://localhost:8080", api_key: "k", instance: "sales" });
 * await gw.messages().text("5511999999999", "Hello"); // goes through the service's send pipeline
 * ```
 */
export class SendPipeline {
  readonly #client: GatewayClient;
  readonly #plain: (send: SendContext) => Promise<void>;
  readonly #keyed: (send: SendContext) => Promise<void>;

  /** Compose the stages for `parts`. */
  constructor(parts: SendPipelineParts) {
    this.#client = parts.client;
    const request: SendStage = (send) =>
      parts.client.send(send.call).then((response) => {
        send.response = response;
      });
    const stages: SendStage[] = [];
    if (parts.health) stages.push(guardStage(parts.health, parts.client));
    stages.push(announceStage(parts.metrics, parts.events));
    if (parts.store) stages.push(recordStage(parts.store, parts.now));
    if (parts.health) stages.push(settleStage(parts.health));
    this.#plain = compose([...stages, request]);
    this.#keyed = compose([
      claimStage(parts.claims, (ms, signal) => parts.client.sleep(ms, signal)),
      ...stages,
      request,
    ]);
  }

  /** Send one message: its request (connection, instance, deadline, server delay) is resolved once, here. */
  send<T = unknown>(request: SendRequest): Promise<ApiResponse<T>> {
    try {
      const key = request.idempotencyKey;
      if (key !== undefined) checkIdempotencyKey(key);
      const call = this.#client.prepare("POST", request.route, {
        body: request.body,
        idempotent: false,
        bucket: request.bucket,
        connection: request.connection,
        instance: request.instance,
        signal: request.signal,
        timeoutMs: request.timeoutMs,
        maxRetries: request.maxRetries,
        idempotencyKey: key,
        serverDelayMs: serverDelayOf(request.body),
      });
      const send: SendContext = {
        route: request.route,
        type: request.type,
        body: request.body,
        to: request.to,
        bucket: request.bucket,
        call,
        ref: { connection: call.connection.name, instance: call.instance! },
        idempotencyKey: key,
        claimedUntil: call.deadlineAt + CLAIM_SLACK_MS,
      };
      return (key === undefined ? this.#plain : this.#keyed)(send).then(() =>
        send.response as ApiResponse<T>
      );
    } catch (error) {
      return Promise.reject(error);
    }
  }
}
