/**
 * Configuration: types, defaults and loading. Keys are snake_case because they form a configuration file
 * format (`gateway-api.json`); per-call options elsewhere are camelCase.
 *
 * @module
 */

import { CONNECTION_KEYS, optionsFromEnv } from "./config_keys.ts";
import { checkedConfig } from "./config_schema.ts";
import { ConfigurationException } from "./errors.ts";
import { parseJsonc } from "./jsonc.ts";
import type { RateLimiterInterface } from "./ratelimit/limiter.ts";
import type { GatewayStore } from "./store/store.ts";
import { isRecord } from "./util/json_shape.ts";
import { errorMessage } from "./util/error_message.ts";

/** One gateway server and the key to use on it. */
export interface ConnectionConfig {
  /** Absolute http(s) URL of the gateway server, e.g. `http://localhost:8080`. */
  server_url: string;
  /** The global api key, or an instance's token; sent as the `apikey` header, so visible ASCII only. */
  api_key: string;
  /** Default instance for instance-level calls on this connection. */
  instance?: string;
  /** Per-attempt timeout for this connection, in ms (overrides `http.timeout_ms`). */
  timeout_ms?: number;
}

/** HTTP timing. */
export interface HttpConfig {
  /** Per-attempt timeout in ms (default 30 000). */
  timeout_ms?: number;
  /** Overall deadline across attempts and backoff sleeps, in ms (default 90 000). */
  deadline_ms?: number;
  /**
   * Largest answer body read, in bytes (default 4 MiB): a larger success throws `ResponseTooLargeException`,
   * a larger error keeps its status's exception with the part read.
   */
  max_response_bytes?: number;
  /** Largest answer body of a media read such as `getBase64FromMediaMessage`, in bytes (default 64 MiB). */
  max_media_response_bytes?: number;
}

/** Retry policy. */
export interface RetryConfig {
  /** Retries after the first attempt (default 2, so 3 attempts). */
  max_retries?: number;
  /** First backoff delay in ms (default 500). */
  base_delay_ms?: number;
  /** Largest backoff delay in ms (default 8 000). */
  max_delay_ms?: number;
  /** Longest `Retry-After` the client waits for; a longer one throws `RateLimitException` (default 60 000). */
  max_retry_after_ms?: number;
  /** How long a send's `idempotencyKey` replays the first answer, in ms from its first send (default 24 h). */
  idempotency_window_ms?: number;
}

/** One limit: `max_attempts` calls per `decay_seconds` window. */
export interface RateLimitRule {
  /** Calls allowed per window. */
  max_attempts: number;
  /** Window length in seconds. */
  decay_seconds: number;
}

/** Client-side rate limiting, checked before every request. */
export interface RateLimitingConfig {
  /** Default true. */
  enabled?: boolean;
  /** Any {@link RateLimiterInterface}; default a per-process `MemoryRateLimiter`. */
  limiter?: RateLimiterInterface;
  /** Limits per bucket (defaults: default 60/60 s, messages 30/60 s, media 10/60 s). */
  limits?: { default?: RateLimitRule; messages?: RateLimitRule; media?: RateLimitRule };
  /** Wait for a free slot (default) or throw `RateLimitException` at once. */
  on_limit_reached?: "wait" | "throw";
  /** Longest wait for a slot in ms (default 60 000). */
  max_wait_ms?: number;
  /** Prefix of limiter keys (default `gateway`). */
  key_prefix?: string;
  /** When the limiter itself fails: let the request go (default "open") or refuse it ("closed"). */
  on_limiter_error?: "open" | "closed";
}

/** The in-memory metrics collector. */
export interface MetricsConfig {
  /** Default true. */
  enabled?: boolean;
}

/** Logging through LogTape; the library never configures sinks itself. */
export interface LoggingConfig {
  /** Category segments after `gateway` for this service (`["tenant-a"]` → `["gateway", "tenant-a", "client"]`). */
  category?: string[];
  /** Level of the one record each request writes when it ends (default `info`); attempts stay `debug`. */
  level?: "debug" | "info";
}

/** Signature verification of inbound webhooks. */
export interface WebhookSignatureConfig {
  /** `auto` (default: the JWT, hmac or Standard Webhooks signature present), `hmac`, `standard`, `jwt`, `token` or `none`. */
  scheme?: "auto" | "hmac" | "standard" | "jwt" | "token" | "none";
  /** Header that carries the signature or token. */
  header?: string;
  /** Allowed clock difference for timestamps, in seconds (default 300). */
  tolerance_seconds?: number;
  /** How long after its `iat` the server's JWT is accepted, in seconds (default 1800: its retries). */
  jwt_max_age_seconds?: number;
  /** Require a timestamp with the `hmac` scheme. */
  require_timestamp?: boolean;
}

/** The inbound webhook route. */
export interface WebhookConfig {
  /** False answers 404 to every request (default true). */
  enabled?: boolean;
  /** Route prefix (default `gateway/webhook`): `POST /<route_prefix>/<instance>`. */
  route_prefix?: string;
  /** Secret, or several during rotation. */
  secret?: string | string[];
  /** Signature scheme and its settings. */
  signature?: WebhookSignatureConfig;
  /** Largest accepted body in bytes (default 1 MiB). */
  max_body_bytes?: number;
  /** Time for a body to arrive once its headers did, in ms (default 10 000); a stalled body gets 408. */
  body_timeout_ms?: number;
}

/** Queueing of inbound webhooks. */
export interface QueueConfig {
  /** Process webhooks from a queue after answering 202 (default false). */
  enabled?: boolean;
  /** Attempts before a job goes to the dead-letter list (default 5). */
  max_attempts?: number;
}

/** The complete configuration of a {@link GatewayService}. */
export interface GatewayConfig {
  /** Name of the default connection (default `default`). */
  default?: string;
  /** Named connections. */
  connections?: Record<string, ConnectionConfig>;
  /** Shorthand for the `default` connection's server URL. */
  server_url?: string;
  /** Shorthand for the `default` connection's api key. */
  api_key?: string;
  /** Shorthand for the `default` connection's instance. */
  instance?: string;
  /** Shorthand for the `default` connection's per-attempt timeout, in ms. */
  timeout_ms?: number;
  /** HTTP timing. */
  http?: HttpConfig;
  /** Retry policy. */
  retry?: RetryConfig;
  /** Client-side rate limiting. */
  rate_limiting?: RateLimitingConfig;
  /** Metrics collector. */
  metrics?: MetricsConfig;
  /** Logging. */
  logging?: LoggingConfig;
  /** Inbound webhooks. */
  webhook?: WebhookConfig;
  /** Queueing of inbound webhooks. */
  queue?: QueueConfig;
  /** Recipient resolution (`messages().resolveRecipient`, sends with `resolve`). */
  recipients?: RecipientsConfig;
  /** Where sends are recorded (default none). */
  store?: GatewayStore;
  /** The fetch to use (default `globalThis.fetch`); called with an undefined `this`. */
  fetch?: typeof fetch;
}

/** Recipient resolution: how sends find the JID an account is registered under. */
export interface RecipientsConfig {
  /** Resolve every send's number through `whatsappNumbers` (cached) unless the call says otherwise (default false). */
  resolve?: boolean;
  /** How long a resolved recipient is cached in the store, in seconds (default 604 800, seven days). */
  cache_ttl_seconds?: number;
}

/** Default values of the configuration. */
export const DEFAULTS = {
  connection: "default",
  timeout_ms: 30_000,
  deadline_ms: 90_000,
  max_retries: 2,
  base_delay_ms: 500,
  max_delay_ms: 8_000,
  max_retry_after_ms: 60_000,
  route_prefix: "gateway/webhook",
  max_body_bytes: 1024 * 1024,
  max_response_bytes: 4 * 1024 * 1024,
  max_media_response_bytes: 64 * 1024 * 1024,
} as const;

/** The sections of `gateway-api.json` that the command line reads and `GatewayService` does not. */
export const FILE_ONLY_SECTIONS: readonly string[] = ["kv", "tasks"];

/** The configuration file name looked for in the working directory. */
export const CONFIG_FILE = "gateway-api.json";

/**
 * Check a configuration against the schema: an unknown key (with a suggestion), a wrong type or a value out
 * of range (timers: at most 2^31−1 ms) throws a {@link ConfigurationException} naming the key's path. The
 * copy returned is marked as checked, so the constructors it is handed to do not check it again.
 */
export function validateConfig(config: unknown, source: "object" | "file" = "object"): GatewayConfig {
  return checkedConfig(config, source) as GatewayConfig;
}

/**
 * A configuration from `GATEWAY_API_URL`, `GATEWAY_API_KEY`, `GATEWAY_INSTANCE` and `GATEWAY_TIMEOUT_MS`
 * read through `get` (`Deno.env.get`, Workers bindings, a plain object); a bad timeout throws.
 */
export function configFromEnv(get: (name: string) => string | undefined): GatewayConfig {
  return optionsFromEnv(CONNECTION_KEYS, get) as GatewayConfig;
}

/** Merge configurations: later ones win, key by key, sections merged one level deep. */
export function mergeConfig(...configs: GatewayConfig[]): GatewayConfig {
  const out: Record<string, unknown> = {};
  for (const config of configs) {
    for (const [key, value] of Object.entries(config)) {
      if (value === undefined) continue;
      const previous = out[key];
      out[key] = isRecord(previous) && isRecord(value) && key !== "store" && key !== "fetch"
        ? { ...previous, ...value }
        : value;
    }
  }
  return out as GatewayConfig;
}

/**
 * Lay the `GATEWAY_*` settings ({@link configFromEnv}) over a file's configuration, key by key: on its
 * default connection when it names `connections`, else on its shorthand keys.
 */
export function mergeEnvConfig(file: GatewayConfig, env: GatewayConfig): GatewayConfig {
  const name = file.default ?? DEFAULTS.connection;
  // The default connection: a named one, or the shorthand's keys at the top of the file.
  const own = file.connections === undefined ? file : file.connections[name];
  // A connection's own `timeout_ms` wins over `http.timeout_ms`: the variable sets it too.
  const timeout_ms = own?.timeout_ms !== undefined ? env.http?.timeout_ms : undefined;
  if (file.connections === undefined) {
    return mergeConfig(file, env, timeout_ms === undefined ? {} : { timeout_ms });
  }
  const { server_url, api_key, instance, ...rest } = env;
  const fields = Object.entries({ server_url, api_key, instance, timeout_ms }).filter(([, v]) =>
    v !== undefined
  );
  if (fields.length === 0) return mergeConfig(file, env);
  const connection = { ...own, ...Object.fromEntries(fields) } as ConnectionConfig;
  return mergeConfig({ ...file, connections: { ...file.connections, [name]: connection } }, rest);
}

/** The configuration without the command line's own file sections (`kv`, `tasks`), for `GatewayService`. */
export function serviceConfig(config: GatewayConfig): GatewayConfig {
  const out: Record<string, unknown> = { ...config };
  for (const name of FILE_ONLY_SECTIONS) delete out[name];
  return out as GatewayConfig;
}

/**
 * Read `gateway-api.json` (JSONC; or another path) as a checked configuration; null when it does not exist.
 * Not a regular file or over 1 MiB: refused before reading; a syntax error names line and column, never the
 * text. Deno only, `--allow-read`.
 */
export async function loadConfigFile(path: string = CONFIG_FILE): Promise<GatewayConfig | null> {
  const text = await readConfigText(path);
  if (text === null) return null;
  let parsed: unknown;
  try {
    parsed = parseJsonc(text);
  } catch (error) {
    throw new ConfigurationException(
      `Cannot parse configuration file "${path}": ${errorMessage(error)}`,
      { cause: error },
    );
  }
  try {
    return validateConfig(parsed, "file");
  } catch (error) {
    if (!(error instanceof ConfigurationException)) throw error;
    throw new ConfigurationException(`Invalid configuration file "${path}": ${error.message}`, {
      setting: error.setting,
    });
  }
}

/** The largest configuration file read, in bytes. */
const MAX_CONFIG_BYTES = 1024 * 1024;

/**
 * The file's text, or null when it does not exist. Its type is checked before it is opened: reading a FIFO
 * nobody writes to would wait forever, and a device such as `/dev/zero` never ends.
 */
async function readConfigText(path: string): Promise<string | null> {
  const deno = (globalThis as { Deno?: typeof Deno }).Deno;
  if (!deno) throw new ConfigurationException("Cannot read a configuration file: not running on Deno");
  const refuse = (why: string, cause?: unknown) =>
    new ConfigurationException(`Cannot read configuration file "${path}"${why}`, { cause });
  try {
    // stat follows a link: what counts is the file it leads to.
    const info = await deno.stat(path);
    if (!info.isFile) throw refuse(": not a regular file");
    if (info.size > MAX_CONFIG_BYTES) throw refuse(`: larger than ${MAX_CONFIG_BYTES} bytes`);
    const bytes = await deno.readFile(path);
    if (bytes.length > MAX_CONFIG_BYTES) throw refuse(`: larger than ${MAX_CONFIG_BYTES} bytes`);
    return new TextDecoder().decode(bytes);
  } catch (error) {
    if (error instanceof ConfigurationException) throw error;
    if (error instanceof deno.errors.NotFound) return null;
    throw refuse("", error);
  }
}
