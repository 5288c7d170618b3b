/**
 * The request pipeline: one loop that resolves the connection, checks the rate limit once, sends, and
 * retries by the rules in `retry.ts`.
 *
 * @module
 */

import { DEFAULTS, type GatewayConfig, validateConfig } from "../config.ts";
import { MAX_TIMER_MS } from "../config_schema.ts";
import {
  ConnectionException,
  errorFromResponse,
  GatewayApiException,
  type GatewayErrorContext,
  InstanceNotFoundException,
  parseRetryAfter,
  RateLimitException,
  ResponseTooLargeException,
  ValidationException,
} from "../errors.ts";
import { getGatewayLogger, redact } from "../log.ts";
import type { Logger } from "@logtape/logtape";
import { readBoundedText } from "./body.ts";
import { abortableSleep, SharedTimeouts } from "../timing.ts";

export { abortableSleep };
import { MetricsCollector } from "../metrics.ts";
import type { RateLimitBucket } from "../ratelimit/limiter.ts";
import type { ConnectionManager, ResolvedConnection } from "./connection_manager.ts";
import { ApiResponse } from "./response.ts";
import {
  backoffDelay,
  failedBeforeSending,
  NOT_ACTED_STATUSES,
  RETRYABLE_STATUSES,
  type RetryPolicy,
  retryPolicy,
} from "./retry.ts";

/** The package version, sent in the `user-agent` header. */
export const VERSION = "0.1.0";

/** HTTP methods the gateway server uses. */
export type HttpMethod = "GET" | "POST" | "PUT" | "DELETE";

/** Query values; undefined entries are left out. */
export type QueryValues = Record<string, string | number | boolean | undefined | null>;

/** Per-call options (camelCase). */
export interface RequestOptions {
  /** Values for `{name}` placeholders of the route, percent-encoded. */
  params?: Record<string, string>;
  /** Query string values. */
  query?: QueryValues;
  /** JSON body. */
  body?: unknown;
  /** Extra headers (cannot replace `apikey`). */
  headers?: HeadersInit;
  /** Cancels the request and any backoff wait at once. */
  signal?: AbortSignal;
  /** Per-attempt timeout in ms. */
  timeoutMs?: number;
  /** Overall deadline in ms across attempts and waits. */
  deadlineMs?: number;
  /** Retries after the first attempt. */
  maxRetries?: number;
  /** Whether repeating the request is harmless (default: true for GET, PUT and DELETE, false for POST). */
  idempotent?: boolean;
  /** Connection name (default: the active connection). */
  connection?: string;
  /** Instance name for `{instance}` (default: the connection's `instance`). */
  instance?: string;
  /** Rate-limit bucket (default `default`). */
  bucket?: RateLimitBucket;
  /** Sent as `idempotency-key` for relays and proxies that honour it (the reference server ignores it). */
  idempotencyKey?: string;
  /**
   * The answer carries media (base64): its body is bounded by `http.max_media_response_bytes` instead of
   * `http.max_response_bytes`.
   */
  mediaResponse?: boolean;
  /** Largest answer body read for this call, in bytes (overrides both configured limits). */
  maxResponseBytes?: number;
  /**
   * How long the server waits on purpose before answering (a send's typing `delay`): added to the attempt
   * timeout and the deadline, so a long delay is not taken for a hung server.
   */
  serverDelayMs?: number;
}

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
}

/** Things the client needs from outside, injectable for tests. */
export interface ClientDependencies {
  /** Connections. */
  connections: ConnectionManager;
  /** Metrics collector. */
  metrics?: MetricsCollector;
  /** Rate-limit check (default: none). */
  gate?: RequestGate;
  /** The fetch to use; called with an undefined `this`. */
  fetch?: typeof fetch;
  /** Clock in epoch ms. */
  now?: () => number;
  /** Abortable sleep: rejects with `signal.reason` when aborted. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Random number in [0, 1) for jitter. */
  random?: () => number;
}

const DOT_SEGMENT = /^\.{1,2}$/;

/** Route templates split once; a service uses a few dozen. */
const templates = new Map<string, string[]>();

/**
 * Fill a route template: `{name}` placeholders are replaced by percent-encoded values, so no value can change
 * the route (`a/../b` and `x?y` stay one segment). `.` and `..` are refused because URL parsers collapse them.
 *
 * @example
 * ```ts
 * import { buildPath } from "./client.ts";
 * buildPath("/message/sendText/{instance}", { instance: "sales team" }); // "/message/sendText/sales%20team"
 * ```
 */
export function buildPath(route: string, values: Record<string, string | undefined>): string {
  let parts = templates.get(route);
  if (parts === undefined) {
    // "/a/{x}/b" → ["/a/", "x", "/b"]: literals at even indexes, placeholder names at odd ones.
    parts = route.split(/\{(\w+)\}/);
    if (templates.size < 1000) templates.set(route, parts);
  }
  let path = parts[0];
  for (let i = 1; i < parts.length; i += 2) {
    const name = parts[i];
    const value = values[name];
    if (value === undefined || value === "") {
      throw new ValidationException(`Cannot build request path: "${name}" is required for ${route}`, {
        messages: [`${name} is required`],
      });
    }
    if (DOT_SEGMENT.test(value)) {
      throw new ValidationException(`Cannot build request path: "${name}" cannot be "${value}"`, {
        messages: [`${name} cannot be "${value}"`],
      });
    }
    path += encodeURIComponent(value) + parts[i + 1];
  }
  return path;
}

function markOutcomeUnknown(error: ConnectionException): ConnectionException {
  return new ConnectionException(error.message, {
    status: error.status,
    body: error.body,
    messages: error.messages,
    method: error.method,
    path: error.path,
    connection: error.connection,
    instance: error.instance,
    attempts: error.attempts,
    reason: error.reason,
    timedOut: error.timedOut,
    outcomeUnknown: true,
  });
}

function isAbortFrom(signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true;
}

/**
 * `value` with every occurrence of `key` replaced, in strings, array items and property names alike (a server
 * echoing the key as a JSON property name would otherwise leak it through `JSON.stringify(error)`).
 */
function scrubKey(value: unknown, key: string): unknown {
  if (typeof value === "string") return value.includes(key) ? value.split(key).join("[REDACTED]") : value;
  if (Array.isArray(value)) return value.map((item) => scrubKey(item, key));
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value).map(([name, item]) => [scrubKey(name, key), scrubKey(item, key)]),
    );
  }
  return value;
}

/** A body cut at the size limit may end with the first part of the key: drop that part too. */
function scrubCutKey(text: string, key: string): string {
  for (let length = key.length - 1; length >= 4; length--) {
    if (text.endsWith(key.slice(0, length))) return `${text.slice(0, -length)}[REDACTED]`;
  }
  return text;
}

/** Largest error body read: error answers are small JSON, anything bigger is a proxy's page. */
const ERROR_BODY_LIMIT = 64 * 1024;

/** The parsed JSON body, or the raw text when it is not JSON (null when empty); read up to `limit` bytes. */
async function readBody(
  response: Response,
  limit: number,
  success: boolean,
): Promise<{ json: unknown; raw: unknown; truncated: boolean }> {
  const { text, truncated } = await readBoundedText(response, limit, success);
  if (text === "") return { json: null, raw: null, truncated };
  if (truncated) return { json: null, raw: text, truncated };
  try {
    const json = JSON.parse(text);
    return { json, raw: json, truncated };
  } catch {
    return { json: null, raw: text, truncated };
  }
}

function checkMs(name: string, value: number | undefined): void {
  if (value === undefined) return;
  if (typeof value !== "number" || !(value > 0) || value > MAX_TIMER_MS) {
    throw new ValidationException(
      `Invalid request option: "${name}" must be a number of ms from 1 to ${MAX_TIMER_MS}, got ${
        String(value)
      }`,
      { messages: [`${name} must be a number of ms from 1 to ${MAX_TIMER_MS}`] },
    );
  }
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
  readonly #config: GatewayConfig;
  readonly #connections: ConnectionManager;
  readonly #metrics: MetricsCollector;
  readonly #gate?: RequestGate;
  readonly #fetch: typeof fetch;
  readonly #now: () => number;
  readonly #sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  readonly #random: () => number;
  readonly #policy: RetryPolicy;
  readonly #timeouts = new SharedTimeouts();
  readonly #log: Logger;
  readonly #outcomeLevel: "debug" | "info";
  readonly #maxResponseBytes: number;
  readonly #maxMediaResponseBytes: number;

  /**
   * Build a client from the configuration's `http` and `retry` sections and its dependencies.
   *
   * @example
   * ```ts
   * import { ConnectionManager, GatewayClient } from "@gw/gateway";
   * new GatewayClient({ retry: { max_retries: 0 } }, {
   *   connections: new ConnectionManager({ server_url: "http://localhost:8080", api_key: "key" }),
   * });
   * ```
   */
  constructor(config: GatewayConfig, dependencies: ClientDependencies) {
    this.#config = validateConfig(config);
    this.#connections = dependencies.connections;
    this.#metrics = dependencies.metrics ?? new MetricsCollector({ enabled: false });
    this.#gate = dependencies.gate;
    const fetcher = dependencies.fetch ?? config.fetch;
    // Workers throws "Illegal invocation" when fetch is called with a `this` other than undefined/global.
    this.#fetch = fetcher ?? ((input, init) => globalThis.fetch(input, init));
    this.#now = dependencies.now ?? Date.now;
    this.#sleep = dependencies.sleep ?? abortableSleep;
    this.#random = dependencies.random ?? Math.random;
    this.#policy = retryPolicy(config.retry);
    this.#log = getGatewayLogger(...(config.logging?.category ?? []), "client");
    this.#outcomeLevel = config.logging?.level ?? "info";
    this.#maxResponseBytes = config.http?.max_response_bytes ?? DEFAULTS.max_response_bytes;
    this.#maxMediaResponseBytes = config.http?.max_media_response_bytes ?? DEFAULTS.max_media_response_bytes;
  }

  /** The one record each request writes when it ends, at the configured `logging.level`. */
  #logOutcome(message: string, properties: Record<string, unknown>): void {
    if (this.#outcomeLevel === "debug") this.#log.debug(message, properties);
    else this.#log.info(message, properties);
  }

  /**
   * The client's abortable sleep (injected in tests), for helpers that poll, such as `waitForConnection`.
   *
   * @example
   * ```ts
   * import { ConnectionManager, GatewayClient } from "@gw/gateway";
   * const client = new GatewayClient({}, { connections: new ConnectionManager() });
   * await client.sleep(1);
   * ```
   */
  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    const sleep = this.#sleep;
    return sleep(ms, signal);
  }

  /**
   * The client's clock in epoch ms (injected in tests).
   *
   * @example
   * ```ts
   * import { ConnectionManager, GatewayClient } from "@gw/gateway";
   * new GatewayClient({}, { connections: new ConnectionManager() }).now();
   * ```
   */
  now(): number {
    const now = this.#now;
    return now();
  }

  /**
   * The connection manager this client resolves names with.
   *
   * @example
   * ```ts
   * import { ConnectionManager, GatewayClient } from "@gw/gateway";
   * const client = new GatewayClient({}, { connections: new ConnectionManager() });
   * client.getConnectionManager().getConnectionNames(); // []
   * ```
   */
  getConnectionManager(): ConnectionManager {
    return this.#connections;
  }

  /**
   * Resolve the instance a call is for: the given one, else the connection's default; throws
   * `InstanceNotFoundException` (before any request) when there is none.
   *
   * @example
   * ```ts
   * import { ConnectionManager, GatewayClient } from "@gw/gateway";
   * const client = new GatewayClient({}, {
   *   connections: new ConnectionManager({ server_url: "http://localhost:8080", api_key: "k", instance: "sales" }),
   * });
   * client.resolveInstance(); // "sales"
   * ```
   */
  resolveInstance(instance?: string, connection?: string): string {
    if (instance !== undefined) {
      if (typeof instance !== "string" || instance.trim() === "") {
        throw new ValidationException("Invalid instance name: expected a non-empty string", {
          messages: ["instance must be a non-empty string"],
        });
      }
      return instance;
    }
    const resolved = this.#connections.getConnection(connection);
    if (resolved.instance === undefined) {
      throw new InstanceNotFoundException(
        `No instance given: pass one, use gw.instance(name), or set "instance" on connection "${resolved.name}"`,
        { connection: resolved.name },
      );
    }
    return resolved.instance;
  }

  /**
   * Send one logical request (with retries) and return the answer; throws the matching
   * `GatewayApiException` subclass on failure.
   *
   * @example
   * ```ts
   * import { ConnectionManager, GatewayClient } from "@gw/gateway";
   * const client = new GatewayClient({}, {
   *   connections: new ConnectionManager({ server_url: "http://localhost:8080", api_key: "key" }),
   * });
   * await client.request("POST", "/message/sendText/{instance}", {
   *   instance: "sales",
   *   body: { number: "5511999999999", text: "Hi" },
   *   idempotent: false,
   *   bucket: "messages",
   * });
   * ```
   */
  async request<T = unknown>(
    method: HttpMethod,
    route: string,
    options: RequestOptions = {},
  ): Promise<ApiResponse<T>> {
    checkMs("timeoutMs", options.timeoutMs);
    checkMs("deadlineMs", options.deadlineMs);
    if (
      options.maxResponseBytes !== undefined &&
      !(Number.isInteger(options.maxResponseBytes) && options.maxResponseBytes > 0)
    ) {
      throw new ValidationException(
        `Invalid request option: "maxResponseBytes" must be a positive integer, got ${
          String(options.maxResponseBytes)
        }`,
        { messages: ["maxResponseBytes must be a positive integer"] },
      );
    }
    const connection = this.#connections.getConnection(options.connection);
    const needsInstance = route.includes("{instance}");
    const instance = needsInstance
      ? this.resolveInstance(options.instance, connection.name)
      : options.instance;
    const path = buildPath(route, options.params ? { ...options.params, instance } : { instance });
    const url = this.#url(connection, path, options.query);
    const headers = this.#headers(connection, options);
    const body = options.body === undefined ? undefined : JSON.stringify(options.body);
    const idempotent = options.idempotent ?? method !== "POST";
    const maxRetries = options.maxRetries ?? this.#policy.maxRetries;
    const serverDelayMs = Math.max(0, options.serverDelayMs ?? 0);
    const timeoutMs = serverDelayMs +
      (options.timeoutMs ?? connection.timeout_ms ?? this.#config.http?.timeout_ms ?? DEFAULTS.timeout_ms);
    const started = this.#now();
    const deadlineAt = started + serverDelayMs +
      (options.deadlineMs ?? this.#config.http?.deadline_ms ?? DEFAULTS.deadline_ms);
    const context: GatewayErrorContext = { method, path, connection: connection.name, instance };
    const signal = options.signal;

    const finish = (error: unknown, attempts: number, status: number | "error"): never => {
      this.#metrics.request(method, route, status, this.#now() - started);
      if (error instanceof GatewayApiException) this.#metrics.error(error.name);
      if (this.#log.isEnabledFor(this.#outcomeLevel)) {
        this.#logOutcome("{method} {route} failed: {status} after {attempts} attempt(s) in {durationMs} ms", {
          method,
          route,
          path,
          status,
          attempts,
          durationMs: this.#now() - started,
          error: error instanceof Error ? error.name : String(error),
        });
      }
      throw error;
    };

    // After a failed attempt: wait the backoff and report true when another attempt fits the budget.
    const backoff = async (attempt: number, reason: string): Promise<boolean> => {
      if (attempt > maxRetries) return false;
      const delay = backoffDelay(this.#policy, attempt - 1, this.#random);
      if (this.#now() + delay >= deadlineAt) return false;
      this.#metrics.retry(reason);
      await this.#sleep(delay, signal);
      return true;
    };

    if (this.#gate) {
      try {
        await this.#gate.acquire({
          connection: connection.name,
          instance,
          bucket: options.bucket ?? "default",
          signal,
          deadlineAt,
        });
      } catch (error) {
        if (error instanceof GatewayApiException) {
          const detailed = error instanceof RateLimitException
            ? new RateLimitException(
              error.message,
              { ...context, attempts: 0, cause: error.cause },
              error.retryAfter,
            )
            : error;
          finish(detailed, 0, "error");
        }
        throw error;
      }
    }

    for (let attempt = 1;; attempt++) {
      const remaining = deadlineAt - this.#now();
      if (remaining <= 0) {
        finish(
          new ConnectionException(`Cannot complete ${method} ${path}: deadline passed`, {
            ...context,
            attempts: attempt - 1,
            reason: "deadline",
            timedOut: true,
            outcomeUnknown: !idempotent && attempt > 1,
          }),
          attempt - 1,
          "error",
        );
      }
      const attemptTimeout = Math.min(timeoutMs, remaining);
      if (signal?.aborted) throw signal.reason;
      const timeout = this.#timeouts.signal(attemptTimeout);
      const attemptSignal = signal ? AbortSignal.any([signal, timeout]) : timeout;
      if (this.#log.isEnabledFor("debug")) {
        // The request as sent, with the apikey header, tokens, secrets and base64 media redacted.
        this.#log.debug("{method} {route} attempt {attempt}", {
          method,
          route,
          path,
          attempt,
          query: options.query,
          headers: redact(headers),
          body: redact(options.body),
        });
      }

      let response: Response;
      try {
        const fetcher = this.#fetch;
        response = await fetcher(url, { method, headers, body, signal: attemptSignal });
      } catch (error) {
        if (isAbortFrom(signal)) throw signal!.reason;
        const timedOut = timeout.aborted;
        const notSent = !timedOut && failedBeforeSending(error);
        const reason = timedOut ? "timeout" : "network";
        if ((idempotent || notSent) && await backoff(attempt, reason)) continue;
        finish(
          new ConnectionException(
            timedOut
              ? `Cannot complete ${method} ${path}: no answer within ${attemptTimeout} ms`
              : `Cannot reach gateway server for ${method} ${path}: ${
                scrubKey(error instanceof Error ? error.message : String(error), connection.api_key)
              }`,
            {
              ...context,
              attempts: attempt,
              cause: error,
              reason,
              timedOut,
              outcomeUnknown: !idempotent && !notSent,
            },
          ),
          attempt,
          "error",
        );
      }

      const status = response!.status;
      const retryableStatus = idempotent ? RETRYABLE_STATUSES.has(status) : NOT_ACTED_STATUSES.has(status);
      if (retryableStatus && attempt <= maxRetries && status !== 503) {
        // A retried answer's body is never read: #retryWait cancels it so the connection is freed at once.
        const outcome = await this.#retryWait(response!, attempt, deadlineAt, context, signal);
        if (outcome === "retry") continue;
        if (outcome !== "no_time") finish(outcome, attempt, status);
      }

      const success = status >= 200 && status < 300;
      const limit = options.maxResponseBytes ??
        (options.mediaResponse ? this.#maxMediaResponseBytes : this.#maxResponseBytes);
      let answer: { json: unknown; raw: unknown; truncated: boolean };
      try {
        answer = await readBody(response!, success ? limit : Math.min(limit, ERROR_BODY_LIMIT), success);
      } catch (error) {
        if (isAbortFrom(signal)) throw signal!.reason;
        if (idempotent && await backoff(attempt, timeout.aborted ? "timeout" : "network")) continue;
        finish(
          new ConnectionException(`Cannot read answer of ${method} ${path}`, {
            ...context,
            attempts: attempt,
            cause: error,
            reason: timeout.aborted ? "timeout" : "network",
            timedOut: timeout.aborted,
            outcomeUnknown: !idempotent,
          }),
          attempt,
          status,
        );
      }
      if (answer!.truncated && success) {
        finish(
          new ResponseTooLargeException(
            `Cannot read answer of ${method} ${path}: the body is larger than ${limit} bytes (${
              options.mediaResponse ? "http.max_media_response_bytes" : "http.max_response_bytes"
            })`,
            { ...context, status, attempts: attempt },
            limit,
          ),
          attempt,
          status,
        );
      }
      const data = answer!.json;
      const raw = answer!.truncated && typeof answer!.raw === "string"
        ? scrubCutKey(answer!.raw, connection.api_key)
        : answer!.raw;
      // Only an error's copy of the body is scrubbed: a server echoing the key must not leak it into logs,
      // while a successful body is the caller's data and stays as it came.
      const error = errorFromResponse(
        status,
        status >= 200 && status < 300 && (data as { error?: unknown } | null)?.error !== true
          ? data
          : scrubKey(raw, connection.api_key),
        response!.headers,
        { ...context, attempts: attempt },
        this.#now(),
      );
      if (!error) {
        const durationMs = this.#now() - started;
        this.#metrics.request(method, route, status, durationMs);
        if (this.#log.isEnabledFor(this.#outcomeLevel)) {
          this.#logOutcome("{method} {route} {status} in {durationMs} ms after {attempts} attempt(s)", {
            method,
            route,
            path,
            status,
            durationMs,
            attempts: attempt,
          });
        }
        return new ApiResponse<T>(status, response!.headers, data as T, durationMs, attempt);
      }
      const licenseBlocked = error instanceof ConnectionException && error.reason === "license_required";
      if (
        !idempotent && error instanceof ConnectionException && error.reason === "server_error" &&
        status !== 503
      ) {
        // A 5xx other than 503 (a proxy's 502/504, a crash after the send) does not prove the server did
        // nothing: a resend could deliver twice.
        finish(markOutcomeUnknown(error), attempt, status);
      }
      if (status === 503 && retryableStatus && !licenseBlocked && attempt <= maxRetries) {
        const outcome = await this.#retryWait(response!, attempt, deadlineAt, context, signal);
        if (outcome === "retry") continue;
        if (outcome !== "no_time") finish(outcome, attempt, status);
      }
      finish(error, attempt, status);
    }
  }

  /**
   * Wait before retrying an answered attempt. "no_time" when a backoff does not fit the deadline (the caller
   * then reports the answer itself); a `RateLimitException` when `Retry-After` asks for longer than the client
   * may wait, so the caller fails at once instead of retrying early.
   */
  async #retryWait(
    response: Response,
    attempt: number,
    deadlineAt: number,
    context: GatewayErrorContext,
    signal: AbortSignal | undefined,
  ): Promise<"retry" | "no_time" | RateLimitException> {
    const now = this.#now();
    const retryAfterMs = parseRetryAfter(response.headers, now);
    let delay: number;
    if (retryAfterMs !== null) {
      if (retryAfterMs > this.#policy.maxRetryAfterMs || now + retryAfterMs > deadlineAt) {
        if (!response.bodyUsed) await response.body?.cancel();
        const seconds = Math.ceil(retryAfterMs / 1000);
        return new RateLimitException(
          `Gateway asked to wait ${seconds} s before retrying ${context.method} ${context.path}`,
          { ...context, status: response.status, attempts: attempt },
          seconds,
        );
      }
      delay = retryAfterMs;
    } else {
      delay = backoffDelay(this.#policy, attempt - 1, this.#random);
    }
    if (now + delay >= deadlineAt) return "no_time";
    if (!response.bodyUsed) await response.body?.cancel();
    this.#metrics.retry(`status_${response.status}`);
    await this.#sleep(delay, signal);
    return "retry";
  }

  #url(connection: ResolvedConnection, path: string, query?: QueryValues): string {
    let url = connection.server_url + path;
    if (query) {
      const search = new URLSearchParams();
      for (const [key, value] of Object.entries(query)) {
        if (value !== undefined && value !== null) search.append(key, String(value));
      }
      const text = search.toString();
      if (text !== "") url += `?${text}`;
    }
    return url;
  }

  #headers(connection: ResolvedConnection, options: RequestOptions): Record<string, string> {
    // A plain record is cheaper than a Headers object on the hot path; fetch builds its own anyway.
    const headers: Record<string, string> = {};
    if (options.headers !== undefined) {
      new Headers(options.headers).forEach((value, name) => {
        headers[name] = value;
      });
    }
    headers["apikey"] = connection.api_key;
    headers["accept"] = "application/json";
    headers["user-agent"] ??= `gw-gateway/${VERSION}`;
    if (options.body !== undefined) headers["content-type"] = "application/json";
    if (options.idempotencyKey) headers["idempotency-key"] = options.idempotencyKey;
    return headers;
  }
}
