import { WebhookReceived } from "../../events.ts";
import { normalizeKinds } from "../handler_base.ts";
import { LearnLidPairs } from "./lid_pairs.ts";
import { TrackMessageStatus } from "./message_status.ts";

/**
 * Feeds your own `LidDirectory` and `MessageStatusTracker` from each `WebhookReceived`; a failed write
 * fails the webhook (a processor with a store does this by itself).
 *
 * @example
 * ```ts
 * import { LidDirectory, MessageStatusTracker } from "@gw/gateway/delivery";
 * import { LearnFromWebhook, WebhookProcessor, WebhookReceived } from "@gw/gateway/webhooks";
 * const learn = new LearnFromWebhook(new LidDirectory(), new MessageStatusTracker());
 * new WebhookProcessor().events.addEventListener(WebhookReceived.type, learn);
 * ```
 */
export class LearnFromWebhook implements EventListenerObject {
  readonly #plugins: readonly { plugin: LearnLidPairs | TrackMessageStatus; kinds: readonly string[] }[];

  /** Bind to a directory and a tracker. */
  constructor(
    directory: ConstructorParameters<typeof LearnLidPairs>[0],
    status: ConstructorParameters<typeof TrackMessageStatus>[0],
  ) {
    this.#plugins = [new LearnLidPairs(directory), new TrackMessageStatus(status)].map((plugin) => ({
      plugin,
      kinds: normalizeKinds(plugin.events),
    }));
  }

  /** Learn from one `WebhookReceived`; other events are ignored. */
  handleEvent(event: Event): void {
    if (!(event instanceof WebhookReceived)) return;
    for (const { plugin, kinds } of this.#plugins) {
      if (kinds.includes(event.payload.event)) {
        event.waitUntil(Promise.resolve(plugin.observe(event.payload)));
      }
    }
  }
}
