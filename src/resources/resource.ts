/**
 * What every resource shares: the client, its connection and instance, and the send pipeline.
 *
 * @module
 */

import type { ApiResponse } from "../client/response.ts";
import type { GatewayClient, HttpMethod, RequestOptions } from "../client/client.ts";
import { getGatewayLogger } from "../log.ts";
import type { MetricsCollector } from "../metrics.ts";
import type { RateLimitBucket } from "../ratelimit/limiter.ts";
import { IdempotencyClaims } from "../store/idempotency.ts";
import { MemoryState } from "../backends/memory/state.ts";
import type { GatewayStore } from "../store/store.ts";
import { SendPipeline } from "../send/pipeline.ts";
import type { InstanceHealth } from "../health/instance_health.ts";
import type { StateStore } from "../store/state.ts";
import type { RouteEntry } from "./routes.ts";
import { checkCallOptions } from "../dto/option_names.ts";

/** What a resource is bound to: shared by every resource of one service view. */
export interface ResourceContext {
  /** The request pipeline. */
  client: GatewayClient;
  /** Where `MessageSent` is dispatched. */
  events: EventTarget;
  /** Metrics collector. */
  metrics: MetricsCollector;
  /** Where sends are recorded, when configured. */
  store?: GatewayStore;
  /**
   * Idempotency claims of sends: on `store.state`, or the service's own memory without a store (default:
   * claims in memory shared by every context of the same client).
   */
  idempotency?: IdempotencyClaims;
  /** The service's send pipeline (default: one built from this context's parts, once per context). */
  sender?: SendPipeline;
  /** Bound connection name (default: the active connection at call time). */
  connection?: string;
  /** Bound instance name (default: the connection's `instance`). */
  instance?: string;
  /** Clock in epoch ms. */
  now: () => number;
  /** Recipient resolution settings (`recipients` in the configuration). */
  recipients?: { resolve?: boolean; cache_ttl_seconds?: number };
  /** Instance health and the send breaker (shared by every view of a service). */
  health?: InstanceHealth;
  /** Shared state: the store's, or the service's own memory state (pacing, progress). */
  state?: StateStore;
}

/** Per-call options every resource method accepts. */
export interface CallOptions {
  /** Cancels the call and any backoff wait. */
  signal?: AbortSignal;
  /** Per-attempt timeout in ms. */
  timeoutMs?: number;
  /** Retries after the first attempt. */
  maxRetries?: number;
  /**
   * Sends at most once per (connection, instance, key) within `retry.idempotency_window_ms` (default
   * 24 h); a later call returns the first answer (`response.replayed`). Sent as `idempotency-key` too.
   */
  idempotencyKey?: string;
  /** Instance to use for this call instead of the bound one. */
  instance?: string;
  /**
   * Message sends only: resolve `number` to the JID its account is registered under (cached
   * `whatsappNumbers`, with the BR/MX/AR variants) before sending. Default: `recipients.resolve`.
   */
  resolve?: boolean;
}

/** How a message send is described to {@link Resource.send}. */
export interface SendSpec {
  /** The route's row (`ROUTE.message.sendText`): its path, message kind and rate-limit bucket. */
  route: RouteEntry;
  /** The JSON body. */
  body: Record<string, unknown>;
  /** Recipient as given (`number`, or the reaction's `key.remoteJid`). */
  to: string;
  /** Message kind when it depends on the body (the media type); default: the row's. */
  kind?: string;
  /** Rate-limit bucket when it depends on the body (a text status); default: the row's. */
  bucket?: RateLimitBucket;
}

/** What a resource call adds to its route's row: query, body, per-request settings. */
export type RouteRequest = Omit<RequestOptions, "connection" | "instance" | "idempotent" | "bucket">;

const log = getGatewayLogger("store");

/** Claims for contexts built without any (a resource made by hand): one set per client. */
const fallbackClaims = new WeakMap<GatewayClient, IdempotencyClaims>();
/** Pipelines of contexts built without one (a resource made by hand): one per context. */
const fallbackPipelines = new WeakMap<ResourceContext, SendPipeline>();

function pipelineOf(context: ResourceContext): SendPipeline {
  if (context.sender) return context.sender;
  let pipeline = fallbackPipelines.get(context);
  if (pipeline === undefined) {
    let claims = context.idempotency ?? fallbackClaims.get(context.client);
    if (claims === undefined) {
      claims = new IdempotencyClaims(new MemoryState({ now: context.now }), { now: context.now });
      fallbackClaims.set(context.client, claims);
    }
    pipeline = new SendPipeline({ ...context, claims });
    fallbackPipelines.set(context, pipeline);
  }
  return pipeline;
}

/**
 * Base class of the resource classes: binds them to a connection and an instance.
 *
 * @example A resource for a route the library does not cover
 * ```ts
 * import { type ApiResponse } from "@gw/gateway";
 * import { Resource } from "@gw/gateway/resources";
 * class Labels extends Resource {
 *   find(): Promise<ApiResponse> {
 *     return this.call("GET", "/label/findLabels/{instance}");
 *   }
 * }
 * ```
 */
export abstract class Resource {
  /**
   * The bound context.
   *
   * @ignore
   */
  protected readonly context: ResourceContext;

  /** Bind to a context (done by `GatewayService`). */
  constructor(context: ResourceContext) {
    this.context = context;
  }

  /** The instance a call is for: the call's, else the bound one, else the connection's default. */
  protected instanceName(options?: CallOptions): string {
    return this.context.client.resolveInstance(
      options?.instance ?? this.context.instance,
      this.context.connection,
    );
  }

  /**
   * A request bound to this resource's connection and instance: by route row (`ROUTE.proxy.find`: verb,
   * path, retry rule, bucket), or by verb and path for a route the library does not cover.
   */
  protected call<T = unknown>(
    route: RouteEntry,
    request?: RouteRequest,
    options?: CallOptions,
  ): Promise<ApiResponse<T>>;
  /** Send a request for a route the library does not cover, given by verb and path template. */
  protected call<T = unknown>(
    method: HttpMethod,
    route: string,
    request?: Omit<RequestOptions, "connection" | "instance">,
    options?: CallOptions,
  ): Promise<ApiResponse<T>>;
  protected call<T = unknown>(
    ...args:
      | [RouteEntry, RouteRequest?, CallOptions?]
      | [HttpMethod, string, Omit<RequestOptions, "connection" | "instance">?, CallOptions?]
  ): Promise<ApiResponse<T>> {
    if (typeof args[0] === "object") {
      const [row, request = {}, options] = args as [RouteEntry, RouteRequest?, CallOptions?];
      return this.#request<T>(
        row.method,
        row.path,
        { ...request, idempotent: row.idempotent, bucket: row.bucket },
        options,
      );
    }
    const [method, path, request = {}, options] = args as [
      HttpMethod,
      string,
      Omit<RequestOptions, "connection" | "instance">?,
      CallOptions?,
    ];
    return this.#request<T>(method, path, request, options);
  }

  #request<T>(
    method: HttpMethod,
    route: string,
    request: Omit<RequestOptions, "connection" | "instance">,
    options: CallOptions = {},
  ): Promise<ApiResponse<T>> {
    try {
      checkCallOptions(options);
    } catch (error) {
      return Promise.reject(error);
    }
    const needsInstance = route.includes("{instance}");
    return this.context.client.request<T>(method, route, {
      ...request,
      signal: options.signal ?? request.signal,
      timeoutMs: options.timeoutMs ?? request.timeoutMs,
      maxRetries: options.maxRetries ?? request.maxRetries,
      idempotencyKey: options.idempotencyKey ?? request.idempotencyKey,
      connection: this.context.connection,
      // The client resolves the connection's default itself, once, as it prepares the call.
      instance: needsInstance ? options.instance ?? this.context.instance : undefined,
    });
  }

  /** Remember an instance's last known state in the store, if any; a store failure is logged, not thrown. */
  protected async recordInstanceState(
    instance: string,
    state: string,
    details: {
      ownerJid?: string | null;
      profileName?: string | null;
      disconnectionReasonCode?: number | null;
    } = {},
  ): Promise<void> {
    const connection = this.context.connection ??
      this.context.client.getConnectionManager().getActiveConnectionName();
    try {
      await this.context.health?.recordState(
        { connection, instance },
        state,
        details.disconnectionReasonCode,
      );
    } catch (error) {
      log.warn("Cannot record health of instance {instance}: {error}", { instance, error: String(error) });
    }
    const store = this.context.store;
    if (!store) return;
    try {
      await store.saveInstanceSnapshot({
        connection,
        instance,
        state,
        ...(details.ownerJid ? { ownerJid: details.ownerJid } : {}),
        ...(details.profileName ? { profileName: details.profileName } : {}),
        updatedAt: this.context.now(),
      });
    } catch (error) {
      log.warn("Cannot record state of instance {instance}: {error}", { instance, error: String(error) });
    }
  }

  /**
   * Send a message through the service's send pipeline: never retried when its outcome is unknown, at most
   * once per idempotency key (a later call replays the first answer), refused while the breaker holds the
   * instance down, recorded in the store when one is configured (pending → sent, or failed with the error),
   * counted, and announced with `MessageSent` exactly once.
   *
   * @ignore
   */
  protected send<T = unknown>(spec: SendSpec, options: CallOptions = {}): Promise<ApiResponse<T>> {
    try {
      checkCallOptions(options);
    } catch (error) {
      return Promise.reject(error);
    }
    return pipelineOf(this.context).send<T>({
      route: spec.route.path,
      type: spec.kind ?? spec.route.kind ?? spec.route.group,
      body: spec.body,
      to: spec.to,
      bucket: spec.bucket ?? spec.route.bucket,
      connection: this.context.connection,
      instance: options.instance ?? this.context.instance,
      signal: options.signal,
      timeoutMs: options.timeoutMs,
      maxRetries: options.maxRetries,
      idempotencyKey: options.idempotencyKey,
    });
  }
}
