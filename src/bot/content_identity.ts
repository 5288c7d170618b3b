/**
 * The identity of an update the server gives no id (no delivery id, and not a message, whose key id names
 * it): its content, in its chat's order. The same content as the chat's last update is a redelivery of it
 * (the same id, so its claim says "done"); the same content after another update of the chat is a new
 * update (a participant added, removed and added again, all three stamped with one `date_time`). Read and
 * written inside the chat's turn, so the order is the chat's; updates without a chat share one line per
 * instance for this record only (two of them at once may both read the same last content).
 *
 * @module
 */

import { toHex } from "../webhooks/encoding.ts";
import { MESSAGE_CLAIM_WINDOW_MS } from "../webhooks/message_claims.ts";
import type { WebhookPayloadDto } from "../webhooks/payload.ts";
import type { StateStore } from "../store/state.ts";
import type { BotUpdate } from "./update_types.ts";

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
    const digest = toHex(new Uint8Array(await crypto.subtle.digest("SHA-256", bytes))).slice(0, 32);
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
