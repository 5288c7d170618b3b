/**
 * Feeding `InstanceHealth` from received `connection.update` webhooks.
 *
 * @module
 */

import type { WebhookHandlerFunction, WebhookProcessor } from "../webhooks/processor.ts";
import type { InstanceHealth } from "./instance_health.ts";

/**
 * Record every `connection.update` the processor receives in `health` (the webhook names the instance;
 * `connection` says which configured connection its server is, default `default`). Returns the handler,
 * for `processor.removeHandler`.
 *
 * @example
 * ```ts
 * import { GatewayService, watchInstanceHealth, WebhookProcessor } from "@gw/gateway";
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
  const connection = options.connection ?? "default";
  const handler: WebhookHandlerFunction = async (payload) => {
    if (!payload.instance) return;
    await health.recordConnectionUpdate(
      { connection, instance: payload.instance },
      { state: payload.connectionState, statusReason: payload.statusReason },
    );
  };
  processor.on("connection.update", handler);
  return handler;
}
