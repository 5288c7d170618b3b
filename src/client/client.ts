import { type GatewayConfig, validateConfig } from "../config.ts";
import { GatewayApiException, RateLimitException } from "../errors.ts";
import { getGatewayLogger } from "../log.ts";
import type { Logger } from "@logtape/logtape";
import { abortableSleep, SharedTimeouts } from "../timing.ts";
import { MetricsCollector } from "../metrics.ts";
import type { RateLimitBucket } from "../ratelimit/limiter.ts";
import type { ConnectionManager } from "./connection_manager.ts";
import { globalFetch, sendFetch } from "./send_fetch.ts";
import {
  type HttpMethod,
  instanceFor,
  type PreparedRequest,
  prepareRequest,
  type PrepareSettings,
  type RequestOptions,
} from "./prepared_request.ts";
import { type RequestRuntime, runRequest } from "./request.ts";
import type { ApiResponse } from "./response.ts";
import { retryPolicy } from "./retry.ts";

export { abortableSleep };
export {
  buildPath,
  type HttpMethod,
  type PreparedRequest,
  type QueryValues,
  type RequestOptions,
  VERSION,
} from "./prepared_request.ts";

/** What the client asks the rate limiter, once per logical call. */
export interface RateLimitRequest {
  /** Connection name. */
  connection: string;
  /** Instance name, when the call has one. */
  instance?: string;
  /** Bucket chosen by the resource method. */
  bucket: RateLimitBucket;
  /** The call's abort signal. */
  signal?: AbortSignal;
  /** The call's overall deadline (epoch ms). */
  deadlineAt: number;
}

/** The rate-limit check the client runs before the first attempt of every call. */
export interface RequestGate {
  /** Resolves when the call may go; throws `RateLimitException` when it may not. */
  acquire(request: RateLimitRequest): Promise<void>;
  /**
   * True when the call's slot was taken at once (the client then sends with no wait of its own); false leaves
   * the call to `acquire`. Optional: a gate without it is always asked through `acquire`.
   */
  acquireNow?(request: RateLimitRequest): boolean;
}

/** Things the client needs from outside, injectable for tests. */
export interface ClientDependencies {
  /** Connections. */
  connections: ConnectionManager;
  /** Metrics collector. */
  metrics?: MetricsCollector;
  /** Rate-limit check (default: none). */
  gate?: RequestGate;
  /** The fetch for every request (called with an undefined `this`); default: sends use `send_fetch.ts`'s. */
  fetch?: typeof fetch;
  /** Clock in epoch ms. */
  now?: () => number;
  /** Abortable sleep: rejects with `signal.reason` when aborted. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Random number in [0, 1) for jitter. */
  random?: () => number;
}

/**
 * Sends requests to gateway servers. Usually reached through `GatewayService`; use it directly for routes
 * the resources do not cover.
 *
 * @example
 * ```ts
 * import { ConnectionManager, GatewayClient } from "@gw/gateway";
 * const client = new GatewayClient({}, {
 *   connections: new ConnectionManager({ server_url: "http://localhost:8080", api_key: "key", instance: "sales" }),
 * });
 * const res = await client.request("GET", "/instance/connectionState/{instance}");
 * console.log(res.json("instance.state"));
 * ```
 */
export class GatewayClient {
  readonly #connections: ConnectionManager;
  readonly #metrics: MetricsCollector;
  readonly #gate?: RequestGate;
  readonly #settings: PrepareSettings;
  readonly #runtime: RequestRuntime;
  readonly #log: Logger;
  readonly #outcomeLevel: "debug" | "info";

  /** Build a client from the configuration's `http` and `retry` sections and its dependencies. */
  constructor(config: GatewayConfig, dependencies: ClientDependencies) {
    const valid = validateConfig(config);
    const now = dependencies.now ?? Date.now;
    const policy = retryPolicy(valid.retry);
    this.#connections = dependencies.connections;
    this.#metrics = dependencies.metrics ?? new MetricsCollector({ enabled: false });
    this.#gate = dependencies.gate;
    this.#log = getGatewayLogger(...(valid.logging?.category ?? []), "client");
    this.#outcomeLevel = valid.logging?.level ?? "info";
    this.#settings = { connections: this.#connections, config: valid, maxRetries: policy.maxRetries, now };
    const injected = dependencies.fetch ?? valid.fetch;
    this.#runtime = {
      fetch: injected ?? globalFetch,
      sendFetch: injected ?? sendFetch(),
      now,
      sleep: dependencies.sleep ?? abortableSleep,
      random: dependencies.random ?? Math.random,
      policy,
      timeouts: new SharedTimeouts(),
      metrics: this.#metrics,
      log: this.#log,
    };
  }

  /** The client's abortable sleep (injected in tests), for helpers that poll, such as `waitForConnection`. */
  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    const sleep = this.#runtime.sleep;
    return sleep(ms, signal);
  }

  /** The client's clock in epoch ms (injected in tests). */
  now(): number {
    const now = this.#runtime.now;
    return now();
  }

  /** The connection manager this client resolves names with. */
  getConnectionManager(): ConnectionManager {
    return this.#connections;
  }

  /** The instance of a call (given, else the connection's); none throws `InstanceNotFoundException`. */
  resolveInstance(instance?: string, connection?: string): string {
    return instanceFor(instance, this.#connections.getConnection(connection));
  }

  /** Send one logical request (with retries); a failure throws the matching `GatewayApiException`. */
  request<T = unknown>(
    method: HttpMethod,
    route: string,
    options: RequestOptions = {},
  ): Promise<ApiResponse<T>> {
    // prepare() throws synchronously on bad options; a rejected promise is what callers expect.
    try {
      return this.send<T>(this.prepare(method, route, options));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /**
   * Resolve a request once, before anything is sent (options checked, URL, headers, body, deadline); the send
   * pipeline reads it instead of resolving again. {@link GatewayClient.send} sends it.
   *
   * @example
   * ```ts
   * import { ConnectionManager, GatewayClient } from "@gw/gateway";
   * const client = new GatewayClient({}, {
   *   connections: new ConnectionManager({ server_url: "http://localhost:8080", api_key: "k", instance: "sales" }),
   * });
   * const call = client.prepare("GET", "/instance/connectionState/{instance}");
   * console.log(call.url); // "http://localhost:8080/instance/connectionState/sales"
   * ```
   */
  prepare(method: HttpMethod, route: string, options: RequestOptions = {}): PreparedRequest {
    return prepareRequest(this.#settings, method, route, options);
  }

  /** Send a prepared request: take its rate-limit slot, attempt it (with retries), and record the outcome. */
  send<T = unknown>(call: PreparedRequest): Promise<ApiResponse<T>> {
    // One promise chain, no async layer of its own: on a fast local round trip each layer costs more than
    // its share (see bench/README.md, "Client overhead").
    // Asked once per call: when the outcome's level is off, so is the attempts' debug level below it.
    const logged = this.#log.isEnabledFor(this.#outcomeLevel);
    const waiting = this.#gate === undefined ? undefined : this.#slot(call, this.#gate);
    const answered = waiting === undefined
      ? runRequest<T>(this.#runtime, call, logged)
      : waiting.then(() => runRequest<T>(this.#runtime, call, logged));
    return answered.then(
      (response) => this.#recordSuccess(call, response, logged),
      (error) => {
        if (error instanceof GatewayApiException) this.#recordFailure(call, error, logged);
        throw error;
      },
    );
  }

  /** Count a successful call and write its one log record. */
  #recordSuccess<T>(call: PreparedRequest, response: ApiResponse<T>, logged: boolean): ApiResponse<T> {
    this.#metrics.request(call.method, call.route, response.status, response.durationMs);
    if (logged) {
      this.#logOutcome("{method} {route} {status} in {durationMs} ms after {attempts} attempt(s)", {
        method: call.method,
        route: call.route,
        path: call.path,
        status: response.status,
        durationMs: response.durationMs,
        attempts: response.attempts,
      });
    }
    return response;
  }

  /**
   * Take the call's rate-limit slot: undefined when taken at once, else the wait for it (a refusal names the
   * request).
   */
  #slot(call: PreparedRequest, gate: RequestGate): Promise<void> | undefined {
    const request: RateLimitRequest = {
      connection: call.connection.name,
      instance: call.instance,
      bucket: call.bucket,
      signal: call.signal,
      deadlineAt: call.deadlineAt,
    };
    let acquired: Promise<void>;
    try {
      if (gate.acquireNow?.(request) === true) return undefined;
      // Resolved, not awaited: a gate given from outside may answer without a promise, or throw.
      acquired = Promise.resolve(gate.acquire(request));
    } catch (error) {
      acquired = Promise.reject(error);
    }
    return acquired.catch((error) => {
      if (!(error instanceof RateLimitException)) throw error;
      throw new RateLimitException(error.message, {
        method: call.method,
        path: call.path,
        connection: call.connection.name,
        instance: call.instance,
        attempts: 0,
        cause: error.cause,
      }, error.retryAfter);
    });
  }

  /** Count a failed call and write its one log record. */
  #recordFailure(call: PreparedRequest, error: GatewayApiException, logged: boolean): void {
    const durationMs = this.#runtime.now() - call.startedAt;
    const status = error.status ?? "error";
    this.#metrics.request(call.method, call.route, status, durationMs);
    this.#metrics.error(error.name);
    if (logged) {
      this.#logOutcome("{method} {route} failed: {status} after {attempts} attempt(s) in {durationMs} ms", {
        method: call.method,
        route: call.route,
        path: call.path,
        status,
        attempts: error.attempts ?? 0,
        durationMs,
        error: error.name,
      });
    }
  }

  /** The one record each request writes when it ends, at the configured `logging.level`. */
  #logOutcome(message: string, properties: Record<string, unknown>): void {
    if (this.#outcomeLevel === "debug") this.#log.debug(message, properties);
    else this.#log.info(message, properties);
  }
}
