/**
 * `GatewayService`: the entry point, handing out resources bound to a connection and an instance.
 *
 * @module
 */

import { GatewayClient } from "./client/client.ts";
import { ConnectionManager } from "./client/connection_manager.ts";
import {
  CONFIG_FILE,
  configFromEnv,
  type GatewayConfig,
  loadConfigFile,
  mergeConfig,
  mergeEnvConfig,
  serviceConfig,
  validateConfig,
} from "./config.ts";
import { envReader } from "./env_access.ts";
import { isRecord } from "./util/json_shape.ts";
import { ConfigurationException } from "./errors.ts";
import { GuardedEventTarget } from "./guarded_event_target.ts";
import { MetricsCollector } from "./metrics.ts";
import { RateLimitGate } from "./ratelimit/gate.ts";
import type { ResourceContext } from "./resources/resource.ts";
import { BusinessResource } from "./resources/business.ts";
import { CallsResource } from "./resources/calls.ts";
import { ChatsResource } from "./resources/chats.ts";
import { GroupsResource } from "./resources/groups.ts";
import { InstancesResource } from "./resources/instances.ts";
import { LabelsResource } from "./resources/labels.ts";
import { MessagesResource } from "./resources/messages.ts";
import { ProfileResource } from "./resources/profile.ts";
import { ProxyResource } from "./resources/proxy.ts";
import { S3Resource } from "./resources/s3.ts";
import { SettingsResource } from "./resources/settings.ts";
import { TemplatesResource } from "./resources/templates.ts";
import { WebhooksResource } from "./resources/webhooks.ts";
import { TypebotResource } from "./resources/typebot.ts";
import { OpenaiResource } from "./resources/openai.ts";
import {
  DifyResource,
  EvoaiResource,
  EvolutionBotResource,
  FlowiseResource,
  N8nResource,
} from "./resources/bots.ts";
import { ChatwootResource } from "./resources/chatwoot.ts";
import { EventSinkResource, PusherResource } from "./resources/event_sinks.ts";
import { IdempotencyClaims } from "./store/idempotency.ts";
import { MemoryState } from "./backends/memory/state.ts";
import type { GatewayStore } from "./store/store.ts";
import { InstanceHealth } from "./health/instance_health.ts";
import type { StateStore } from "./store/state.ts";
import { readServerDetails, type ServerDetails } from "./server/server_version.ts";
import { SendPipeline } from "./send/pipeline.ts";

/** Test seams: clocks, sleeps, randomness and fetch. */
export interface ServiceDependencies {
  /** The fetch to use (overrides `config.fetch`). */
  fetch?: typeof fetch;
  /** Clock in epoch ms. */
  now?: () => number;
  /** Abortable sleep. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Random number in [0, 1) for jitter. */
  random?: () => number;
}

/** The welcome body of the server's `GET /`. */
export interface ServerInfo {
  /** HTTP status reported in the body (200). */
  status?: number;
  /** Welcome message. */
  message?: string;
  /** Server version, e.g. `2.3.6`. */
  version?: string;
  /** Client name configured on the server. */
  clientName?: string;
  /** Manager URL. */
  manager?: string;
  /** Documentation URL. */
  documentation?: string;
  /** WhatsApp Web version the server uses. */
  whatsappWebVersion?: string;
  /** Any other field the server adds. */
  [key: string]: unknown;
}

interface Shared {
  config: GatewayConfig;
  connections: ConnectionManager;
  client: GatewayClient;
  metrics: MetricsCollector;
  events: EventTarget;
  store?: GatewayStore;
  idempotency: IdempotencyClaims;
  sender: SendPipeline;
  now: () => number;
  health: InstanceHealth;
  state: StateStore;
  /** `serverInfo()` per connection: read once, dropped again when the read failed. */
  serverDetails: Map<string, Promise<ServerDetails>>;
}

interface Scope {
  connection?: string;
  instance?: string;
}

/**
 * What a view is made of: the parts every view of a service shares, and the view's own scope. Passed to the
 * constructor to make a view (applications cannot build one: the class is not exported).
 */
class ServiceView {
  constructor(readonly shared: Shared, readonly scope: Scope) {}
}

/** Build the parts every view of a service shares, from a checked configuration. */
function buildShared(config: GatewayConfig, dependencies: ServiceDependencies): Shared {
  const valid = validateConfig(config);
  const connections = new ConnectionManager(valid);
  const metrics = new MetricsCollector({ enabled: valid.metrics?.enabled ?? true });
  const now = dependencies.now ?? Date.now;
  const gate = valid.rate_limiting?.enabled === false ? undefined : new RateLimitGate(valid.rate_limiting, {
    metrics,
    sleep: dependencies.sleep,
    now,
    logCategory: valid.logging?.category,
  });
  const client = new GatewayClient(valid, {
    connections,
    metrics,
    gate,
    fetch: dependencies.fetch ?? valid.fetch,
    now,
    sleep: dependencies.sleep,
    random: dependencies.random,
  });
  // Shared through the store when there is one, so every process sees the same health and pacing.
  const state = valid.store?.state ?? new MemoryState({ now });
  const events = new GuardedEventTarget();
  // Without a store, keys still hold within this process (every view shares these claims).
  const idempotency = new IdempotencyClaims(state, { windowMs: valid.retry?.idempotency_window_ms, now });
  const health = new InstanceHealth(state, { now });
  return {
    config: valid,
    connections,
    client,
    metrics,
    events,
    store: valid.store,
    idempotency,
    sender: new SendPipeline({
      client,
      events,
      metrics,
      claims: idempotency,
      store: valid.store,
      health,
      now,
    }),
    now,
    health,
    state,
    serverDetails: new Map(),
  };
}

/**
 * The gateway client service. Views made with `connection(name)` and `instance(name)` share the
 * connections, client, metrics, events and store, but never change what other callers see.
 *
 * @example
 * ```ts
 * import { GatewayService } from "@gw/gateway";
 * const gw = GatewayService.make({ server_url: "http://localhost:8080", api_key: "...", instance: "sales" });
 * await gw.messages().text("5511999999999", "Hello");
 * await gw.instance("support").messages().text("5511999999999", "Hi from support");
 * ```
 */
export class GatewayService {
  readonly #shared: Shared;
  readonly #scope: Scope;
  #resourceContext?: ResourceContext;

  /** Prefer {@link GatewayService.make}; `dependencies` (fetch, clocks, sleeps) are the tests' seams. */
  constructor(config: GatewayConfig = {}, dependencies: ServiceDependencies = {}) {
    const view = dependencies instanceof ServiceView ? dependencies : undefined;
    this.#shared = view?.shared ?? buildShared(config, dependencies);
    this.#scope = view?.scope ?? {};
  }

  #view(scope: Scope): GatewayService {
    // The view rides in the dependencies' place: only this module can build one.
    const view = new ServiceView(this.#shared, { ...this.#scope, ...scope });
    return new GatewayService({}, view as ServiceDependencies);
  }

  /** What this view's resources are bound to: built once per view (a view never changes). */
  #context(): ResourceContext {
    return this.#resourceContext ??= this.#buildContext();
  }

  #buildContext(): ResourceContext {
    const shared = this.#shared;
    return {
      client: shared.client,
      events: shared.events,
      metrics: shared.metrics,
      store: shared.store,
      idempotency: shared.idempotency,
      sender: shared.sender,
      connection: this.#scope.connection,
      instance: this.#scope.instance,
      now: shared.now,
      recipients: shared.config.recipients,
      health: shared.health,
      state: shared.state,
    };
  }

  /** Where `MessageSent` events are dispatched (shared by every view of this service). */
  get events(): EventTarget {
    return this.#shared.events;
  }

  /**
   * A view bound to connection `name` (its `instance` becomes the default instance).
   *
   * @example
   * ```ts
   * import { GatewayService } from "@gw/gateway";
   * const gw = new GatewayService({ connections: {
   *   eu: { server_url: "https://eu.example.com", api_key: "k1", instance: "sales" },
   *   us: { server_url: "https://us.example.com", api_key: "k2", instance: "sales" },
   * }, default: "eu" });
   * const us = gw.connection("us");
   * ```
   */
  connection(name: string): GatewayService {
    this.#shared.connections.getConnection(name);
    return this.#view({ connection: name, instance: undefined });
  }

  /** A view bound to instance `name`. */
  instance(name: string): GatewayService {
    return this.#view({ instance: this.#shared.client.resolveInstance(name) });
  }

  /** The connection this view uses: its bound one, else the active one. */
  getConnectionName(): string {
    return this.#scope.connection ?? this.#shared.connections.getActiveConnectionName();
  }

  /** The instance this view uses, or undefined when none is bound or configured. */
  getInstanceName(): string | undefined {
    return this.#scope.instance ?? this.#shared.connections.getConnection(this.#scope.connection).instance;
  }

  /** The connection manager (shared by every view). */
  getConnectionManager(): ConnectionManager {
    return this.#shared.connections;
  }

  /** The request pipeline, for routes the resources do not cover. */
  getClient(): GatewayClient {
    return this.#shared.client;
  }

  /** The metrics collector. */
  getMetrics(): MetricsCollector {
    return this.#shared.metrics;
  }

  /** The configured store, if any. */
  getStore(): GatewayStore | undefined {
    return this.#shared.store;
  }

  /** Instance health and the send breaker, shared by every view (and process, through `store.state`). */
  health(): InstanceHealth {
    return this.#shared.health;
  }

  /** The configuration the service was built from. */
  getConfig(): GatewayConfig {
    return this.#shared.config;
  }

  /** Whether the server answers `GET /` with a 2xx. Resolves true or false; never throws. */
  async ping(options: { signal?: AbortSignal; timeoutMs?: number } = {}): Promise<boolean> {
    try {
      await this.info({ ...options, maxRetries: 0 });
      return true;
    } catch {
      return false;
    }
  }

  /** The server's welcome body (`GET /`): version, client name, WhatsApp Web version. */
  async info(
    options: { signal?: AbortSignal; timeoutMs?: number; maxRetries?: number } = {},
  ): Promise<ServerInfo> {
    const response = await this.#shared.client.request<ServerInfo>("GET", "/", {
      connection: this.#scope.connection,
      signal: options.signal,
      timeoutMs: options.timeoutMs,
      maxRetries: options.maxRetries,
    });
    return (response.data ?? {}) as ServerInfo;
  }

  /**
   * Which server this view's connection talks to: version, release line (`2.3` or `2.4`), what that line
   * does differently, client name and WhatsApp Web version. Reads `GET /` once per connection and keeps
   * the answer (a failed read is not kept). Throws `UnsupportedServerException` for a major version other
   * than 2.
   */
  serverInfo(options: { signal?: AbortSignal; timeoutMs?: number } = {}): Promise<ServerDetails> {
    const connection = this.getConnectionName();
    const cache = this.#shared.serverDetails;
    let pending = cache.get(connection);
    if (pending === undefined) {
      pending = this.info(options).then((body) => readServerDetails(body, connection));
      cache.set(connection, pending);
      pending.catch(() => {
        if (cache.get(connection) === pending) cache.delete(connection);
      });
    }
    return pending;
  }

  /** Instance management: create, connect, state, QR code, logout, delete. */
  instances(): InstancesResource {
    return new InstancesResource(this.#context());
  }

  /** Message sends: text, media, audio, location, contact, reaction, poll, list, buttons, status. */
  messages(): MessagesResource {
    return new MessagesResource(this.#context());
  }

  /** Chats, contacts and message lookups. */
  chats(): ChatsResource {
    return new ChatsResource(this.#context());
  }

  /** Groups. */
  groups(): GroupsResource {
    return new GroupsResource(this.#context());
  }

  /** The instance's own profile and privacy settings. */
  profile(): ProfileResource {
    return new ProfileResource(this.#context());
  }

  /** The instance's webhook configuration on the server. */
  webhooks(): WebhooksResource {
    return new WebhooksResource(this.#context());
  }

  /** The instance's behaviour settings (reject calls, always online, ...). */
  settings(): SettingsResource {
    return new SettingsResource(this.#context());
  }

  /** Call offers. */
  calls(): CallsResource {
    return new CallsResource(this.#context());
  }

  /** Business catalog and collections. */
  business(): BusinessResource {
    return new BusinessResource(this.#context());
  }

  /** Message templates (WhatsApp Business / Meta instances only). */
  templates(): TemplatesResource {
    return new TemplatesResource(this.#context());
  }

  /** The instance's proxy. */
  proxy(): ProxyResource {
    return new ProxyResource(this.#context());
  }

  /** Chat labels. */
  labels(): LabelsResource {
    return new LabelsResource(this.#context());
  }

  /** Media stored in S3 by the server. */
  s3(): S3Resource {
    return new S3Resource(this.#context());
  }

  /** Evolution Bots (your own HTTP bot, `/evolutionBot`). */
  evolutionBot(): EvolutionBotResource {
    return new EvolutionBotResource(this.#context());
  }

  /** The instance's Chatwoot inbox (`/chatwoot`). */
  chatwoot(): ChatwootResource {
    return new ChatwootResource(this.#context());
  }

  /** Typebot flows (`/typebot`). */
  typebot(): TypebotResource {
    return new TypebotResource(this.#context());
  }

  /** OpenAI bots and stored API keys (`/openai`). */
  openai(): OpenaiResource {
    return new OpenaiResource(this.#context());
  }

  /** Dify apps (`/dify`). */
  dify(): DifyResource {
    return new DifyResource(this.#context());
  }

  /** Flowise flows (`/flowise`). */
  flowise(): FlowiseResource {
    return new FlowiseResource(this.#context());
  }

  /** n8n workflows (`/n8n`). */
  n8n(): N8nResource {
    return new N8nResource(this.#context());
  }

  /** EvoAI agents (`/evoai`). */
  evoai(): EvoaiResource {
    return new EvoaiResource(this.#context());
  }

  /** Publishing the instance's events over the server's socket.io (`/websocket`). */
  websocket(): EventSinkResource {
    return new EventSinkResource(this.#context(), "websocket");
  }

  /** Publishing the instance's events to RabbitMQ (`/rabbitmq`). */
  rabbitmq(): EventSinkResource {
    return new EventSinkResource(this.#context(), "rabbitmq");
  }

  /** Publishing the instance's events to NATS (`/nats`). */
  nats(): EventSinkResource {
    return new EventSinkResource(this.#context(), "nats");
  }

  /** Publishing the instance's events to Pusher (`/pusher`). */
  pusher(): PusherResource {
    return new PusherResource(this.#context());
  }

  /** Publishing the instance's events to Amazon SQS (`/sqs`). */
  sqs(): EventSinkResource {
    return new EventSinkResource(this.#context(), "sqs");
  }

  /** Publishing the instance's events to Kafka (`/kafka`). */
  kafka(): EventSinkResource {
    return new EventSinkResource(this.#context(), "kafka");
  }

  /**
   * The way to build a service: for one connection (the `default` connection built from `server_url` /
   * `api_key` / `instance` / `timeout_ms`) or for named `connections`, with every other setting at its
   * default unless given. Throws a `ConfigurationException` naming the setting for an unknown key
   * (`serverUrl` → did you mean `server_url`?), a wrong type, a missing `server_url` or `api_key` (without
   * `connections`), or an api key that is not header-safe.
   */
  static make(config: GatewayConfig): GatewayService {
    const valid = validateConfig(config);
    for (const setting of ["server_url", "api_key"] as const) {
      if (valid.connections === undefined && valid[setting] === undefined) {
        throw new ConfigurationException(`Cannot configure gateway: "${setting}" is missing`, { setting });
      }
    }
    return new GatewayService(valid);
  }

  /**
   * A service configured from `GATEWAY_API_URL`, `GATEWAY_API_KEY`, `GATEWAY_INSTANCE` and
   * `GATEWAY_TIMEOUT_MS`, with `overrides` on top. Needs `--allow-env` for the variables you set (only when
   * called): one the permissions do not allow is treated as unset, and named once per process on standard
   * error. The variables and the overrides are checked like any configuration (`ConfigurationException`).
   *
   * `env` reads the variables from an object instead of `Deno.env` (Workers bindings, or a test's own
   * environment).
   *
   * @example
   * ```ts
   * import { GatewayService } from "@gw/gateway";
   * const gw = GatewayService.fromEnv();
   * const fromBindings = GatewayService.fromEnv({}, { GATEWAY_API_URL: "http://localhost:8080", GATEWAY_API_KEY: "key" });
   * ```
   */
  static fromEnv(overrides: GatewayConfig = {}, env?: Record<string, unknown>): GatewayService {
    if (env === undefined && !(globalThis as { Deno?: typeof Deno }).Deno) {
      throw new ConfigurationException(
        "Cannot read the environment: not running on Deno; pass the bindings: GatewayService.fromEnv({}, env)",
      );
    }
    const reader = readerOf(env);
    const config = validateConfig(mergeConfig(configFromEnv(reader.get), objectOf(overrides)));
    if (!config.server_url && !config.connections) {
      const why = reader.denied.includes("GATEWAY_API_URL")
        ? "GATEWAY_API_URL cannot be read (add it to --allow-env)"
        : "GATEWAY_API_URL is not set";
      throw new ConfigurationException(`Cannot configure gateway: ${why}`, { setting: "GATEWAY_API_URL" });
    }
    return new GatewayService(config);
  }

  /**
   * A service configured from `gateway-api.json` (or `path`) merged with the `GATEWAY_*` environment
   * variables, which win. Needs `--allow-read` for the file and `--allow-env` for the variables you set (one
   * the permissions do not allow is treated as unset, and named once per process on standard error).
   *
   * `env` reads the variables from an object instead of `Deno.env`.
   */
  static async fromFile(
    path: string = CONFIG_FILE,
    overrides: GatewayConfig = {},
    env?: Record<string, unknown>,
  ): Promise<GatewayService> {
    const file = await loadConfigFile(path);
    // A variable the permissions do not allow is treated as unset (and named once); a bad one is an error.
    const fromEnv = configFromEnv(readerOf(env).get);
    const config = validateConfig(
      mergeConfig(mergeEnvConfig(serviceConfig(file ?? {}), fromEnv), objectOf(overrides)),
    );
    if (!config.server_url && !config.connections) {
      throw new ConfigurationException(
        `Cannot configure gateway: no "${path}" and GATEWAY_API_URL is not set`,
        { setting: "GATEWAY_API_URL" },
      );
    }
    return new GatewayService(config);
  }
}

/**
 * The overrides, refused unless an object: they are checked with the merged configuration (once), and a
 * merge would spread anything else into keys.
 */
function objectOf(overrides: GatewayConfig): GatewayConfig {
  return isRecord(overrides) ? overrides : validateConfig(overrides);
}

/** `Deno.env` through {@link envReader}, or the given object's string values. */
function readerOf(env: Record<string, unknown> | undefined) {
  if (env === undefined) return envReader();
  return envReader({
    access: (name) => ({
      value: typeof env[name] === "string" ? env[name] as string : undefined,
      denied: false,
    }),
  });
}
