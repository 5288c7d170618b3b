import { DEFAULTS, type GatewayConfig } from "../config.ts";
import { MAX_TIMER_MS } from "../util/timers.ts";
import { MAX_SERVER_DELAY_MS } from "../timing.ts";
import { checkIdempotencyKey } from "../store/idempotency.ts";
import { InstanceNotFoundException, ValidationException } from "../errors.ts";
import type { RateLimitBucket } from "../ratelimit/limiter.ts";
import type { ConnectionManager, ResolvedConnection } from "./connection_manager.ts";

/** The package version, sent in the `user-agent` header. */
export const VERSION = "0.1.0";

const USER_AGENT = `gw-gateway/${VERSION}`;

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
  /** Retries after the first attempt: an integer from 0 to 100. */
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
  /** The answer carries media: bounded by `http.max_media_response_bytes`, not `max_response_bytes`. */
  mediaResponse?: boolean;
  /** Largest answer body read for this call, in bytes (overrides both configured limits). */
  maxResponseBytes?: number;
  /**
   * The server's deliberate wait before answering (a send's typing `delay`, 0 to 300 000 ms), added to
   * the attempt timeout and the deadline so it is not taken for a hung server.
   */
  serverDelayMs?: number;
}

/** A request resolved once, before its first attempt: the loop, rate limiter and send pipeline read it. */
export interface PreparedRequest {
  /** HTTP method. */
  method: HttpMethod;
  /** Route template (the metrics label). */
  route: string;
  /** Path with the placeholders filled in, without the server URL or the query. */
  path: string;
  /** Full URL. */
  url: string;
  /** Headers as sent (the api key included). */
  headers: Record<string, string>;
  /** JSON body as given (for the debug log, redacted there). */
  json: unknown;
  /** JSON body as sent. */
  body: string | undefined;
  /** Query values (for the debug log). */
  query: QueryValues | undefined;
  /** The connection. */
  connection: ResolvedConnection;
  /** Instance name, when the route has one. */
  instance: string | undefined;
  /** Whether repeating the request is harmless. */
  idempotent: boolean;
  /** Retries after the first attempt. */
  maxRetries: number;
  /** Rate-limit bucket. */
  bucket: RateLimitBucket;
  /** Per-attempt timeout in ms, the server's delay included. */
  attemptTimeoutMs: number;
  /** When the call began (epoch ms). */
  startedAt: number;
  /** The overall deadline (epoch ms), the server's delay included. */
  deadlineAt: number;
  /** Cancels the call. */
  signal: AbortSignal | undefined;
  /** Largest answer body read, in bytes. */
  responseLimit: number;
  /** The setting `responseLimit` comes from, named in the error when an answer is larger. */
  responseLimitSetting: string;
  /** The idempotency key sent as a header, when there is one. */
  idempotencyKey: string | undefined;
}

/** What preparing needs from the client. */
export interface PrepareSettings {
  /** Where connection names are resolved. */
  connections: ConnectionManager;
  /** The validated configuration (`http` and `retry` sections). */
  config: GatewayConfig;
  /** Retries after the first attempt when the call sets none. */
  maxRetries: number;
  /** The clock (epoch ms). */
  now: () => number;
}

const DOT_SEGMENT = /^\.{1,2}$/;

/** Route templates split once; a service uses a few dozen. */
const templates = new Map<string, string[]>();

/**
 * Fill a route template: `{name}` placeholders are replaced by percent-encoded values, so no value can change
 * the route (`a/../b` and `x?y` stay one segment). `.` and `..` are refused because URL parsers collapse them.
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

/** The instance of a call (given, else the connection's); no instance throws `InstanceNotFoundException`. */
export function instanceFor(instance: string | undefined, connection: ResolvedConnection): string {
  if (instance !== undefined) {
    if (typeof instance !== "string" || instance.trim() === "") {
      throw new ValidationException("Invalid instance name: expected a non-empty string", {
        messages: ["instance must be a non-empty string"],
      });
    }
    return instance;
  }
  if (connection.instance === undefined) {
    throw new InstanceNotFoundException(
      `No instance given: pass one, use gw.instance(name), or set "instance" on connection "${connection.name}"`,
      { connection: connection.name },
    );
  }
  return connection.instance;
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

/** Refuse `value` unless it is undefined or an integer from 0 to `max`. */
function checkInteger(name: string, value: number | undefined, max: number): void {
  if (value === undefined) return;
  if (typeof value !== "number" || !Number.isInteger(value) || value < 0 || value > max) {
    throw new ValidationException(
      `Invalid request option: "${name}" must be an integer from 0 to ${max}, got ${String(value)}`,
      { messages: [`${name} must be an integer from 0 to ${max}`] },
    );
  }
}

function checkOptions(options: RequestOptions): void {
  checkMs("timeoutMs", options.timeoutMs);
  checkMs("deadlineMs", options.deadlineMs);
  // The configuration's `retry.max_retries` takes the same range.
  checkInteger("maxRetries", options.maxRetries, 100);
  checkInteger("serverDelayMs", options.serverDelayMs, MAX_SERVER_DELAY_MS);
  // An empty key went out without its header, and a signal of another type failed as an unreachable server.
  if (options.idempotencyKey !== undefined) checkIdempotencyKey(options.idempotencyKey);
  // Read by shape: a signal of another realm is still a signal.
  if (
    options.signal !== undefined &&
    typeof (options.signal as { aborted?: unknown } | null)?.aborted !== "boolean"
  ) {
    throw new ValidationException(
      `Invalid request option: "signal" must be an AbortSignal, got ${
        options.signal === null ? "null" : typeof options.signal
      }`,
      { messages: ["signal must be an AbortSignal"] },
    );
  }
  const limit = options.maxResponseBytes;
  if (limit !== undefined && !(Number.isInteger(limit) && limit > 0)) {
    throw new ValidationException(
      `Invalid request option: "maxResponseBytes" must be a positive integer, got ${String(limit)}`,
      { messages: ["maxResponseBytes must be a positive integer"] },
    );
  }
}

function urlOf(connection: ResolvedConnection, path: string, query: QueryValues | undefined): string {
  if (!query) return connection.server_url + path;
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined && value !== null) search.append(key, String(value));
  }
  const text = search.toString();
  return text === "" ? connection.server_url + path : `${connection.server_url}${path}?${text}`;
}

/** A filled route and its full URL. */
interface Target {
  path: string;
  url: string;
}

/** Targets of calls with no params and no query, per connection, route and instance: each built once. */
const plainTargets = new WeakMap<ResolvedConnection, Map<string, Map<string, Target>>>();

function targetOf(
  connection: ResolvedConnection,
  route: string,
  instance: string | undefined,
  options: RequestOptions,
): Target {
  if (options.params !== undefined || options.query !== undefined) {
    const path = buildPath(route, options.params ? { ...options.params, instance } : { instance });
    return { path, url: urlOf(connection, path, options.query) };
  }
  let routes = plainTargets.get(connection);
  if (routes === undefined) plainTargets.set(connection, routes = new Map());
  let instances = routes.get(route);
  if (instances === undefined) {
    instances = new Map();
    if (routes.size < 1000) routes.set(route, instances);
  }
  const key = instance ?? "";
  let target = instances.get(key);
  if (target === undefined) {
    const path = buildPath(route, { instance });
    // Joined, not concatenated: a flat string, which fetch's URL parser takes on its fast path.
    target = { path, url: [connection.server_url, path].join("") };
    if (instances.size < 1000) instances.set(key, target);
  }
  return target;
}

/** The headers of calls with no header of their own, per connection: with a JSON body and without. */
const plainHeaders = new WeakMap<ResolvedConnection, [Record<string, string>, Record<string, string>]>();

function headersOf(connection: ResolvedConnection, options: RequestOptions): Record<string, string> {
  if (options.headers === undefined && !options.idempotencyKey) {
    // Most calls: a copy of one record per connection (a copy, so that a fetch wrapper may add to it).
    let shared = plainHeaders.get(connection);
    if (shared === undefined) {
      shared = [buildHeaders(connection, {}), buildHeaders(connection, { body: {} })];
      plainHeaders.set(connection, shared);
    }
    return { ...shared[options.body === undefined ? 0 : 1] };
  }
  return buildHeaders(connection, options);
}

function buildHeaders(connection: ResolvedConnection, options: RequestOptions): Record<string, string> {
  // A plain record is cheaper than a Headers object on the hot path; fetch builds its own anyway.
  const headers: Record<string, string> = {};
  if (options.headers !== undefined) {
    new Headers(options.headers).forEach((value, name) => {
      headers[name] = value;
    });
  }
  headers["apikey"] = connection.api_key;
  headers["accept"] = "application/json";
  headers["user-agent"] ??= USER_AGENT;
  if (options.body !== undefined) headers["content-type"] = "application/json";
  if (options.idempotencyKey) headers["idempotency-key"] = options.idempotencyKey;
  return headers;
}

/**
 * Resolve a request once: check the options, resolve the connection (one lookup) and the instance, fill the
 * route, build the URL, headers and body, and fix the time budget.
 */
export function prepareRequest(
  settings: PrepareSettings,
  method: HttpMethod,
  route: string,
  options: RequestOptions,
): PreparedRequest {
  checkOptions(options);
  const { config } = settings;
  const connection = settings.connections.getConnection(options.connection);
  const instance = route.includes("{instance}")
    ? instanceFor(options.instance, connection)
    : options.instance;
  const { path, url } = targetOf(connection, route, instance, options);
  const serverDelayMs = options.serverDelayMs ?? 0;
  const startedAt = settings.now();
  const timeoutMs = options.timeoutMs ?? connection.timeout_ms ?? config.http?.timeout_ms ??
    DEFAULTS.timeout_ms;
  const deadlineMs = options.deadlineMs ?? config.http?.deadline_ms ?? DEFAULTS.deadline_ms;
  const media = options.mediaResponse === true;
  return {
    method,
    route,
    path,
    url,
    headers: headersOf(connection, options),
    json: options.body,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
    query: options.query,
    connection,
    instance,
    idempotent: options.idempotent ?? method !== "POST",
    maxRetries: options.maxRetries ?? settings.maxRetries,
    bucket: options.bucket ?? "default",
    attemptTimeoutMs: serverDelayMs + timeoutMs,
    startedAt,
    deadlineAt: startedAt + serverDelayMs + deadlineMs,
    signal: options.signal,
    responseLimit: options.maxResponseBytes ??
      (media
        ? config.http?.max_media_response_bytes ?? DEFAULTS.max_media_response_bytes
        : config.http?.max_response_bytes ?? DEFAULTS.max_response_bytes),
    responseLimitSetting: options.maxResponseBytes !== undefined
      ? "maxResponseBytes"
      : media
      ? "http.max_media_response_bytes"
      : "http.max_response_bytes",
    idempotencyKey: options.idempotencyKey || undefined,
  };
}
