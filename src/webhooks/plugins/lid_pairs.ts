/**
 * Learning `@lid` ↔ phone pairs from webhooks.
 *
 * @module
 */

import type { WebhookEventSpelling } from "../events/names.ts";
import type { WebhookPayloadDto } from "../payload.ts";

// Events that can carry LID ↔ phone pairs: messages, contacts, chats, history sync.
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
 * Feeds a `LidDirectory` with the pairs webhooks show (`remoteJid` / `remoteJidAlt`, `participant` /
 * `participantAlt`, contacts and chats with both forms). An observer of every `WebhookProcessor` that has a
 * store (`processor.lidDirectory`); a failed write fails the webhook and the server retries it.
 *
 * @example
 * ```ts
 * import { WebhookProcessor } from "@gw/gateway";
 * import { LidDirectory } from "@gw/gateway/delivery";
 * import { LearnLidPairs } from "@gw/gateway/webhooks";
 * const directory = new LidDirectory();
 * const learn = new LearnLidPairs(directory);
 * new WebhookProcessor().on(learn.events, (payload) => learn.observe(payload));
 * ```
 */
export class LearnLidPairs {
  /** The events it observes. */
  readonly events: readonly WebhookEventSpelling[] = PAIR_EVENTS;
  readonly #directory: { learn(payload: unknown): Promise<unknown> };

  /**
   * Bind to a directory.
   */
  constructor(directory: { learn(payload: unknown): Promise<unknown> }) {
    this.#directory = directory;
  }

  /**
   * Learn the pairs `payload` shows (a `LidDirectory` resolves to how many were new).
   */
  observe(payload: WebhookPayloadDto): Promise<unknown> {
    return this.#directory.learn(payload);
  }
}
