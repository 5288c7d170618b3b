/**
 * The identity of an update with no id (no delivery id, not a message): its content in its chat's order.
 * The chat's last content again is a redelivery; after another update it is new (add, remove, add share one
 * `date_time`). Used in the chat's turn; chatless updates share one per instance (two at once may collide).
 *
 * @module
 */

import { toHex } from "../webhooks/encoding.ts";
import { MESSAGE_CLAIM_WINDOW_MS } from "../webhooks/message_claims.ts";
import type { WebhookPayloadDto } from "../webhooks/payload.ts";
import type { StateStore } from "../store/state.ts";
import type { BotUpdate } from "./update_types.ts";
import { digestSha256 } from "../util/sha256.ts";

const NAMESPACE = "bot_update_content";

interface Last {
  digest: string;
  seq: number;
}

/** Content identities of a bot's updates, in the store. */
export class ContentIdentity {
  readonly #state: StateStore;
  readonly #now: () => number;

  constructor(state: StateStore, now: () => number) {
    this.#state = state;
    this.#now = now;
  }

  /** Name `update` by its content and its place among its chat's updates (sets `update.id`). */
  async identify(update: BotUpdate, payload: WebhookPayloadDto): Promise<void> {
    const bytes = new TextEncoder().encode(JSON.stringify([payload.event, payload.raw]));
    const digest = toHex(await digestSha256(bytes)).slice(0, 32);
    const key = `${update.instance}/${update.chat?.id ?? ""}`;
    const last = (await this.#state.get<Last>(NAMESPACE, key))?.value;
    const seq = last === undefined ? 1 : last.digest === digest ? last.seq : last.seq + 1;
    update.id = `${payload.event.toLowerCase()}:content:${digest}:${seq}`;
    if (last?.digest === digest && last.seq === seq) return;
    await this.#state.set<Last>(NAMESPACE, key, { digest, seq }, {
      expiresAt: this.#now() + MESSAGE_CLAIM_WINDOW_MS,
    });
  }
}
