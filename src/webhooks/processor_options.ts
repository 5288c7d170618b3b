/**
 * The options of a `WebhookProcessor`, and their check: a misspelt key or a value of the wrong type is
 * refused when the processor is created. Internal (the type is exported by `processor.ts`).
 *
 * @module
 */

import { ConfigurationException } from "../errors.ts";
import type { InboundLines } from "../inbound/lines.ts";
import type { GatewayStore } from "../store/store.ts";
import { checkClaimOptions, type InboundClaimOptions } from "./message_claims.ts";

/** Options of a {@link WebhookProcessor}. */
export interface WebhookProcessorOptions {
  /**
   * With a store, the processor by itself: stores inbound messages, handles each inbound message once by its
   * id, learns `@lid` pairs (`lidDirectory`), tracks message statuses (`messageStatus`) and records instance
   * health from `connection.update` (`instanceHealth`, the same records `GatewayService.health()` reads over
   * the same store).
   */
  store?: GatewayStore;
  /** The connection name the instance health is recorded under (default `default`). */
  connection?: string;
  /** Clock in epoch ms for the store features (default `Date.now`). */
  now?: () => number;
  /** Log one line per webhook (`LogWebhookEvent`; default true). */
  log?: boolean;
  /**
   * The lines events wait in: each event is read once when it arrives and placed in its line in arrival
   * order (see `InboundLines`); handlers find the reading and place with `processor.placed(payload)`.
   */
  lines?: InboundLines;
  /**
   * The timing of the claims on inbound updates (`processor.claims`): the lease a claim seen unchanged is
   * left to its holder, the monotonic clock it is measured on, the renewal timer.
   */
  claims?: InboundClaimOptions;
}

const OPTION_KEYS: readonly string[] = ["store", "connection", "now", "log", "lines", "claims"];

// Nothing given is silently ignored: a misspelt key or a value of the wrong type is refused at creation.
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
