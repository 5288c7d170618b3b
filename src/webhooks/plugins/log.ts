import { WebhookReceived } from "../../events.ts";
import { getGatewayLogger } from "../../log.ts";
import type { WebhookPayloadDto } from "../payload.ts";

/**
 * Logs each webhook's kind, instance and ids (category `["gateway", "webhook"]`, info), never the body or
 * the `apikey`; every processor does unless `log: false`.
 *
 * @example
 * ```ts
 * import { LogWebhookEvent, WebhookProcessor, WebhookReceived } from "@gw/gateway";
 * new WebhookProcessor({ log: false }).events.addEventListener(WebhookReceived.type, new LogWebhookEvent());
 * ```
 */
export class LogWebhookEvent implements EventListenerObject {
  readonly #logger = getGatewayLogger("webhook");

  /** Whether the log level is on. */
  get enabled(): boolean {
    return this.#logger.isEnabledFor("info");
  }

  /** Log one webhook (nothing when the level is off). */
  observe(payload: WebhookPayloadDto): void {
    if (!this.enabled) return;
    this.#logger.info("Webhook {event} received for instance {instance}", {
      event: payload.event,
      rawEvent: payload.rawEvent,
      instance: payload.instance,
      deliveryId: payload.deliveryId,
      messageId: payload.messageId,
    });
  }

  /** Log one `WebhookReceived`; other events are ignored. */
  handleEvent(event: Event): void {
    if (event instanceof WebhookReceived) this.observe(event.payload);
  }
}
