import { ConfigurationException } from "../errors.ts";
import { checkOptionKeys, type OptionKeys } from "../option_keys.ts";
import { PACING_OPTION_KEYS, type PacingOptions } from "../pacing/rules.ts";
import type { GatewayService } from "../service.ts";
import type { GatewayStore } from "../store/store.ts";
import type { WebhookHandlerOptions } from "../webhooks/handler.ts";
import type { WebhookSignatureOptions } from "../webhooks/signature.ts";
import {
  checkClaimOptions,
  CLAIM_OPTION_KEYS,
  type InboundClaimOptions,
} from "../webhooks/message_claims.ts";

/** Which group messages reach the middleware. */
export type BotGroups = "all" | "mentions" | "none";

/** Options of `new Bot()`; every one is optional. */
export interface BotOptions {
  /**
   * The service replies go through. Default: built at first use from `GATEWAY_API_*`, `GATEWAY_INSTANCE`,
   * `GATEWAY_TIMEOUT_MS` with the bot's `store`; one given must have the bot's store (none is refused).
   */
  service?: GatewayService;
  /** The receiver's signature settings. Default: from `GATEWAY_WEBHOOK_*`, exactly like `handleWebhook`. */
  signature?: WebhookSignatureOptions;
  /**
   * Where claims, per-chat order, pauses, sessions and dialogues live. Default: a `MemoryStore` (one
   * process, lost on restart, warned once); a KV, Redis or Cloudflare store shares and keeps them.
   */
  store?: GatewayStore;
  /** Answer at once and run the bot after (`true`, or the receiver's queue settings). */
  queue?: WebhookHandlerOptions["queue"];
  /** Redelivery detection by delivery id, as the receiver takes it (messages are claimed by id anyway). */
  dedupe?: WebhookHandlerOptions["dedupe"];
  /** Group messages that reach the middleware: `all` (default), `mentions` (of the instance), `none`. */
  groups?: BotGroups;
  /** Merge a burst of messages from one chat arriving within this many ms into one update (`ctx.messages`). */
  debounceMs?: number;
  /** Pacing of replies (default one per chat per second), or `false` for none. */
  pacing?: PacingOptions | false;
  /** How long one update may hold its chat's turn before the next one skips it, in ms (default 60 000). */
  orderLeaseMs?: number;
  /** Claim timing: `leaseMs` (default 120 000) before another process takes one over, clock, renewal. */
  claims?: InboundClaimOptions;
  /** The rest of the receiver's settings: route prefix, body limits, metrics, route middleware. */
  receiver?: Pick<
    WebhookHandlerOptions,
    "enabled" | "routePrefix" | "routeMiddleware" | "maxBodyBytes" | "bodyTimeoutMs" | "metrics"
  >;
  /** Clock, epoch ms (default `Date.now`); given to every collaborator. */
  now?: () => number;
  /** Sleep (default a timer); rejects when `signal` aborts. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

// Nested objects whose own keys are checked where they are used (the receiver's, the pacer's) are `true`.
const KEYS: Readonly<Record<keyof BotOptions, true | OptionKeys>> & OptionKeys = {
  service: true,
  signature: true,
  store: true,
  queue: true,
  dedupe: true,
  groups: true,
  debounceMs: true,
  pacing: PACING_OPTION_KEYS,
  orderLeaseMs: true,
  claims: CLAIM_OPTION_KEYS,
  receiver: true,
  now: true,
  sleep: true,
};

function fail(setting: string, problem: string): never {
  throw new ConfigurationException(`Invalid bot option "${setting}": ${problem}`, { setting });
}

function checkMs(setting: string, value: unknown, min: number): void {
  if (value === undefined) return;
  if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > 2 ** 31 - 1) {
    fail(setting, `expected an integer number of ms from ${min}, got "${String(value)}"`);
  }
}

/** Check the options: an unknown key (with a suggestion), a wrong type or range throws. */
export function checkBotOptions(options: unknown): BotOptions {
  if (options === undefined) return {};
  if (options === null || typeof options !== "object" || Array.isArray(options)) {
    throw new ConfigurationException("Invalid bot options: expected an object", { setting: "options" });
  }
  checkOptionKeys(options, KEYS, "new Bot");
  const o = options as BotOptions;
  if (o.groups !== undefined && !["all", "mentions", "none"].includes(o.groups)) {
    fail("groups", `expected "all", "mentions" or "none", got "${String(o.groups)}"`);
  }
  checkMs("debounceMs", o.debounceMs, 0);
  checkMs("orderLeaseMs", o.orderLeaseMs, 1);
  if (o.claims !== undefined) checkClaimOptions(o.claims, "new Bot");
  for (const name of ["now", "sleep"] as const) {
    if (o[name] !== undefined && typeof o[name] !== "function") fail(name, "expected a function");
  }
  if (o.store !== undefined && typeof o.store?.state?.set !== "function") {
    fail("store", "expected a GatewayStore (MemoryStore, KvStore, a Redis or Cloudflare store)");
  }
  if (o.service !== undefined && typeof o.service?.messages !== "function") {
    fail("service", "expected a GatewayService");
  }
  // The bot answers a retry's different reply from the key's first send, read in the service's store.
  if (
    o.service !== undefined && typeof o.service.getStore === "function" && o.service.getStore() === undefined
  ) {
    fail(
      "service",
      "built without a store, its idempotency keys live in its own memory and a retry whose reply differs " +
        "could not be answered from the first send; build it with the bot's store " +
        "(new GatewayService({ ..., store }))",
    );
  }
  return o;
}
