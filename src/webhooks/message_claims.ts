/**
 * Claims on inbound messages by id, so that a message is handled once whether it arrives by webhook, by a
 * redelivery with another body, or by reconciliation (`reconcileInboundMessages`). A claim is first a
 * short lease (processing), then a record for the window (done); a failed processing gives it back.
 *
 * @module
 */

import type { StateStore } from "../store/state.ts";

const NAMESPACE = "inbound_message";
/** How long a message is remembered as handled: longer than any reconciliation look-back. */
export const MESSAGE_CLAIM_WINDOW_MS = 14 * 86_400_000;
/** How long a claim in progress holds before another delivery may take it over. */
export const MESSAGE_CLAIM_LEASE_MS = 120_000;

/** Where a message's claim stands. */
export type MessageClaimState = "processing" | "done" | null;

/**
 * Where a handled message came from, kept with its claim: a later event that names the message only as
 * its sender wrote it (an edit's protocol message) is placed in its chat with it.
 */
export interface MessageOrigin {
  /** The chat's JID, as the message's payload gave it. */
  chat?: string;
  /** The sender's JID, as the message's payload gave it. */
  from?: string;
}

interface ClaimRecord extends MessageOrigin {
  state: "processing" | "done";
}

/** Claims on inbound messages (`instance` + `key.id`) in a store's shared state. */
export class InboundMessageClaims {
  readonly #state: StateStore;
  readonly #now: () => number;

  constructor(state: StateStore, now: () => number = Date.now) {
    this.#state = state;
    this.#now = now;
  }

  #key(instance: string, id: string): string {
    return `${instance}/${id}`;
  }

  /**
   * Claim a message: true when this delivery should run the handlers. Its `origin` is kept from now: an edit
   * of the message that arrives while its handlers run is placed too.
   */
  async claim(instance: string, id: string, origin: MessageOrigin = {}): Promise<boolean> {
    const record: ClaimRecord = { state: "processing", ...origin };
    const version = await this.#state.set(NAMESPACE, this.#key(instance, id), record, {
      expectedVersion: null,
      expiresAt: this.#now() + MESSAGE_CLAIM_LEASE_MS,
    });
    return version !== null;
  }

  /** The handlers ran: refuse the message for the window, and remember where it came from. */
  async complete(instance: string, id: string, origin: MessageOrigin = {}): Promise<void> {
    const record: ClaimRecord = { state: "done", ...origin };
    await this.#state.set(NAMESPACE, this.#key(instance, id), record, {
      expiresAt: this.#now() + MESSAGE_CLAIM_WINDOW_MS,
    });
  }

  /** The handlers failed: let the next delivery run them. */
  async release(instance: string, id: string): Promise<void> {
    await this.#state.delete(NAMESPACE, this.#key(instance, id));
  }

  /** Where a message's claim stands. */
  async state(instance: string, id: string): Promise<MessageClaimState> {
    const entry = await this.#state.get<ClaimRecord>(NAMESPACE, this.#key(instance, id));
    return entry?.value.state ?? null;
  }

  /** Where a message came from (its chat and sender), while it is handled or was within the window. */
  async origin(instance: string, id: string): Promise<MessageOrigin | undefined> {
    const entry = await this.#state.get<ClaimRecord>(NAMESPACE, this.#key(instance, id));
    if (entry === null || entry.value.chat === undefined) return undefined;
    return { chat: entry.value.chat, from: entry.value.from };
  }
}
