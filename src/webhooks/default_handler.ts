import { variableOfOption, WEBHOOK_KEYS } from "../config_keys.ts";
import { ConfigurationException } from "../errors.ts";
import { denoEnvAccess, webhookOptionsFromEnv } from "./env.ts";
import { buildWebhookHandler, type WebhookHandler, type WebhookHandlerOptions } from "./handler.ts";
import { misconfigured, missingSecret, SECRET_VARIABLE } from "./pipeline/guard.ts";
import { discardBody } from "./pipeline/route.ts";
import type { SecretProblem, WebhookExecutionContext } from "./pipeline/state.ts";
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

/** A handler from `GATEWAY_WEBHOOK_*` read by `get` (null: unreadable), `overrides` on top. Internal. */
export function buildFromEnv(
  get: (name: string) => string | undefined | null,
  overrides: WebhookHandlerOptions = {},
  said: Set<string> = new Set(),
): Built {
  const denied: string[] = [];
  const read = (name: string) => {
    const value = get(name);
    if (value === null) denied.push(name);
    return value ?? undefined;
  };
  try {
    const options = { ...webhookOptionsFromEnv(read), ...overrides };
    // Unreadable variables are named, not silently defaulted.
    reportUnreadable(denied.filter((name) => name !== SECRET_VARIABLE && !isFormerName(name)), said);
    const scheme = options.signature?.scheme ?? "auto";
    return buildWebhookHandler(
      { ...options, processor: overrides.processor ?? webhookProcessor() },
      denied.includes(SECRET_VARIABLE) ? missingSecret(scheme, "permission") : undefined,
    );
  } catch (error) {
    const option = error instanceof ConfigurationException ? error.setting : undefined;
    // Reported under the variable the operator set.
    const variable = option === undefined
      ? undefined
      : variableOfOption(WEBHOOK_KEYS, option, (name) => get(name) ?? undefined);
    const reason = error instanceof Error ? error.message : String(error);
    const from = variable === undefined ? "" : ` (set by ${variable})`;
    return {
      problem: {
        cause: "invalid",
        setting: variable ?? option ?? SECRET_VARIABLE,
        message: `Webhook receiver misconfigured: ${reason}${from}`,
      },
    };
  }
}

/** One stderr line naming the variables that may not be read (their defaults apply), once per list. */
function reportUnreadable(names: string[], said: Set<string>): void {
  const list = names.join(", ");
  if (names.length === 0 || said.has(list)) return;
  said.add(list);
  console.error(
    `[gateway] Webhook receiver: ${list} cannot be read without permission, so ${
      names.length === 1 ? "its default applies" : "their defaults apply"
    }; if you set ${names.length === 1 ? "it" : "any of them"}, allow ${
      names.length === 1 ? "it" : "them"
    } with --allow-env (e.g. --allow-env="GATEWAY_WEBHOOK_*,GATEWAY_QUEUE_*")`,
  );
}

/** A variable's former name: not named when unreadable (its setting's own variable is). */
function isFormerName(name: string): boolean {
  return WEBHOOK_KEYS.some((key) => key.formerEnv === name);
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

/** A webhook endpoint configured per environment (see {@link webhookHandlerFromEnv}). */
export interface EnvWebhookHandler {
  /** Answer one request with the receiver of its environment (Workers bindings, else `Deno.env`). */
  (request: Request, envOrInfo?: unknown, ctx?: WebhookExecutionContext): Promise<Response>;
  /** A variable of the environment requests came with (the first Workers bindings seen, else `Deno.env`). */
  env(name: string): string | undefined;
  /** Close what the receivers opened (a KV queue and its worker); the next request builds them again. */
  close(): Promise<void>;
}

/**
 * {@link handleWebhook} with `overrides` on top of the `GATEWAY_WEBHOOK_*` variables: one receiver per
 * environment, built at its first request; without a usable configuration every webhook gets a 503 naming
 * the variable to fix.
 *
 * @example A processor of your own, configured from the environment
 * ```ts
 * import { webhookHandlerFromEnv, WebhookProcessor } from "@gw/gateway/webhooks";
 * const processor = new WebhookProcessor().on("call", (payload) => console.log(payload.data.from));
 * Deno.serve({ port: 8000 }, webhookHandlerFromEnv({ processor }));
 * ```
 */
export function webhookHandlerFromEnv(overrides: WebhookHandlerOptions = {}): EnvWebhookHandler {
  let deno: Built | undefined;
  let bindings = new WeakMap<object, Built>();
  let lookup: ((name: string) => string | undefined) | undefined;
  const opened: Built[] = [];
  const said = new Set<string>();
  const build = (get: (name: string) => string | undefined | null) => {
    const built = buildFromEnv(get, overrides, said);
    opened.push(built);
    return built;
  };
  const receiverFor = (envOrInfo: unknown): Built => {
    if (!isBindings(envOrInfo)) return deno ??= build(denoLookup);
    let built = bindings.get(envOrInfo);
    if (built === undefined) {
      const env = envOrInfo;
      const get = (name: string) => typeof env[name] === "string" ? env[name] as string : denoLookup(name);
      lookup ??= (name) => get(name) ?? undefined;
      bindings.set(envOrInfo, built = build(get));
    }
    return built;
  };
  const handler = (request: Request, envOrInfo?: unknown, ctx?: WebhookExecutionContext) => {
    const built = receiverFor(envOrInfo);
    if (typeof built !== "function") {
      discardBody(request);
      return Promise.resolve(misconfigured({ metrics: undefined }, built.problem));
    }
    return built(request, envOrInfo, ctx);
  };
  return Object.assign(handler, {
    env: (name: string) => lookup !== undefined ? lookup(name) : denoLookup(name) ?? undefined,
    close: async () => {
      deno = undefined;
      bindings = new WeakMap();
      for (const built of opened.splice(0)) if (typeof built === "function") await built.close();
    },
  });
}

let defaultHandler: EnvWebhookHandler | undefined;

/**
 * A webhook endpoint over {@link webhookProcessor}, configured from `GATEWAY_WEBHOOK_*` (Workers `env`
 * bindings, else `Deno.env`, never prompting). Without a usable `GATEWAY_WEBHOOK_SECRET` or with an invalid
 * variable, every webhook gets a 503 naming the variable (the server retries) and one stderr line.
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
  return (defaultHandler ??= webhookHandlerFromEnv())(request, envOrInfo, ctx);
}

/**
 * Close the handlers {@link handleWebhook} built, so that the next request reads the environment again.
 *
 * @example
 * ```ts
 * import { resetDefaultWebhookHandler } from "@gw/gateway/webhooks";
 * await resetDefaultWebhookHandler();
 * ```
 */
export async function resetDefaultWebhookHandler(): Promise<void> {
  const handler = defaultHandler;
  defaultHandler = undefined;
  await handler?.close();
}
