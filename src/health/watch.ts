import type { WebhookHandlerFunction, WebhookProcessor } from "../webhooks/processor.ts";
import { RecordInstanceHealth } from "../webhooks/plugins/instance_health.ts";
import type { InstanceHealth } from "./instance_health.ts";

/**
 * Record every `connection.update` the processor receives in `health` (`connection` default `default`);
 * returns the handler. A processor given a store does this itself: this is for a health of your own.
 *
 * @example
 * ```ts
 * import { GatewayService, WebhookProcessor } from "@gw/gateway";
 * import { watchInstanceHealth } from "@gw/gateway/delivery";
 * const gw = GatewayService.make({ server_url: "http://localhost:8080", api_key: "k", instance: "sales" });
 * const processor = new WebhookProcessor();
 * watchInstanceHealth(processor, gw.health());
 * ```
 */
export function watchInstanceHealth(
  processor: WebhookProcessor,
  health: InstanceHealth,
  options: { connection?: string } = {},
): WebhookHandlerFunction {
  const plugin = new RecordInstanceHealth(health, options);
  const handler: WebhookHandlerFunction = (payload) => plugin.observe(payload);
  processor.on("connection.update", handler);
  return handler;
}
