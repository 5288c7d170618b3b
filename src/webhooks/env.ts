import { envVariables, optionsFromEnv, WEBHOOK_KEYS } from "../config_keys.ts";
import type { WebhookSignatureOptions } from "./signature.ts";

/** The variables {@link webhookOptionsFromEnv} reads, with what each sets. */
export const WEBHOOK_ENV_VARIABLES: Readonly<Record<string, string>> = envVariables(WEBHOOK_KEYS);

/** The plain (JSON-like) part of the handler options that environment variables can set. */
export interface WebhookEnvOptions {
  /** Whether the route is on. */
  enabled?: boolean;
  /** Route prefix. */
  routePrefix?: string;
  /** Signature settings and secret or secrets. */
  signature?: Pick<
    WebhookSignatureOptions,
    "scheme" | "secret" | "header" | "toleranceSeconds" | "jwtMaxAgeSeconds" | "requireTimestamp"
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

/**
 * Build handler options from `GATEWAY_WEBHOOK_*` read through `get`; secrets are trimmed, with a warning
 * (never the secret) when that changed them.
 *
 * @example
 * ```ts
 * import { createWebhookHandler, webhookOptionsFromEnv } from "@gw/gateway/webhooks";
 * const env: Record<string, string> = { GATEWAY_WEBHOOK_SECRET: "s3cret", GATEWAY_WEBHOOK_SIGNATURE_SCHEME: "hmac" };
 * const handler = createWebhookHandler(webhookOptionsFromEnv((name) => env[name]));
 * ```
 */
export function webhookOptionsFromEnv(get: (name: string) => string | undefined): WebhookEnvOptions {
  return optionsFromEnv(WEBHOOK_KEYS, get) as WebhookEnvOptions;
}

/** Read one variable from `Deno.env`, never throwing or prompting; `denied` without permission. Internal. */
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
 * A lookup in `Deno.env` that never throws or prompts: undefined outside Deno or without permission.
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
