/**
 * Webhook settings from environment variables (`Deno.env`, Workers bindings, or any lookup function).
 *
 * @module
 */

import { WebhookException } from "../errors.ts";
import { getGatewayLogger } from "../log.ts";
import type { WebhookSignatureScheme } from "./signature.ts";

/** The variables {@link webhookOptionsFromEnv} reads, with what each sets. */
export const WEBHOOK_ENV_VARIABLES: Readonly<Record<string, string>> = {
  GATEWAY_WEBHOOK_SECRET: "secret; several separated by commas during a rotation",
  GATEWAY_WEBHOOK_SCHEME: "signature.scheme: hmac (default), standard, jwt, token or none",
  GATEWAY_WEBHOOK_HEADER: "signature.header: header carrying the signature or token",
  GATEWAY_WEBHOOK_TOLERANCE_SECONDS: "signature.tolerance_seconds (default 300)",
  GATEWAY_WEBHOOK_REQUIRE_TIMESTAMP: "signature.require_timestamp: true or false",
  GATEWAY_WEBHOOK_ENABLED: "enabled: false answers 404 to everything (default true)",
  GATEWAY_WEBHOOK_ROUTE_PREFIX: "route_prefix (default gateway/webhook)",
  GATEWAY_WEBHOOK_MAX_BODY_BYTES: "max_body_bytes (default 1048576)",
  GATEWAY_WEBHOOK_DEDUPE: "dedupe: true turns redelivery detection on (in memory)",
  GATEWAY_WEBHOOK_DEDUPE_WINDOW_SECONDS: "dedupe.window_seconds (default 3600)",
  GATEWAY_WEBHOOK_QUEUE: "queue.enabled: true answers 202 and processes later (Deno KV queue or waitUntil)",
  GATEWAY_WEBHOOK_QUEUE_MAX_ATTEMPTS: "queue.max_attempts (default 5)",
};

/** The plain (JSON-like) part of the handler options that environment variables can set. */
export interface WebhookEnvOptions {
  /** Whether the route is on. */
  enabled?: boolean;
  /** Route prefix. */
  route_prefix?: string;
  /** Secret or secrets. */
  secret?: string | string[];
  /** Signature settings. */
  signature?: {
    scheme?: WebhookSignatureScheme;
    header?: string;
    tolerance_seconds?: number;
    require_timestamp?: boolean;
  };
  /** Body limit. */
  max_body_bytes?: number;
  /** Dedupe settings. */
  dedupe?: boolean | { window_seconds?: number };
  /** Queue settings. */
  queue?: { enabled: boolean; max_attempts?: number };
}

function bool(name: string, value: string): boolean {
  const lower = value.trim().toLowerCase();
  if (["1", "true", "yes", "on"].includes(lower)) return true;
  if (["0", "false", "no", "off", ""].includes(lower)) return false;
  throw new WebhookException(
    `Invalid environment variable ${name}: expected true or false, got "${value.slice(0, 16)}"`,
  );
}

function num(name: string, value: string): number {
  const parsed = Number(value.trim());
  if (value.trim() === "" || !Number.isFinite(parsed)) {
    throw new WebhookException(
      `Invalid environment variable ${name}: expected a number, got "${value.slice(0, 16)}"`,
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
 * import { createWebhookHandler } from "@gw/gateway";
 * import { webhookOptionsFromEnv } from "@gw/gateway/webhooks";
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
  if (prefix !== undefined) options.route_prefix = prefix.trim();
  const secret = read("GATEWAY_WEBHOOK_SECRET");
  if (secret !== undefined) {
    const parts = secret.split(",");
    const secrets = parts.map((part) => part.trim()).filter((part) => part.length > 0);
    if (secrets.length !== parts.length || secrets.some((part, i) => part !== parts[i])) {
      getGatewayLogger("webhook").warn(
        "GATEWAY_WEBHOOK_SECRET had surrounding whitespace or empty entries; they were removed",
      );
    }
    if (secrets.length > 0) options.secret = secrets.length === 1 ? secrets[0] : secrets;
  }
  const signature: NonNullable<WebhookEnvOptions["signature"]> = {};
  const scheme = read("GATEWAY_WEBHOOK_SCHEME");
  if (scheme !== undefined && scheme.trim() !== "") {
    signature.scheme = scheme.trim().toLowerCase() as WebhookSignatureScheme;
  }
  const header = read("GATEWAY_WEBHOOK_HEADER");
  if (header !== undefined && header.trim() !== "") signature.header = header.trim();
  const tolerance = read("GATEWAY_WEBHOOK_TOLERANCE_SECONDS");
  if (tolerance !== undefined) {
    signature.tolerance_seconds = num("GATEWAY_WEBHOOK_TOLERANCE_SECONDS", tolerance);
  }
  const requireTimestamp = read("GATEWAY_WEBHOOK_REQUIRE_TIMESTAMP");
  if (requireTimestamp !== undefined) {
    signature.require_timestamp = bool("GATEWAY_WEBHOOK_REQUIRE_TIMESTAMP", requireTimestamp);
  }
  if (Object.keys(signature).length > 0) options.signature = signature;
  const maxBody = read("GATEWAY_WEBHOOK_MAX_BODY_BYTES");
  if (maxBody !== undefined) options.max_body_bytes = num("GATEWAY_WEBHOOK_MAX_BODY_BYTES", maxBody);
  const dedupe = read("GATEWAY_WEBHOOK_DEDUPE");
  const window = read("GATEWAY_WEBHOOK_DEDUPE_WINDOW_SECONDS");
  if (dedupe !== undefined && bool("GATEWAY_WEBHOOK_DEDUPE", dedupe)) {
    options.dedupe = window === undefined
      ? true
      : { window_seconds: num("GATEWAY_WEBHOOK_DEDUPE_WINDOW_SECONDS", window) };
  }
  const queue = read("GATEWAY_WEBHOOK_QUEUE");
  if (queue !== undefined && bool("GATEWAY_WEBHOOK_QUEUE", queue)) {
    options.queue = { enabled: true };
    const attempts = read("GATEWAY_WEBHOOK_QUEUE_MAX_ATTEMPTS");
    if (attempts !== undefined) {
      options.queue.max_attempts = num("GATEWAY_WEBHOOK_QUEUE_MAX_ATTEMPTS", attempts);
    }
  }
  return options;
}

/**
 * A lookup in `Deno.env` that never throws and never prompts: undefined outside Deno, or when the
 * variable is not readable with the granted permissions.
 *
 * @example
 * ```ts
 * import { denoEnvLookup } from "./env.ts";
 * const secret = denoEnvLookup()("GATEWAY_WEBHOOK_SECRET");
 * ```
 */
export function denoEnvLookup(): (name: string) => string | undefined {
  const deno = (globalThis as { Deno?: typeof Deno }).Deno;
  return (name) => {
    if (deno?.env === undefined) return undefined;
    try {
      const state = deno.permissions?.querySync?.({ name: "env", variable: name }).state;
      if (state !== undefined && state !== "granted") return undefined;
      return deno.env.get(name);
    } catch {
      return undefined;
    }
  };
}
