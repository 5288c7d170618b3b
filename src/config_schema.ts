/**
 * The shape of the configuration, declared once, so a new setting is one line in {@link CONFIG_SCHEMA} (and
 * its type in `config.ts`).
 *
 * @module
 */

import { ConfigurationException } from "./errors.ts";
import { joinKey, nameOf, type OptionKeys, suggestKey } from "./option_keys.ts";
import { MAX_TIMER_MS } from "./util/timers.ts";
import { isRecord } from "./util/json_shape.ts";

/** One node of the schema. */
export type SchemaNode =
  | { kind: "string"; nonEmpty?: boolean; secret?: boolean; values?: readonly string[] }
  | { kind: "boolean" }
  | { kind: "integer"; min: number; max: number; unit?: string }
  | { kind: "function" }
  | { kind: "literal"; value: unknown; describe: string }
  | { kind: "object"; fields: Readonly<Record<string, SchemaNode>>; fileOnly?: boolean }
  | { kind: "record"; values: SchemaNode }
  | { kind: "array"; items: SchemaNode; nonEmpty?: boolean }
  | { kind: "either"; options: readonly SchemaNode[] }
  | { kind: "implements"; name: string; methods: readonly string[] };

const text = (options: { nonEmpty?: boolean; secret?: boolean } = {}): SchemaNode => ({
  kind: "string",
  ...options,
});
const nonEmpty: SchemaNode = text({ nonEmpty: true });
const secret: SchemaNode = text({ nonEmpty: true, secret: true });
const flag: SchemaNode = { kind: "boolean" };
const oneOf = (...values: string[]): SchemaNode => ({ kind: "string", values });
const integer = (min: number, max = Number.MAX_SAFE_INTEGER, unit?: string): SchemaNode => ({
  kind: "integer",
  min,
  max,
  unit,
});
/** A delay or timeout in ms: a timer must be able to hold it. */
const ms = (min = 1): SchemaNode => integer(min, MAX_TIMER_MS, "ms");
/** A duration in seconds that ends up on a timer. */
const seconds = (min = 1): SchemaNode => integer(min, Math.floor(MAX_TIMER_MS / 1000), "s");
const fn: SchemaNode = { kind: "function" };
const section = (fields: Record<string, SchemaNode>): SchemaNode => ({ kind: "object", fields });
const fileSection = (fields: Record<string, SchemaNode>): SchemaNode => ({
  kind: "object",
  fields,
  fileOnly: true,
});
const either = (...options: SchemaNode[]): SchemaNode => ({ kind: "either", options });
const no: SchemaNode = { kind: "literal", value: false, describe: "false" };
const list = (items: SchemaNode, nonEmptyList = false): SchemaNode => ({
  kind: "array",
  items,
  nonEmpty: nonEmptyList,
});

/** One gateway server: `connections.<name>`, and the shorthand keys of the `default` connection. */
export const CONNECTION_SCHEMA: Readonly<Record<string, SchemaNode>> = {
  // Presence, URL shape and header safety are checked by validateConnection, with messages naming the connection.
  server_url: text({ secret: true }),
  api_key: text({ secret: true }),
  instance: nonEmpty,
  timeout_ms: ms(),
};

const RULE = section({ max_attempts: integer(1), decay_seconds: seconds() });

/**
 * Every key of the configuration (`GatewayConfig`), and the file-only sections the command line reads
 * (`kv`, `tasks`). Adding a setting: one line here, its type and JSDoc in `config.ts`.
 */
export const CONFIG_SCHEMA: Readonly<Record<string, SchemaNode>> = {
  default: nonEmpty,
  connections: { kind: "record", values: section(CONNECTION_SCHEMA) },
  ...CONNECTION_SCHEMA,
  http: section({
    timeout_ms: ms(),
    deadline_ms: ms(),
    max_response_bytes: integer(1),
    max_media_response_bytes: integer(1),
  }),
  retry: section({
    max_retries: integer(0, 100),
    base_delay_ms: ms(0),
    max_delay_ms: ms(0),
    max_retry_after_ms: ms(0),
    idempotency_window_ms: integer(1),
  }),
  recipients: section({ resolve: flag, cache_ttl_seconds: integer(1) }),
  rate_limiting: section({
    enabled: flag,
    limiter: {
      kind: "implements",
      name: "RateLimiterInterface",
      methods: ["attempt", "availableIn", "clear"],
    },
    limits: section({ default: RULE, messages: RULE, media: RULE }),
    on_limit_reached: oneOf("wait", "throw"),
    max_wait_ms: ms(0),
    key_prefix: nonEmpty,
    on_limiter_error: oneOf("open", "closed"),
  }),
  metrics: section({ enabled: flag }),
  logging: section({ category: list(nonEmpty), level: oneOf("debug", "info") }),
  webhook: section({
    enabled: flag,
    route_prefix: text(),
    secret: either(secret, list(secret, true)),
    signature: section({
      scheme: oneOf("auto", "hmac", "standard", "jwt", "token", "none"),
      header: nonEmpty,
      tolerance_seconds: seconds(),
      jwt_max_age_seconds: integer(1, 86_400, "s"),
      require_timestamp: flag,
    }),
    max_body_bytes: integer(1),
    body_timeout_ms: ms(),
  }),
  queue: section({ enabled: flag, max_attempts: integer(1) }),
  store: {
    kind: "implements",
    name: "GatewayStore",
    methods: ["saveOutbound", "updateOutbound", "listOutbound"],
  },
  fetch: fn,
  // Read by the command line from gateway-api.json only.
  kv: fileSection({ path: nonEmpty }),
  tasks: fileSection({
    prune: either(no, section({ schedule: nonEmpty, days: integer(1) })),
    retry_failed: either(
      no,
      section({ schedule: nonEmpty, max_retries: integer(0), limit: integer(0), instance: nonEmpty }),
    ),
    reconcile_sends: either(
      no,
      section({ schedule: nonEmpty, limit: integer(0), instance: nonEmpty, min_age_ms: ms(0) }),
    ),
    reconcile: either(no, section({ schedule: nonEmpty, max_messages: integer(1), instance: nonEmpty })),
  }),
};

/** Where a configuration object comes from: the file accepts the command line's own sections. */
export type ConfigSource = "object" | "file";

function fail(setting: string, problem: string): never {
  throw new ConfigurationException(`"${setting}" ${problem}`, { setting });
}

/**
 * A value for an error message: strings quoted and cut short. A hidden value (a secret's, or a string where a
 * section goes, which may be a secret pasted in the wrong place) is named by its type only.
 */
function shown(value: unknown, hide: boolean): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object") return "an object";
  if (typeof value === "function") return "a function";
  if (hide) return `a ${typeof value}`;
  if (typeof value === "string") return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return `a ${typeof value}`;
}

function expected(node: SchemaNode): string {
  switch (node.kind) {
    case "string":
      if (node.values) return `one of ${node.values.map((value) => `"${value}"`).join(", ")}`;
      return node.nonEmpty ? "a non-empty string" : "a string";
    case "boolean":
      return "true or false";
    case "integer":
      return node.max === Number.MAX_SAFE_INTEGER
        ? `an integer >= ${node.min}`
        : `an integer from ${node.min} to ${node.max}${node.unit ? ` (${node.unit})` : ""}`;
    case "function":
      return "a function";
    case "literal":
      return node.describe;
    case "object":
    case "record":
      return "an object";
    case "array":
      return `${node.nonEmpty ? "a non-empty " : "an "}array of ${
        expected(node.items).replace(/^an? /, "")
      }s`;
    case "either":
      return node.options.map(expected).join(" or ");
    case "implements":
      return `an object implementing ${node.name}`;
  }
}

function keysOf(fields: Readonly<Record<string, SchemaNode>>): OptionKeys {
  return Object.fromEntries(
    Object.entries(fields).map((
      [name, node],
    ) => [name, node.kind === "object" && !node.fileOnly ? keysOf(node.fields) : true]),
  );
}

function checkFields(
  fields: Readonly<Record<string, SchemaNode>>,
  value: Record<string, unknown>,
  path: string,
  source: ConfigSource,
): void {
  for (const key of Object.keys(value)) {
    const node = Object.hasOwn(fields, key) ? fields[key] : undefined;
    const setting = joinKey(path, key);
    if (node === undefined) {
      const guess = suggestKey(key, keysOf(fields));
      const hint = guess === undefined ? "" : `; did you mean "${joinKey(path, guess)}"?`;
      const named = nameOf(path, key);
      throw new ConfigurationException(`${named.shown} is not a configuration key${hint}`, {
        setting: named.setting,
      });
    }
    if (node.kind === "object" && node.fileOnly && source !== "file") {
      fail(setting, `is read from the configuration file by the command line only, not by GatewayService`);
    }
    if (value[key] !== undefined) checkNode(node, value[key], setting, source);
  }
}

/** Whether a secret goes somewhere inside `node`: a string given in its place may be that secret, misplaced. */
function holdsSecret(node: SchemaNode): boolean {
  if (node.kind === "string") return node.secret === true;
  if (node.kind === "object") return Object.values(node.fields).some(holdsSecret);
  if (node.kind === "record") return holdsSecret(node.values);
  if (node.kind === "array") return holdsSecret(node.items);
  return node.kind === "either" && node.options.some(holdsSecret);
}

function matches(node: SchemaNode, value: unknown): boolean {
  try {
    checkNode(node, value, "", "file");
    return true;
  } catch {
    return false;
  }
}

function checkNode(node: SchemaNode, value: unknown, setting: string, source: ConfigSource): void {
  const wrong = (hide = false): never =>
    fail(setting, `must be ${expected(node)}, got ${shown(value, hide)}`);
  switch (node.kind) {
    case "string":
      if (typeof value !== "string") wrong(node.secret);
      if (node.values && !node.values.includes(value as string)) wrong();
      if (node.nonEmpty && (value as string).trim() === "") wrong(node.secret);
      return;
    case "boolean":
      if (typeof value !== "boolean") wrong();
      return;
    case "integer":
      if (
        typeof value !== "number" || !Number.isInteger(value) || value < node.min || value > node.max
      ) wrong();
      return;
    case "function":
      if (typeof value !== "function") wrong();
      return;
    case "literal":
      if (value !== node.value) wrong();
      return;
    case "object":
      if (!isRecord(value)) wrong(typeof value === "string" && holdsSecret(node));
      checkFields(node.fields, value as Record<string, unknown>, setting, source);
      return;
    case "record":
      if (!isRecord(value)) wrong(typeof value === "string" && holdsSecret(node));
      for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
        if (key.trim() === "") fail(joinKey(setting, key), "is not a valid name: names must be non-empty");
        checkNode(node.values, item, joinKey(setting, key), source);
      }
      return;
    case "array":
      if (!Array.isArray(value) || (node.nonEmpty && value.length === 0)) wrong();
      (value as unknown[]).forEach((item, index) =>
        checkNode(node.items, item, `${setting}.${index}`, source)
      );
      return;
    case "either": {
      const fit = node.options.find((option) => matches(option, value));
      if (fit !== undefined) return checkNode(fit, value, setting, source);
      // Report the error of the option of the same broad type, so the message points at the inner key.
      const near = node.options.find((option) =>
        (option.kind === "object" && isRecord(value)) || (option.kind === "array" && Array.isArray(value))
      );
      if (near !== undefined) return checkNode(near, value, setting, source);
      return wrong(node.options.some((option) => option.kind === "string" && option.secret));
    }
    case "implements": {
      if (value === null || (typeof value !== "object" && typeof value !== "function")) wrong();
      const missing = node.methods.filter((name) =>
        typeof (value as Record<string, unknown>)[name] !== "function"
      );
      if (missing.length > 0) fail(setting, `must implement ${node.name} (missing ${missing.join(", ")})`);
      return;
    }
  }
}

/** Check `value` against the schema of `setting` (`connections.eu`; empty: all); throws on the first wrong key. */
export function checkSetting(setting: string, value: unknown, source: ConfigSource = "object"): void {
  if (wasChecked(value, source)) return;
  if (setting === "") {
    if (!isRecord(value)) {
      throw new ConfigurationException(
        `Invalid configuration: expected an object, got ${shown(value, true)}`,
      );
    }
    checkFields(CONFIG_SCHEMA, value, "", source);
    return;
  }
  checkNode(nodeAt(setting), value, setting, source);
}

/** Check one connection's keys and types; `at` is its path (empty for the shorthand keys). */
export function checkConnectionSetting(value: Record<string, unknown>, at: string): void {
  if (wasChecked(value, "object")) return;
  checkFields(CONNECTION_SCHEMA, value, at, "object");
}

// The configuration is checked once, where it enters (`validateConfig`); what that check hands on carries
// the proof with it, so the service, its connection manager, client and rate-limit gate, which each accept
// a configuration of their own when built alone, do not check the same object again.
const CHECKED: unique symbol = Symbol("checked configuration");

type Checked = Record<string, unknown> & { [CHECKED]?: ConfigSource };

/** Whether `value` is a copy made by {@link checkedConfig} for `source` (an object check also fits a file). */
function wasChecked(value: unknown, source: ConfigSource): boolean {
  const mark = isRecord(value) ? (value as Checked)[CHECKED] : undefined;
  return mark === "object" || (mark !== undefined && mark === source);
}

function markChecked(value: Record<string, unknown>, source: ConfigSource): Record<string, unknown> {
  const copy = { ...value };
  // Not enumerable: spreads, merges and `Object.entries` see the settings only.
  Object.defineProperty(copy, CHECKED, { value: source });
  return copy;
}

/**
 * Check a whole configuration and return a deep copy marked as checked: its sections are not checked again
 * where they are passed on, and later changes to the caller's objects do not reach it.
 */
export function checkedConfig(value: unknown, source: ConfigSource = "object"): Record<string, unknown> {
  if (wasChecked(value, source)) return value as Record<string, unknown>;
  checkSetting("", value, source);
  const config = value as Record<string, unknown>;
  const copy: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(config)) {
    const node = CONFIG_SCHEMA[key];
    if (node.kind === "object" && isRecord(item)) copy[key] = markChecked(item, source);
    else if (node.kind === "record" && isRecord(item)) {
      copy[key] = Object.fromEntries(
        Object.entries(item).map((
          [name, entry],
        ) => [name, isRecord(entry) ? markChecked(entry, source) : entry]),
      );
    } else copy[key] = item;
  }
  return markChecked(copy, source);
}

function nodeAt(setting: string): SchemaNode {
  let node: SchemaNode = { kind: "object", fields: CONFIG_SCHEMA };
  for (const part of setting.split(".")) {
    if (node.kind === "object" && Object.hasOwn(node.fields, part)) node = node.fields[part];
    else if (node.kind === "record") node = node.values;
    else throw new Error(`No configuration setting "${setting}"`);
  }
  return node;
}
