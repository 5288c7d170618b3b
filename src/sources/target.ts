import { ValidationException } from "../errors.ts";
import { WebhookPayloadDto } from "../webhooks/payload.ts";

/** A `WebhookProcessor` or a `Bot`: anything that takes one parsed event from any source. */
export type SourceTarget =
  | { process(payload: WebhookPayloadDto): Promise<void> }
  | { handleUpdate(payload: WebhookPayloadDto): Promise<void> };

/** What a source knows of one message when it hands it over. */
export interface SourceDelivery {
  /** The message's body, parsed: the server's envelope (`event`, `instance`, `data`, ...). */
  body: unknown;
  /** The source's own id of the message, when it has one (a broker's message id). */
  deliveryId?: string;
  /** When the source received it (epoch ms). */
  receivedAt: number;
}

/**
 * Parse each message's envelope once and run the target: rejects with a `ValidationException` when the body
 * is not a gateway event (dead-lettered, never retried), else with the handler's error (redelivered).
 */
export function deliverTo(target: SourceTarget): (delivery: SourceDelivery) => Promise<void> {
  const run = "process" in target
    ? (payload: WebhookPayloadDto) => target.process(payload)
    : (payload: WebhookPayloadDto) => target.handleUpdate(payload);
  return (delivery) => {
    const payload = WebhookPayloadDto.from(delivery.body, {
      deliveryId: delivery.deliveryId,
      receivedAt: delivery.receivedAt,
    });
    if (payload === null || !payload.instance) {
      return Promise.reject(
        new ValidationException("Cannot take event: not a gateway event (no event name or instance)", {
          messages: ["event or instance is missing or invalid"],
        }),
      );
    }
    return run(payload);
  };
}
