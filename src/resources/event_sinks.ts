/**
 * The event sinks besides the webhook: WebSocket, RabbitMQ, NATS, SQS and Kafka (`/<sink>/set`,
 * `/<sink>/find`), and Pusher (`/pusher/set`, `/pusher/find`). Each turns the server's publishing of the
 * instance's events to that sink on or off; the sink itself must be enabled in the server's environment
 * (`RABBITMQ_ENABLED`, ...), else `set` answers an empty body and stores nothing.
 *
 * @module
 */

import type { ApiResponse } from "../client/response.ts";
import { readBody } from "../dto/body_spec.ts";
import { type EventSink, eventSinkBody, PUSHER_BODY } from "../dto/integration_bodies.ts";
import { type CallOptions, Resource } from "./resource.ts";
import { ROUTE } from "./routes.ts";

/** What an event sink's `set` takes. */
export interface EventSinkInput {
  /** Default true. */
  enabled?: boolean;
  /** UPPER_SNAKE or dotted names (`messages.upsert`); `[]`, the default, publishes none. */
  events?: string[];
}

/** What `pusher().set` takes. */
export interface PusherInput extends EventSinkInput {
  /** The Pusher app's id. */
  appId: string;
  /** The app's key. */
  key: string;
  /** The app's secret. */
  secret: string;
  /** The app's cluster (`mt1`, `eu`, ...). */
  cluster: string;
  /** Default true. */
  useTLS?: boolean;
}

/** A sink's stored configuration; `null` (or an empty body) when there is none. */
export interface EventSinkRow {
  /** Row id. */
  id: string;
  /** On or off. */
  enabled: boolean;
  /** The events published (UPPER_SNAKE). */
  events: string[];
  /** The instance's id. */
  instanceId: string;
  /** ISO timestamp. */
  createdAt: string;
  /** ISO timestamp. */
  updatedAt: string;
}

/**
 * One event sink configured by `{ enabled, events }`: `gw.websocket()`, `gw.rabbitmq()`, `gw.nats()`,
 * `gw.sqs()`, `gw.kafka()`.
 *
 * @example
 * ```ts
 * import { GatewayService } from "@gw/gateway";
 * const gw = GatewayService.make({ server_url: "http://localhost:8080", api_key: "k", instance: "sales" });
 * await gw.rabbitmq().set({ events: ["messages.upsert", "CONNECTION_UPDATE"] });
 * console.log((await gw.rabbitmq().find()).data?.events);
 * ```
 */
export class EventSinkResource extends Resource {
  readonly #sink: EventSink;

  /** Bind to a context and a sink (done by `GatewayService`). */
  constructor(context: ConstructorParameters<typeof Resource>[0], sink: EventSink) {
    super(context);
    this.#sink = sink;
  }

  /** Turn publishing on or off and choose the events (`POST /<sink>/set`). */
  async set(config: EventSinkInput, options?: CallOptions): Promise<ApiResponse<EventSinkRow | null>> {
    const body = readBody(eventSinkBody(this.#sink), config);
    return await this.call(ROUTE[this.#sink].set, { body }, options);
  }

  /** The stored configuration (`GET /<sink>/find`). */
  async find(options?: CallOptions): Promise<ApiResponse<EventSinkRow | null>> {
    return await this.call(ROUTE[this.#sink].find, {}, options);
  }
}

/**
 * Pusher (`gw.pusher()`): the Pusher app's credentials and the events to publish.
 *
 * @example
 * ```ts
 * import { GatewayService } from "@gw/gateway";
 * const gw = GatewayService.make({ server_url: "http://localhost:8080", api_key: "k", instance: "sales" });
 * await gw.pusher().set({ appId: "1", key: "k", secret: "s", cluster: "mt1", events: ["MESSAGES_UPSERT"] });
 * ```
 */
export class PusherResource extends Resource {
  /** Configure Pusher (`POST /pusher/set`). */
  async set(
    config: PusherInput,
    options?: CallOptions,
  ): Promise<ApiResponse<(EventSinkRow & Omit<PusherInput, "events">) | null>> {
    return await this.call(ROUTE.pusher.set, { body: readBody(PUSHER_BODY, config) }, options);
  }

  /** The stored configuration (`GET /pusher/find`). */
  async find(
    options?: CallOptions,
  ): Promise<ApiResponse<(EventSinkRow & Omit<PusherInput, "events">) | null>> {
    return await this.call(ROUTE.pusher.find, {}, options);
  }
}
