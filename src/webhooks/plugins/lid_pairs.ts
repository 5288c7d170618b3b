import type { WebhookEventSpelling } from "../events/names.ts";
import type { WebhookPayloadDto } from "../payload.ts";

const PAIR_EVENTS: readonly WebhookEventSpelling[] = [
  "messages.upsert",
  "messages.set",
  "messaging-history.set",
  "send.message",
  "contacts.set",
  "contacts.upsert",
  "contacts.update",
  "chats.set",
  "chats.upsert",
  "chats.update",
];

/**
 * Feeds a `LidDirectory` with the `@lid` ↔ phone pairs webhooks show; a failed write fails the webhook.
 *
 * @example
 * ```ts
 * import { LidDirectory } from "@gw/gateway/delivery";
 * import { LearnLidPairs, WebhookProcessor } from "@gw/gateway/webhooks";
 * const learn = new LearnLidPairs(new LidDirectory());
 * new WebhookProcessor().on(learn.events, (payload) => learn.observe(payload));
 * ```
 */
export class LearnLidPairs {
  /** The events it observes. */
  readonly events: readonly WebhookEventSpelling[] = PAIR_EVENTS;
  readonly #directory: { learn(payload: unknown): Promise<unknown> };

  /** Bind to a directory. */
  constructor(directory: { learn(payload: unknown): Promise<unknown> }) {
    this.#directory = directory;
  }

  /** Learn the pairs `payload` shows (a `LidDirectory` resolves to how many were new). */
  observe(payload: WebhookPayloadDto): Promise<unknown> {
    return this.#directory.learn(payload);
  }
}
