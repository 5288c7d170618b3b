/**
 * `handleScheduled`: a ready-made Workers `scheduled` handler over the default service, the scheduling
 * counterpart of `handleWebhook`.
 *
 * @module
 */

import { configFromEnv } from "../config.ts";
import { ConfigurationException } from "../errors.ts";
import { configuredGateway } from "../gateway_api.ts";
import { GatewayService } from "../service.ts";
import { webhookProcessor } from "../webhooks/default_handler.ts";
import { createScheduledHandler } from "./schedule.ts";
import type { HandleScheduled } from "./schedule_options.ts";

let handler: HandleScheduled<unknown> | undefined;

function serviceFor(env: unknown): GatewayService {
  const configured = configuredGateway();
  if (configured) return configured;
  const bindings = (env ?? {}) as Record<string, unknown>;
  const config = configFromEnv((name) =>
    typeof bindings[name] === "string" ? bindings[name] as string : undefined
  );
  if (!config.server_url) {
    throw new ConfigurationException(
      "Cannot run scheduled tasks: call configureGateway({ ..., store }) first, or bind GATEWAY_API_URL and GATEWAY_API_KEY",
      { setting: "GATEWAY_API_URL" },
    );
  }
  return new GatewayService(config);
}

/**
 * Run the prune, retry-failed, reconcile-sends and reconcile tasks from a Workers `scheduled` event, with
 * the default schedules (`0 3 * * *` prune after 30 days, `*\/5 * * * *` retry failed sends, `*\/10 * * * *`
 * settle sends whose outcome is unknown, `*\/15 * * * *` recover inbound messages whose webhooks were
 * dropped, through the processor `handleWebhook` uses): declare the cron triggers you want in
 * `wrangler.toml`. The service is the one given to `configureGateway()` (which must include the `store` to
 * work on), else one built from the `GATEWAY_API_URL` / `GATEWAY_API_KEY` bindings. For other schedules or
 * stores, use `createScheduledHandler(options)`.
 *
 * @example
 * ```ts
 * import { configureGateway, handleScheduled, handleWebhook, MemoryStore } from "@gw/gateway";
 * configureGateway({ server_url: "https://gw.example.com", api_key: "key", store: new MemoryStore() });
 * export default { fetch: handleWebhook, scheduled: handleScheduled };
 * ```
 */
export const handleScheduled: HandleScheduled = (controller, env, ctx): Promise<void> => {
  handler ??= createScheduledHandler<unknown>({
    reconcile: { processor: webhookProcessor() },
    service: (bindings) => serviceFor(bindings),
    store: (bindings) => {
      const store = serviceFor(bindings).getStore();
      if (!store) {
        throw new ConfigurationException(
          "Cannot run scheduled tasks: no store is configured; pass one to configureGateway({ ..., store })",
          { setting: "store" },
        );
      }
      return store;
    },
  });
  return handler(controller, env, ctx);
};
