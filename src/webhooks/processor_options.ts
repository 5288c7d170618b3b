import { ConfigurationException } from "../errors.ts";
import type { InboundLines } from "../inbound/lines.ts";
import type { GatewayStore } from "../store/store.ts";
import { checkClaimOptions, type InboundClaimOptions } from "./message_claims.ts";

/** Options of a {@link WebhookProcessor}. */
export interface WebhookProcessorOptions {
  /** With a store: inbound records, each inbound message once, `@lid` pairs, statuses, instance health. */
  store?: GatewayStore;
  /** The connection name the instance health is recorded under (default `default`). */
  connection?: string;
  /** Clock in epoch ms for the store features (default `Date.now`). */
  now?: () => number;
  /** Log one line per webhook (`LogWebhookEvent`; default true). */
  log?: boolean;
  /** The lines events wait in, in arrival order (see `processor.placed(payload)`). */
  lines?: InboundLines;
  /** The timing of the claims on inbound updates (`processor.claims`). */
  claims?: InboundClaimOptions;
}

const OPTION_KEYS: readonly string[] = ["store", "connection", "now", "log", "lines", "claims"];

export function checkOptions(options: WebhookProcessorOptions): void {
  const fail = (setting: string, problem: string) => {
    throw new ConfigurationException(`Invalid webhook processor options: "${setting}" ${problem}`, {
      setting,
    });
  };
  if (options === null || typeof options !== "object") fail("options", "must be an object");
  for (const key of Object.keys(options)) {
    if (!OPTION_KEYS.includes(key)) fail(key, `is not an option; the options are ${OPTION_KEYS.join(", ")}`);
  }
  const { store, connection, now, log } = options;
  if (store !== undefined && typeof store?.state?.set !== "function") fail("store", "must be a GatewayStore");
  if (connection !== undefined && (typeof connection !== "string" || connection === "")) {
    fail("connection", "must be a non-empty string");
  }
  if (now !== undefined && typeof now !== "function") fail("now", "must be a function returning epoch ms");
  if (log !== undefined && typeof log !== "boolean") fail("log", "must be a boolean");
  const lines = options.lines;
  if (lines !== undefined && (typeof lines?.read !== "function" || typeof lines.arrive !== "function")) {
    fail("lines", "must have read(payload) and arrive(read) functions");
  }
  if (options.claims !== undefined) checkClaimOptions(options.claims, "Invalid webhook processor options");
}
