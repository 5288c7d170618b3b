/**
 * The ready-made endpoint: {@link handleWebhook} over {@link webhookProcessor}, configured from
 * `GATEWAY_WEBHOOK_*` variables (Workers bindings or `Deno.env`).
 *
 * @module
 */

import { ConfigurationException } from "../errors.ts";
import { denoEnvAccess, webhookOptionsFromEnv } from "./env.ts";
import { buildWebhookHandler, type WebhookHandler, type WebhookHandlerOptions } from "./handler.ts";
import { misconfigured, missingSecret, SECRET_VARIABLE, type SecretProblem } from "./pipeline/guard.ts";
import { discardBody } from "./pipeline/route.ts";
import type { WebhookExecutionContext } from "./pipeline/state.ts";
import { WebhookProcessor } from "./processor.ts";

let defaultProcessor: WebhookProcessor | undefined;

/**
 * The processor behind {@link handleWebhook}: register your handlers on it.
 *
 * @example
 * ```ts
 * import { handleWebhook, webhookProcessor } from "@gw/gateway/webhooks";
 * webhookProcessor().on("messages.upsert", (payload) => console.log(payload.text));
 * export default { fetch: handleWebhook };
 * ```
 */
export function webhookProcessor(): WebhookProcessor {
  return defaultProcessor ??= new WebhookProcessor();
}

/** A handler built from the environment, or why it could not be built. Internal (also the bot's). */
export type Built = WebhookHandler | { problem: SecretProblem };
let denoDefault: Built | undefined;
const bindingDefaults = new WeakMap<object, Built>();

/**
 * Build a handler from `GATEWAY_WEBHOOK_*` read through `get` (null: the variable may not be read), with
 * `overrides` on top (a bot passes its processor, store, queue). Internal (handleWebhook and the bot).
 */
export function buildFromEnv(
  get: (name: string) => string | undefined | null,
  overrides: WebhookHandlerOptions = {},
): Built {
  let denied = false;
  const read = (name: string) => {
    const value = get(name);
    if (value === null && name === SECRET_VARIABLE) denied = true;
    return value ?? undefined;
  };
  try {
    const options = { ...webhookOptionsFromEnv(read), ...overrides };
    const scheme = options.signature?.scheme ?? "hmac";
    return buildWebhookHandler(
      { ...options, processor: overrides.processor ?? webhookProcessor() },
      denied ? missingSecret(scheme, "permission") : undefined,
    );
  } catch (error) {
    const setting = error instanceof ConfigurationException && error.setting
      ? error.setting
      : SECRET_VARIABLE;
    const reason = error instanceof Error ? error.message : String(error);
    return {
      problem: { cause: "invalid", setting, message: `Webhook receiver misconfigured: ${reason}` },
    };
  }
}

/** Read a variable from `Deno.env`: null when it may not be read. Internal (also the bot's). */
export function denoLookup(name: string): string | undefined | null {
  const access = denoEnvAccess(name);
  return access.denied ? null : access.value;
}

/** Deno's `ServeHandlerInfo` has `remoteAddr`; anything else object-like is Workers bindings. Internal. */
export function isBindings(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !("remoteAddr" in value);
}

/**
 * A ready-made webhook endpoint over {@link webhookProcessor}, configured from `GATEWAY_WEBHOOK_*`
 * variables (see `WEBHOOK_ENV_VARIABLES`): from the Workers `env` bindings when the runtime passes them as
 * the second argument, else from `Deno.env` (read lazily, never prompting). Deno's connection info
 * (`Deno.serve(handleWebhook)`) is recognized and not taken for bindings. Without a usable
 * `GATEWAY_WEBHOOK_SECRET` (unset, empty, or not readable without `--allow-env`), or with an invalid
 * variable, every webhook is answered 503 with a JSON body that names the variable (the server retries),
 * and one line says why on stderr; `GATEWAY_WEBHOOK_SCHEME=none` turns verification off.
 *
 * Run it with `deno serve --allow-env=GATEWAY_WEBHOOK_SECRET --port 8000 worker.ts`.
 *
 * @example Workers, Deno Deploy, `deno serve`
 * ```ts
 * import { handleWebhook, webhookProcessor } from "@gw/gateway/webhooks";
 * webhookProcessor().on("messages.upsert", (payload) => console.log(payload.senderJid, payload.text));
 * export default { fetch: handleWebhook };
 * ```
 *
 * @example Deno.serve
 * ```ts
 * import { handleWebhook } from "@gw/gateway/webhooks";
 * Deno.serve({ port: 8000 }, handleWebhook);
 * ```
 */
export function handleWebhook(
  request: Request,
  envOrInfo?: unknown,
  ctx?: WebhookExecutionContext,
): Promise<Response> {
  let built: Built | undefined;
  if (isBindings(envOrInfo)) {
    built = bindingDefaults.get(envOrInfo);
    if (built === undefined) {
      const env = envOrInfo;
      built = buildFromEnv((name) => typeof env[name] === "string" ? env[name] as string : denoLookup(name));
      bindingDefaults.set(envOrInfo, built);
    }
  } else {
    built = denoDefault ??= buildFromEnv(denoLookup);
  }
  if (typeof built !== "function") {
    discardBody(request);
    return Promise.resolve(misconfigured({ metrics: undefined }, built.problem));
  }
  return built(request, envOrInfo, ctx);
}

/**
 * Forget the handlers {@link handleWebhook} built from the environment, so that the next request reads it
 * again (for tests, or after changing variables). Closes what they opened.
 *
 * @example
 * ```ts
 * import { resetDefaultWebhookHandler } from "@gw/gateway/webhooks";
 * await resetDefaultWebhookHandler();
 * ```
 */
export async function resetDefaultWebhookHandler(): Promise<void> {
  const built = denoDefault;
  denoDefault = undefined;
  if (typeof built === "function") await built.close();
}
