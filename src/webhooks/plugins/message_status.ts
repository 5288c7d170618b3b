import type { WebhookEventSpelling } from "../events/names.ts";
import type { WebhookPayloadDto } from "../payload.ts";

// With the connection state the tracker keeps to explain stuck sends.
const STATUS_EVENTS: readonly WebhookEventSpelling[] = [
  "send.message",
  "messages.update",
  "messages.upsert",
  "connection.update",
];

/**
 * Feeds a `MessageStatusTracker` from the webhooks that carry statuses; a failed write fails the webhook.
 *
 * @example
 * ```ts
 * import { MessageStatusTracker } from "@gw/gateway/delivery";
 * import { TrackMessageStatus, WebhookProcessor } from "@gw/gateway/webhooks";
 * const track = new TrackMessageStatus(new MessageStatusTracker());
 * new WebhookProcessor().on(track.events, (payload) => track.observe(payload));
 * ```
 */
export class TrackMessageStatus {
  /** The events it observes. */
  readonly events: readonly WebhookEventSpelling[] = STATUS_EVENTS;
  readonly #tracker: { observe(payload: WebhookPayloadDto): Promise<unknown> };

  /** Bind to a tracker. */
  constructor(tracker: { observe(payload: WebhookPayloadDto): Promise<unknown> }) {
    this.#tracker = tracker;
  }

  /** Apply the statuses `payload` reports. */
  observe(payload: WebhookPayloadDto): Promise<unknown> {
    return this.#tracker.observe(payload);
  }
}
