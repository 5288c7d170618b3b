/**
 * The one table of setting names: for each setting that has more than one spelling, its path in
 * `gateway-api.json` (snake_case, the same as in `GatewayConfig`), its path in the options object of the API
 * it configures (camelCase) and its environment variable. The configuration file, the environment readers
 * (`configFromEnv`, `webhookOptionsFromEnv`) and the command line all read it, so a setting is renamed or
 * added in one line here.
 *
 * @module
 */

import { ConfigurationException } from "./errors.ts";
import { isRecord } from "./util/json_shape.ts";
import { MAX_TIMER_MS } from "./util/timers.ts";
import { secretsFromEnv } from "./webhooks/verify/secrets.ts";

/**
 * How an environment variable's text is read: `text` and `lowercase` are trimmed and ignored when empty,
 * `path` is trimmed and kept even when empty, `raw` is taken as set and ignored when empty (the connection
 * checks it), `ms` is a whole number of ms a timer can hold, `secrets` a comma-separated list (one item: a
 * string), `switch` a boolean that only turns its section on (false leaves it unset).
 */
export type EnvKind =
  | "text"
  | "lowercase"
  | "path"
  | "raw"
  | "number"
  | "ms"
  | "boolean"
  | "secrets"
  | "switch";

/** The spellings of one setting. */
export interface SettingKey {
  /** Path in `gateway-api.json` and `GatewayConfig` (`webhook.route_prefix`). */
  readonly file?: string;
  /** Path in the options of the API it configures (`routePrefix`); for `GatewayConfig` settings, the file path. */
  readonly option?: string;
  /** The environment variable (`GATEWAY_WEBHOOK_ROUTE_PREFIX`). */
  readonly env?: string;
  /** How the variable is read (default `text`). */
  readonly kind?: EnvKind;
  /** Applied only when this option was switched on by its own variable (`dedupe` for the dedupe window). */
  readonly requires?: string;
  /** Read even while `requires` is off (so that an unreadable variable is still named), applied only when on. */
  readonly alwaysRead?: boolean;
  /** What it sets, one line (for `--help` and the docs). */
  readonly help?: string;
}

/** The connection settings of `GatewayConfig` that the environment can set (`configFromEnv`). */
export const CONNECTION_KEYS: readonly SettingKey[] = [
  { file: "server_url", option: "server_url", env: "GATEWAY_API_URL", kind: "raw", help: "server URL" },
  { file: "api_key", option: "api_key", env: "GATEWAY_API_KEY", kind: "raw", help: "api key" },
  { file: "instance", option: "instance", env: "GATEWAY_INSTANCE", kind: "raw", help: "default instance" },
  {
    file: "http.timeout_ms",
    option: "http.timeout_ms",
    env: "GATEWAY_TIMEOUT_MS",
    kind: "ms",
    help: "timeout of one attempt, ms",
  },
];

/** The command line's own file section that a variable overrides. */
export const CLI_KEYS: readonly SettingKey[] = [
  { file: "kv.path", env: "GATEWAY_KV_PATH", help: "the Deno KV file (default gateway.kv)" },
];

/** The webhook receiver: the file's `webhook` and `queue` sections, `WebhookHandlerOptions`, `GATEWAY_WEBHOOK_*`. */
export const WEBHOOK_KEYS: readonly SettingKey[] = [
  {
    file: "webhook.enabled",
    option: "enabled",
    env: "GATEWAY_WEBHOOK_ENABLED",
    kind: "boolean",
    help: "enabled: false answers 404 to everything (default true)",
  },
  {
    file: "webhook.route_prefix",
    option: "routePrefix",
    env: "GATEWAY_WEBHOOK_ROUTE_PREFIX",
    kind: "path",
    help: "routePrefix (default gateway/webhook)",
  },
  {
    file: "webhook.secret",
    option: "signature.secret",
    env: "GATEWAY_WEBHOOK_SECRET",
    kind: "secrets",
    help: "signature.secret; several separated by commas during a rotation",
  },
  {
    file: "webhook.signature.scheme",
    option: "signature.scheme",
    env: "GATEWAY_WEBHOOK_SCHEME",
    kind: "lowercase",
    help: "signature.scheme: auto (default), hmac, standard, jwt, token or none",
  },
  {
    file: "webhook.signature.header",
    option: "signature.header",
    env: "GATEWAY_WEBHOOK_HEADER",
    help: "signature.header: header carrying the signature or token (with an explicit scheme)",
  },
  {
    file: "webhook.signature.tolerance_seconds",
    option: "signature.toleranceSeconds",
    env: "GATEWAY_WEBHOOK_TOLERANCE_SECONDS",
    kind: "number",
    help: "signature.toleranceSeconds (default 300)",
  },
  {
    file: "webhook.signature.jwt_max_age_seconds",
    option: "signature.jwtMaxAgeSeconds",
    env: "GATEWAY_WEBHOOK_JWT_MAX_AGE_SECONDS",
    kind: "number",
    help: "signature.jwtMaxAgeSeconds: how long after its iat the server's JWT is accepted (default 1800)",
  },
  {
    file: "webhook.signature.require_timestamp",
    option: "signature.requireTimestamp",
    env: "GATEWAY_WEBHOOK_REQUIRE_TIMESTAMP",
    kind: "boolean",
    help: "signature.requireTimestamp: true or false",
  },
  {
    file: "webhook.max_body_bytes",
    option: "maxBodyBytes",
    env: "GATEWAY_WEBHOOK_MAX_BODY_BYTES",
    kind: "number",
    help: "maxBodyBytes (default 1048576)",
  },
  {
    file: "webhook.body_timeout_ms",
    option: "bodyTimeoutMs",
    env: "GATEWAY_WEBHOOK_BODY_TIMEOUT_MS",
    kind: "number",
    help: "bodyTimeoutMs: time for a body to arrive, 408 after it (default 10000)",
  },
  {
    option: "dedupe",
    env: "GATEWAY_WEBHOOK_DEDUPE",
    kind: "switch",
    help: "dedupe: true turns redelivery detection on (in memory)",
  },
  {
    option: "dedupe.windowSeconds",
    env: "GATEWAY_WEBHOOK_DEDUPE_WINDOW_SECONDS",
    kind: "number",
    requires: "dedupe",
    alwaysRead: true,
    help: "dedupe.windowSeconds (default 3600)",
  },
  {
    file: "queue.enabled",
    option: "queue.enabled",
    env: "GATEWAY_WEBHOOK_QUEUE",
    kind: "switch",
    help: "queue.enabled: true answers 202 and processes later (Deno KV queue or waitUntil)",
  },
  {
    file: "queue.max_attempts",
    option: "queue.maxAttempts",
    env: "GATEWAY_WEBHOOK_QUEUE_MAX_ATTEMPTS",
    kind: "number",
    requires: "queue.enabled",
    help: "queue.maxAttempts (default 5)",
  },
];

/** The rows of one section: `{ file key: option key }` under the section's file and option paths. */
function section(file: string, option: string, keys: Readonly<Record<string, string>>): SettingKey[] {
  return Object.entries(keys).map(([fileKey, optionKey]) => ({
    file: `${file}.${fileKey}`,
    option: `${option}.${optionKey}`,
  }));
}

/** The file's `tasks` section and the options of `registerScheduledTasks` (the CLI's `serve`). */
export const TASK_KEYS: readonly SettingKey[] = [
  ...section("prune", "prune", { schedule: "schedule", days: "days" }),
  ...section("retry_failed", "retryFailed", {
    schedule: "schedule",
    max_retries: "maxRetries",
    limit: "limit",
    instance: "instance",
  }),
  ...section("reconcile_sends", "reconcileSends", {
    schedule: "schedule",
    limit: "limit",
    instance: "instance",
    min_age_ms: "minAgeMs",
  }),
  ...section("reconcile", "reconcile", { schedule: "schedule", max_messages: "maxMessages" }),
];

/** The value at a dotted `path` of `source`, undefined when any part is missing. */
function valueAt(source: unknown, path: string): unknown {
  let value = source;
  for (const part of path.split(".")) {
    if (!isRecord(value)) return undefined;
    value = value[part];
  }
  return value;
}

/** Set `path` in `target`, making the sections on the way (a `true` switch becomes a section). */
function setAt(target: Record<string, unknown>, path: string, value: unknown): void {
  const parts = path.split(".");
  let section = target;
  for (const part of parts.slice(0, -1)) {
    if (!isRecord(section[part])) section[part] = {};
    section = section[part] as Record<string, unknown>;
  }
  section[parts[parts.length - 1]] = value;
}

/**
 * The settings of `keys` found in a configuration file's object, as options (camelCase paths); a setting
 * the file does not give is left out.
 */
export function optionsFromFile(keys: readonly SettingKey[], file: unknown): Record<string, unknown> {
  const options: Record<string, unknown> = {};
  for (const key of keys) {
    if (key.file === undefined || key.option === undefined) continue;
    const value = valueAt(file, key.file);
    if (value !== undefined) setAt(options, key.option, value);
  }
  return options;
}

function bool(name: string, value: string): boolean {
  const lower = value.trim().toLowerCase();
  if (["1", "true", "yes", "on"].includes(lower)) return true;
  if (["0", "false", "no", "off", ""].includes(lower)) return false;
  throw new ConfigurationException(
    `Invalid environment variable ${name}: expected true or false, got "${value.slice(0, 16)}"`,
    { setting: name },
  );
}

function num(name: string, value: string): number {
  // Decimal only: Number() would also read "0x10" as 16 and "1e3" as 1000.
  const parsed = /^\s*-?\d+(\.\d+)?\s*$/.test(value) ? Number(value) : NaN;
  if (!Number.isFinite(parsed)) {
    throw new ConfigurationException(
      `Invalid environment variable ${name}: expected a number, got "${value.slice(0, 16)}"`,
      { setting: name },
    );
  }
  return parsed;
}

function ms(name: string, value: string): number {
  const parsed = /^\s*\d+\s*$/.test(value) ? Number(value) : NaN;
  if (!(parsed >= 1 && parsed <= MAX_TIMER_MS)) {
    throw new ConfigurationException(
      `${name} must be an integer from 1 to ${MAX_TIMER_MS} (ms), got ${JSON.stringify(value.slice(0, 40))}`,
      { setting: name },
    );
  }
  return parsed;
}

/** The value of one variable's text, or undefined when it sets nothing. */
function envValue(key: SettingKey & { env: string }, text: string): unknown {
  switch (key.kind ?? "text") {
    case "text":
      return text.trim() === "" ? undefined : text.trim();
    case "lowercase":
      return text.trim() === "" ? undefined : text.trim().toLowerCase();
    case "path":
      return text.trim();
    case "raw":
      return text === "" ? undefined : text;
    case "number":
      return num(key.env, text);
    case "ms":
      return text === "" ? undefined : ms(key.env, text);
    case "boolean":
      return bool(key.env, text);
    case "switch":
      return bool(key.env, text) ? true : undefined;
    case "secrets":
      return secretsFromEnv(key.env, text);
  }
}

/**
 * The settings of `keys` that are set in the environment, read through `get` (so it works with
 * `Deno.env.get`, Workers bindings or a plain object), as an object with each key's `option` path. A
 * malformed number or boolean is a `ConfigurationException` naming the variable.
 */
export function optionsFromEnv(
  keys: readonly SettingKey[],
  get: (name: string) => string | undefined,
): Record<string, unknown> {
  const options: Record<string, unknown> = {};
  for (const key of keys) {
    if (key.env === undefined || key.option === undefined) continue;
    const off = key.requires !== undefined && valueAt(options, key.requires) === undefined;
    if (off && !key.alwaysRead) continue;
    const text = get(key.env);
    if (off || typeof text !== "string") continue;
    const value = envValue(key as SettingKey & { env: string }, text);
    if (value !== undefined) setAt(options, key.option, value);
  }
  return options;
}

/** The variables of `keys`, each with what it sets. */
export function envVariables(keys: readonly SettingKey[]): Record<string, string> {
  return Object.fromEntries(
    keys.filter((key) => key.env !== undefined).map((
      key,
    ) => [key.env, key.help ?? key.option ?? key.file ?? ""]),
  );
}
