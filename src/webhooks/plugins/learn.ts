/**
 * `LearnFromWebhook`: the `@lid` and status observers as one `WebhookReceived` listener.
 *
 * @module
 */

import { WebhookReceived } from "../../events.ts";
import { normalizeKinds } from "../handler_base.ts";
import { LearnLidPairs } from "./lid_pairs.ts";
import { TrackMessageStatus } from "./message_status.ts";

/**
 * Feeds a `LidDirectory` and a `MessageStatusTracker` from each `WebhookReceived` (what the
 * {@link LearnLidPairs} and {@link TrackMessageStatus} observers do, as one `EventTarget` listener). The
 * writes are handed to `event.waitUntil`, so a failed write fails the webhook. A processor with a store
 * does this by itself; this listener is for a directory and a tracker of your own.
 *
 * @example
 * ```ts
 * import { WebhookProcessor, WebhookReceived } from "@gw/gateway";
 * import { LidDirectory, MessageStatusTracker } from "@gw/gateway/delivery";
 * import { LearnFromWebhook } from "@gw/gateway/webhooks";
 * const processor = new WebhookProcessor();
 * processor.events.addEventListener(
 *   WebhookReceived.type,
 *   new LearnFromWebhook(new LidDirectory(), new MessageStatusTracker()),
 * );
 * ```
 */
export class LearnFromWebhook implements EventListenerObject {
  readonly #plugins: readonly { plugin: LearnLidPairs | TrackMessageStatus; kinds: readonly string[] }[];

  /**
   * Bind to a directory and a tracker.
   */
  constructor(
    directory: ConstructorParameters<typeof LearnLidPairs>[0],
    status: ConstructorParameters<typeof TrackMessageStatus>[0],
  ) {
    this.#plugins = [new LearnLidPairs(directory), new TrackMessageStatus(status)].map((plugin) => ({
      plugin,
      kinds: normalizeKinds(plugin.events),
    }));
  }

  /**
   * Learn from one `WebhookReceived`; other events are ignored.
   */
  handleEvent(event: Event): void {
    if (!(event instanceof WebhookReceived)) return;
    for (const { plugin, kinds } of this.#plugins) {
      if (kinds.includes(event.payload.event)) {
        event.waitUntil(Promise.resolve(plugin.observe(event.payload)));
      }
    }
  }
}
