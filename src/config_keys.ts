/**
 * The one table of setting names (file path, option path, environment variable), read by the file, the
 * environment readers and the command line, so a setting is renamed or added in one line here.
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

/**
 * The spellings of one setting: its variable is the `file` path upper-cased with `GATEWAY_`, except the
 * seed's connection variables (`env`).
 */
export interface SettingKey {
  /** Path in `gateway-api.json` and `GatewayConfig` (`webhook.route_prefix`). */
  readonly file: string;
  /** False for a setting only the environment and the options set (the file has no such key). */
  readonly inFile?: false;
  /** Path in the options of the API it configures (`routePrefix`); for `GatewayConfig` settings, the file path. */
  readonly option?: string;
  /** The seed's variable, where it is not the file path's (`GATEWAY_API_URL` for `server_url`). */
  readonly env?: string;
  /** The variable this setting had before the rule above, still read when its own is unset. */
  readonly formerEnv?: string;
  /** How the variable is read (default `text`). */
  readonly kind?: EnvKind;
  /** Applied only when this option was switched on by its own variable (`dedupe` for the dedupe window). */
  readonly requires?: string;
  /** Read even while `requires` is off (so that an unreadable variable is still named), applied only when on. */
  readonly alwaysRead?: boolean;
  /** What it sets, one line (for `--help` and the docs). */
  readonly help?: string;
}

/** The environment variable of a setting: its file path upper-cased with `GATEWAY_`, or the seed's name. */
export function variableOf(key: SettingKey): string {
  return key.env ?? `GATEWAY_${key.file.toUpperCase().replaceAll(".", "_")}`;
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
  { file: "kv.path", help: "the Deno KV file (default gateway.kv)" },
];

/** The webhook receiver: the file's `webhook` and `queue` sections, `WebhookHandlerOptions`, their variables. */
export const WEBHOOK_KEYS: readonly SettingKey[] = [
  {
    file: "webhook.enabled",
    option: "enabled",
    kind: "boolean",
    help: "enabled: false answers 404 to everything (default true)",
  },
  {
    file: "webhook.route_prefix",
    option: "routePrefix",
    kind: "path",
    help: "routePrefix (default gateway/webhook)",
  },
  {
    file: "webhook.secret",
    option: "signature.secret",
    kind: "secrets",
    help: "signature.secret; several separated by commas during a rotation",
  },
  {
    file: "webhook.signature.scheme",
    option: "signature.scheme",
    formerEnv: "GATEWAY_WEBHOOK_SCHEME",
    kind: "lowercase",
    help: "signature.scheme: auto (default), hmac, standard, jwt, token or none",
  },
  {
    file: "webhook.signature.header",
    option: "signature.header",
    formerEnv: "GATEWAY_WEBHOOK_HEADER",
    help: "signature.header: header carrying the signature or token (with an explicit scheme)",
  },
  {
    file: "webhook.signature.tolerance_seconds",
    option: "signature.toleranceSeconds",
    formerEnv: "GATEWAY_WEBHOOK_TOLERANCE_SECONDS",
    kind: "number",
    help: "signature.toleranceSeconds (default 300)",
  },
  {
    file: "webhook.signature.jwt_max_age_seconds",
    option: "signature.jwtMaxAgeSeconds",
    formerEnv: "GATEWAY_WEBHOOK_JWT_MAX_AGE_SECONDS",
    kind: "number",
    help: "signature.jwtMaxAgeSeconds: how long after its iat the server's JWT is accepted (default 1800)",
  },
  {
    file: "webhook.signature.require_timestamp",
    option: "signature.requireTimestamp",
    formerEnv: "GATEWAY_WEBHOOK_REQUIRE_TIMESTAMP",
    kind: "boolean",
    help: "signature.requireTimestamp: true or false",
  },
  {
    file: "webhook.max_body_bytes",
    option: "maxBodyBytes",
    kind: "number",
    help: "maxBodyBytes (default 1048576)",
  },
  {
    file: "webhook.body_timeout_ms",
    option: "bodyTimeoutMs",
    kind: "number",
    help: "bodyTimeoutMs: time for a body to arrive, 408 after it (default 10000)",
  },
  {
    file: "webhook.dedupe",
    inFile: false,
    option: "dedupe",
    kind: "switch",
    help: "dedupe: true turns redelivery detection on (in memory)",
  },
  {
    file: "webhook.dedupe.window_seconds",
    inFile: false,
    option: "dedupe.windowSeconds",
    kind: "number",
    requires: "dedupe",
    alwaysRead: true,
    help: "dedupe.windowSeconds (default 3600)",
  },
  {
    file: "queue.enabled",
    option: "queue.enabled",
    formerEnv: "GATEWAY_WEBHOOK_QUEUE",
    kind: "switch",
    help: "queue.enabled: true answers 202 and processes later (Deno KV queue or waitUntil)",
  },
  {
    file: "queue.max_attempts",
    option: "queue.maxAttempts",
    formerEnv: "GATEWAY_WEBHOOK_QUEUE_MAX_ATTEMPTS",
    kind: "number",
    requires: "queue.enabled",
    help: "queue.maxAttempts (default 5)",
  },
];

/**
 * The variable that sets `option` among `keys`, for naming a refused value under the name the operator set:
 * the setting's own variable, or its former one when only that is set (`get`).
 */
export function variableOfOption(
  keys: readonly SettingKey[],
  option: string,
  get: (name: string) => string | undefined,
): string | undefined {
  const key = keys.find((key) => key.option === option);
  return key === undefined ? undefined : readVariable(key, get).name;
}

/**
 * The variable that sets `key` and its text, each variable read once: its own, else (unset or empty, as a
 * template's `NAME=`) its former name when that one is set; `former` is the former name's text.
 */
function readVariable(
  key: SettingKey,
  get: (name: string) => string | undefined,
): { name: string; text: string | undefined; former: string | undefined } {
  const own = variableOf(key);
  const text = get(own);
  const former = key.formerEnv === undefined ? undefined : get(key.formerEnv);
  const useFormer = (text ?? "") === "" && former !== undefined;
  return { name: useFormer ? key.formerEnv! : own, text: useFormer ? former : text, former };
}

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

/** The settings of `keys` a configuration file's object gives, as options (camelCase paths). */
export function optionsFromFile(keys: readonly SettingKey[], file: unknown): Record<string, unknown> {
  const options: Record<string, unknown> = {};
  for (const key of keys) {
    if (key.inFile === false || key.option === undefined) continue;
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
function envValue(key: SettingKey, name: string, text: string): unknown {
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
      return num(name, text);
    case "ms":
      return text === "" ? undefined : ms(name, text);
    case "boolean":
      return bool(name, text);
    case "switch":
      return bool(name, text) ? true : undefined;
    case "secrets":
      return secretsFromEnv(name, text);
  }
}

/**
 * The variable that sets `key` and its text: its own, else (unset or empty) its former name. Both set to
 * different texts is refused: one of them would be dropped silently.
 */
function envText(
  key: SettingKey,
  get: (name: string) => string | undefined,
): { name: string; text: string } | undefined {
  const { name, text, former } = readVariable(key, get);
  if (name !== key.formerEnv && former !== undefined && text !== former) {
    throw new ConfigurationException(
      `${name} and ${key.formerEnv} (its former name) are both set, to different values: unset ${key.formerEnv}`,
      { setting: name },
    );
  }
  return text === undefined ? undefined : { name, text };
}

/**
 * The settings of `keys` set in the environment (read through `get`), under their option paths; a malformed
 * number or boolean is a `ConfigurationException` naming the variable.
 */
export function optionsFromEnv(
  keys: readonly SettingKey[],
  get: (name: string) => string | undefined,
): Record<string, unknown> {
  const options: Record<string, unknown> = {};
  for (const key of keys) {
    if (key.option === undefined) continue;
    const off = key.requires !== undefined && valueAt(options, key.requires) === undefined;
    if (off && !key.alwaysRead) continue;
    const set = envText(key, get);
    if (off || set === undefined) continue;
    const value = envValue(key, set.name, set.text);
    if (value !== undefined) setAt(options, key.option, value);
  }
  return options;
}

/** The variables of `keys`, each with what it sets (a former name says which variable replaced it). */
export function envVariables(keys: readonly SettingKey[]): Record<string, string> {
  return Object.fromEntries(keys.flatMap((key) => {
    const help = key.help ?? key.option ?? key.file;
    const own: [string, string] = [variableOf(key), help];
    return key.formerEnv === undefined ? [own] : [own, [key.formerEnv, `former name of ${own[0]}: ${help}`]];
  }));
}
