/**
 * What every resource shares: the client, the bound connection and instance, and the send pipeline that
 * records message sends, counts them and dispatches `MessageSent`.
 *
 * @module
 */

import type { ApiResponse } from "../client/response.ts";
import type { GatewayClient, HttpMethod, RequestOptions } from "../client/client.ts";
import { isOutcomeUnknown, isPermanentFailure } from "../errors.ts";
import { getGatewayLogger } from "../log.ts";
import { MessageSent } from "../events.ts";
import type { MetricsCollector } from "../metrics.ts";
import type { RateLimitBucket } from "../ratelimit/limiter.ts";
import type { GatewayStore, OutboundMessageRecord } from "../store/store.ts";
import type { InstanceHealth } from "../health/instance_health.ts";
import type { StateStore } from "../store/state.ts";
import { guardSend, settleSend } from "../health/send_guard.ts";

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
  /** Bound connection name (default: the active connection at call time). */
  connection?: string;
  /** Bound instance name (default: the connection's `instance`). */
  instance?: string;
  /** Clock in epoch ms. */
  now: () => number;
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
  /** Sent as `idempotency-key` (ignored by the reference server, honoured by some relays). */
  idempotencyKey?: string;
  /** Instance to use for this call instead of the bound one. */
  instance?: string;
}

/** How a message send is described to {@link Resource.send}. */
export interface SendSpec {
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
}

function newId(): string {
  return crypto.randomUUID();
}

const log = getGatewayLogger("store");

/** A failed store write after a send must not hide the send's own outcome: it is logged instead. */
async function updateRecord(
  store: GatewayStore,
  id: string,
  changes: Partial<Omit<OutboundMessageRecord, "id" | "createdAt">>,
): Promise<void> {
  try {
    await store.updateOutbound(id, changes);
  } catch (error) {
    log.warn("Cannot update outbound record {id}: {error}", { id, error: String(error) });
  }
}

/**
 * Base class of the resource classes: binds them to a connection and an instance.
 *
 * @example A resource for a route the library does not cover
 * ```ts
 * import { Resource, type ApiResponse } from "@gw/gateway";
 * class Labels extends Resource {
 *   find(): Promise<ApiResponse> {
 *     return this.call("GET", "/label/findLabels/{instance}");
 *   }
 * }
 * ```
 */
export abstract class Resource {
  /** The bound context. */
  protected readonly context: ResourceContext;

  /**
   * Bind to a context (done by `GatewayService`).
   *
   * @example
   * ```ts
   * import { GatewayService } from "@gw/gateway";
   * const chats = GatewayService.make({ server_url: "http://localhost:8080", api_key: "k" }).instance("sales").chats();
   * ```
   */
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

  /** Send a request through the client, bound to this resource's connection and instance. */
  protected call<T = unknown>(
    method: HttpMethod,
    route: string,
    request: Omit<RequestOptions, "connection" | "instance"> = {},
    options: CallOptions = {},
  ): Promise<ApiResponse<T>> {
    const needsInstance = route.includes("{instance}");
    return this.context.client.request<T>(method, route, {
      ...request,
      signal: options.signal ?? request.signal,
      timeoutMs: options.timeoutMs ?? request.timeoutMs,
      maxRetries: options.maxRetries ?? request.maxRetries,
      idempotencyKey: options.idempotencyKey ?? request.idempotencyKey,
      connection: this.context.connection,
      instance: needsInstance ? this.instanceName(options) : undefined,
    });
  }

  /**
   * Remember an instance's last known state in the store, when one is configured. A store failure is
   * logged, never thrown: the call that learned the state already succeeded.
   */
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

  /** The breaker's state probe: `GET /instance/connectionState`, recorded in the health. */
  async #pollState(connection: string, instance: string, signal?: AbortSignal): Promise<void> {
    const res = await this.context.client.request<{ instance?: { state?: unknown } }>(
      "GET",
      "/instance/connectionState/{instance}",
      { connection, instance, signal, maxRetries: 0 },
    );
    const state = res.data?.instance?.state;
    if (typeof state === "string") await this.context.health?.recordState({ connection, instance }, state);
  }

  /**
   * Send a message: never retried when its outcome is unknown, recorded in the store when one is
   * configured (pending → sent, or failed with the error), counted, and announced with `MessageSent`
   * exactly once.
   */
  protected async send<T = unknown>(spec: SendSpec, options: CallOptions = {}): Promise<ApiResponse<T>> {
    const instance = this.instanceName(options);
    const connection = this.context.connection ??
      this.context.client.getConnectionManager().getActiveConnectionName();
    const store = this.context.store;
    let record: OutboundMessageRecord | undefined;
    if (store) {
      const now = this.context.now();
      record = {
        id: options.idempotencyKey ?? newId(),
        connection,
        instance,
        recipient: spec.to,
        type: spec.type,
        route: spec.route,
        body: spec.body,
        status: "pending",
        outcomeUnknown: false,
        retryCount: 0,
        createdAt: now,
        updatedAt: now,
      };
      try {
        await store.saveOutbound(record);
      } catch (error) {
        // The store is a record of sends, not a gate on them: the send goes ahead and the caller still
        // sees its outcome, while the missing record is logged.
        log.warn("Cannot record outbound message to {to}: {error}", { to: spec.to, error: String(error) });
        record = undefined;
      }
    }
    let response: ApiResponse<T>;
    const health = this.context.health;
    const ref = { connection, instance };
    try {
      await guardSend(health, ref, () => this.#pollState(connection, instance, options.signal));
      response = await this.context.client.request<T>("POST", spec.route, {
        body: spec.body,
        idempotent: false,
        bucket: spec.bucket,
        connection,
        instance,
        signal: options.signal,
        timeoutMs: options.timeoutMs,
        maxRetries: options.maxRetries,
        idempotencyKey: options.idempotencyKey,
        serverDelayMs: typeof spec.body.delay === "number" ? spec.body.delay : undefined,
      });
    } catch (error) {
      await settleSend(health, ref, error);
      if (store && record) {
        await updateRecord(store, record.id, {
          status: "failed",
          outcomeUnknown: isOutcomeUnknown(error),
          ...(isPermanentFailure(error) ? { permanent: true } : {}),
          lastError: error instanceof Error ? error.message : String(error),
          updatedAt: this.context.now(),
        });
      }
      throw error;
    }
    await settleSend(health, ref);
    const messageId = response.json<unknown>("key.id");
    const id = typeof messageId === "string" ? messageId : null;
    if (store && record) {
      await updateRecord(store, record.id, {
        status: "sent",
        messageId: id ?? undefined,
        updatedAt: this.context.now(),
      });
    }
    this.context.metrics.messageSent(spec.type);
    this.context.events.dispatchEvent(
      new MessageSent({
        messageId: id,
        instance,
        connection,
        to: spec.to,
        messageType: spec.type,
        response: response.data,
      }),
    );
    return response;
  }
}
