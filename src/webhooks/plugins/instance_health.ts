import type { InstanceHealth } from "../../health/instance_health.ts";
import type { WebhookEventSpelling } from "../events/names.ts";
import type { WebhookPayloadDto } from "../payload.ts";

/**
 * Records every `connection.update` in an `InstanceHealth` (under `connection`, default `default`), so that
 * sends sharing it stop at once when an instance is logged out or banned.
 *
 * @example
 * ```ts
 * import { MemoryStore, WebhookProcessor } from "@gw/gateway";
 * import { InstanceHealth } from "@gw/gateway/delivery";
 * import { RecordInstanceHealth } from "@gw/gateway/webhooks";
 * const record = new RecordInstanceHealth(new InstanceHealth(new MemoryStore().state));
 * new WebhookProcessor().on(record.events, (payload) => record.observe(payload));
 * ```
 */
export class RecordInstanceHealth {
  /** The events it observes. */
  readonly events: readonly WebhookEventSpelling[] = ["connection.update"];
  /** The connection name the records are kept under. */
  readonly connection: string;
  readonly #health: Pick<InstanceHealth, "recordConnectionUpdate">;

  /** Bind to a health and a connection name. */
  constructor(health: Pick<InstanceHealth, "recordConnectionUpdate">, options: { connection?: string } = {}) {
    this.#health = health;
    this.connection = options.connection ?? "default";
  }

  /** Record the state a `connection.update` reports (nothing for other events). */
  async observe(payload: WebhookPayloadDto): Promise<void> {
    if (payload.event !== "CONNECTION_UPDATE" || !payload.instance) return;
    await this.#health.recordConnectionUpdate(
      { connection: this.connection, instance: payload.instance },
      { state: payload.connectionState, statusReason: payload.statusReason },
    );
  }
}
