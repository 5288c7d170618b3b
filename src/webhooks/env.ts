/**
 * Webhook settings from environment variables (`Deno.env`, Workers bindings, or any lookup function).
 *
 * @module
 */

import { ConfigurationException } from "../errors.ts";
import { getGatewayLogger } from "../log.ts";
import type { WebhookSignatureOptions, WebhookSignatureScheme } from "./signature.ts";

/** The variables {@link webhookOptionsFromEnv} reads, with what each sets. */
export const WEBHOOK_ENV_VARIABLES: Readonly<Record<string, string>> = {
  GATEWAY_WEBHOOK_SECRET: "signature.secret; several separated by commas during a rotation",
  GATEWAY_WEBHOOK_SCHEME: "signature.scheme: auto (default), hmac, standard, jwt, token or none",
  GATEWAY_WEBHOOK_HEADER:
    "signature.header: header carrying the signature or token (with an explicit scheme)",
  GATEWAY_WEBHOOK_TOLERANCE_SECONDS: "signature.toleranceSeconds (default 300)",
  GATEWAY_WEBHOOK_REQUIRE_TIMESTAMP: "signature.requireTimestamp: true or false",
  GATEWAY_WEBHOOK_ENABLED: "enabled: false answers 404 to everything (default true)",
  GATEWAY_WEBHOOK_ROUTE_PREFIX: "routePrefix (default gateway/webhook)",
  GATEWAY_WEBHOOK_MAX_BODY_BYTES: "maxBodyBytes (default 1048576)",
  GATEWAY_WEBHOOK_BODY_TIMEOUT_MS: "bodyTimeoutMs: time for a body to arrive, 408 after it (default 10000)",
  GATEWAY_WEBHOOK_DEDUPE: "dedupe: true turns redelivery detection on (in memory)",
  GATEWAY_WEBHOOK_DEDUPE_WINDOW_SECONDS: "dedupe.windowSeconds (default 3600)",
  GATEWAY_WEBHOOK_QUEUE: "queue.enabled: true answers 202 and processes later (Deno KV queue or waitUntil)",
  GATEWAY_WEBHOOK_QUEUE_MAX_ATTEMPTS: "queue.maxAttempts (default 5)",
};

/** The plain (JSON-like) part of the handler options that environment variables can set. */
export interface WebhookEnvOptions {
  /** Whether the route is on. */
  enabled?: boolean;
  /** Route prefix. */
  routePrefix?: string;
  /** Signature settings and secret or secrets. */
  signature?: Pick<
    WebhookSignatureOptions,
    "scheme" | "secret" | "header" | "toleranceSeconds" | "requireTimestamp"
  >;
  /** Body limit. */
  maxBodyBytes?: number;
  /** Time limit for the body. */
  bodyTimeoutMs?: number;
  /** Dedupe settings. */
  dedupe?: boolean | { windowSeconds?: number };
  /** Queue settings. */
  queue?: { enabled: boolean; maxAttempts?: number };
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
  const parsed = Number(value.trim());
  if (value.trim() === "" || !Number.isFinite(parsed)) {
    throw new ConfigurationException(
      `Invalid environment variable ${name}: expected a number, got "${value.slice(0, 16)}"`,
      { setting: name },
    );
  }
  return parsed;
}

/**
 * Build handler options from `GATEWAY_WEBHOOK_*` variables read through `get` (see
 * {@link WEBHOOK_ENV_VARIABLES}). Secrets are trimmed (a trailing newline from `echo` or a secrets UI is
 * the usual mistake) and a warning is logged when that changed them; the secret is never logged.
 *
 * @example
 * ```ts
 * import { createWebhookHandler, webhookOptionsFromEnv } from "@gw/gateway/webhooks";
 * const env: Record<string, string> = { GATEWAY_WEBHOOK_SECRET: "s3cret", GATEWAY_WEBHOOK_SCHEME: "hmac" };
 * const handler = createWebhookHandler(webhookOptionsFromEnv((name) => env[name]));
 * ```
 */
export function webhookOptionsFromEnv(get: (name: string) => string | undefined): WebhookEnvOptions {
  const read = (name: string): string | undefined => {
    const value = get(name);
    return typeof value === "string" ? value : undefined;
  };
  const options: WebhookEnvOptions = {};
  const enabled = read("GATEWAY_WEBHOOK_ENABLED");
  if (enabled !== undefined) options.enabled = bool("GATEWAY_WEBHOOK_ENABLED", enabled);
  const prefix = read("GATEWAY_WEBHOOK_ROUTE_PREFIX");
  if (prefix !== undefined) options.routePrefix = prefix.trim();
  const signature: NonNullable<WebhookEnvOptions["signature"]> = {};
  const secret = read("GATEWAY_WEBHOOK_SECRET");
  if (secret !== undefined) {
    const parts = secret.split(",");
    const secrets = parts.map((part) => part.trim()).filter((part) => part.length > 0);
    // Set but empty: the receiver says "empty" rather than "not set".
    if (secret.trim() === "") signature.secret = "";
    else if (secrets.length !== parts.length || secrets.some((part, i) => part !== parts[i])) {
      getGatewayLogger("webhook").warn(
        "GATEWAY_WEBHOOK_SECRET had surrounding whitespace or empty entries; they were removed",
      );
    }
    if (secrets.length > 0) signature.secret = secrets.length === 1 ? secrets[0] : secrets;
  }
  const scheme = read("GATEWAY_WEBHOOK_SCHEME");
  if (scheme !== undefined && scheme.trim() !== "") {
    signature.scheme = scheme.trim().toLowerCase() as WebhookSignatureScheme;
  }
  const header = read("GATEWAY_WEBHOOK_HEADER");
  if (header !== undefined && header.trim() !== "") signature.header = header.trim();
  const tolerance = read("GATEWAY_WEBHOOK_TOLERANCE_SECONDS");
  if (tolerance !== undefined) {
    signature.toleranceSeconds = num("GATEWAY_WEBHOOK_TOLERANCE_SECONDS", tolerance);
  }
  const requireTimestamp = read("GATEWAY_WEBHOOK_REQUIRE_TIMESTAMP");
  if (requireTimestamp !== undefined) {
    signature.requireTimestamp = bool("GATEWAY_WEBHOOK_REQUIRE_TIMESTAMP", requireTimestamp);
  }
  if (Object.keys(signature).length > 0) options.signature = signature;
  const maxBody = read("GATEWAY_WEBHOOK_MAX_BODY_BYTES");
  if (maxBody !== undefined) options.maxBodyBytes = num("GATEWAY_WEBHOOK_MAX_BODY_BYTES", maxBody);
  const bodyTimeout = read("GATEWAY_WEBHOOK_BODY_TIMEOUT_MS");
  if (bodyTimeout !== undefined) options.bodyTimeoutMs = num("GATEWAY_WEBHOOK_BODY_TIMEOUT_MS", bodyTimeout);
  const dedupe = read("GATEWAY_WEBHOOK_DEDUPE");
  const window = read("GATEWAY_WEBHOOK_DEDUPE_WINDOW_SECONDS");
  if (dedupe !== undefined && bool("GATEWAY_WEBHOOK_DEDUPE", dedupe)) {
    options.dedupe = window === undefined
      ? true
      : { windowSeconds: num("GATEWAY_WEBHOOK_DEDUPE_WINDOW_SECONDS", window) };
  }
  const queue = read("GATEWAY_WEBHOOK_QUEUE");
  if (queue !== undefined && bool("GATEWAY_WEBHOOK_QUEUE", queue)) {
    options.queue = { enabled: true };
    const attempts = read("GATEWAY_WEBHOOK_QUEUE_MAX_ATTEMPTS");
    if (attempts !== undefined) {
      options.queue.maxAttempts = num("GATEWAY_WEBHOOK_QUEUE_MAX_ATTEMPTS", attempts);
    }
  }
  return options;
}

/**
 * Read one variable from `Deno.env` without ever throwing or prompting: `denied` when the process may not
 * read it (no `--allow-env` for it), `value` undefined when it is unset or outside Deno. Internal.
 */
export function denoEnvAccess(name: string): { value: string | undefined; denied: boolean } {
  const deno = (globalThis as { Deno?: typeof Deno }).Deno;
  if (deno?.env === undefined) return { value: undefined, denied: false };
  try {
    const state = deno.permissions?.querySync?.({ name: "env", variable: name }).state;
    if (state !== undefined && state !== "granted") return { value: undefined, denied: true };
    return { value: deno.env.get(name), denied: false };
  } catch (error) {
    // NotCapable (Deno 2) or PermissionDenied (Deno 1): the variable may not be read.
    const denied = error instanceof Error && /NotCapable|PermissionDenied/.test(error.name);
    return { value: undefined, denied };
  }
}

/**
 * A lookup in `Deno.env` that never throws and never prompts: undefined outside Deno, or when the
 * variable is not readable with the granted permissions.
 *
 * @example
 * ```ts
 * import { denoEnvLookup } from "@gw/gateway/webhooks";
 * const secret = denoEnvLookup()("GATEWAY_WEBHOOK_SECRET");
 * ```
 */
export function denoEnvLookup(): (name: string) => string | undefined {
  return (name) => denoEnvAccess(name).value;
}
