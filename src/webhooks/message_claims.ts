/**
 * Claims on inbound updates by (instance, id), so that an update is handled once whether it arrives by
 * webhook, by a redelivery with another body, or by reconciliation (`reconcileInboundMessages`). A claim
 * is first a lease (processing), then a record for the window (done); a failed processing gives it back.
 *
 * A claim held here lives while its update waits in its chat's line or runs: the process knows what it
 * holds (a redelivery reaching it is refused whatever the clock says), and renews the stored lease every
 * third of it, so another process takes the claim over only once its holder is gone (killed) and the lease
 * (120 s on the store's clock) ran out.
 *
 * @module
 */

import type { StateStore } from "../store/state.ts";

const NAMESPACE = "inbound_message";
/** How long a message is remembered as handled: longer than any reconciliation look-back. */
export const MESSAGE_CLAIM_WINDOW_MS = 14 * 86_400_000;
/**
 * How long a claim whose holder stopped renewing it (a killed process) holds before another delivery may
 * take it over, in ms; a live holder renews it every third of it.
 *
 * @example
 * ```ts
 * import { MESSAGE_CLAIM_LEASE_MS } from "@gw/gateway/webhooks";
 * console.log(MESSAGE_CLAIM_LEASE_MS / 1000); // 120
 * ```
 */
export const MESSAGE_CLAIM_LEASE_MS = 120_000;
const RENEW_EVERY_MS = MESSAGE_CLAIM_LEASE_MS / 3;

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

/** A claim this process holds: renewed until it is completed, released or abandoned. */
export interface HeldClaim {
  /** Push the lease on (what the renewal timer does every third of the lease). */
  renew(): Promise<void>;
  /** The update was handled: refuse it for the window, and remember where it came from. */
  complete(origin?: MessageOrigin): Promise<void>;
  /** Handling failed: let the next delivery run it. */
  release(): Promise<void>;
  /** Stop renewing without a word to the store, as a killed process does (tests). */
  abandon(): void;
}

/**
 * Claims on inbound updates (`instance` + update id) in a store's shared state: the one claim service of a
 * processor (`processor.claims`), which the bot shares.
 *
 * @example
 * ```ts
 * import { MemoryStore } from "@gw/gateway";
 * import { InboundMessageClaims } from "@gw/gateway/webhooks";
 * const claims = new InboundMessageClaims(new MemoryStore().state);
 * const held = await claims.hold("sales", "3EB0");
 * await held?.complete(); // handled: refused to redeliveries for the window
 * await claims.state("sales", "3EB0"); // "done"
 * ```
 */
export class InboundMessageClaims {
  readonly #state: StateStore;
  readonly #now: () => number;
  // The claims this object holds now: refused to any other delivery in this process.
  readonly #held = new Set<string>();

  /**
   * Claims in `state`, their leases and windows on `now` (the clock every collaborator shares).
   *
   * @example
   * ```ts
   * import { MemoryStore } from "@gw/gateway";
   * import { InboundMessageClaims } from "@gw/gateway/webhooks";
   * new InboundMessageClaims(new MemoryStore().state, Date.now);
   * ```
   */
  constructor(state: StateStore, now: () => number = Date.now) {
    this.#state = state;
    this.#now = now;
  }

  #key(instance: string, id: string): string {
    return `${instance}/${id}`;
  }

  /**
   * Hold the claim on an update while it waits and runs: null when another delivery holds it or handled it.
   * Renewed on real time (a process is alive by its timers, whatever an injected clock says) until
   * completed or released.
   */
  async hold(instance: string, id: string, origin: MessageOrigin = {}): Promise<HeldClaim | null> {
    const key = this.#key(instance, id);
    if (this.#held.has(key)) return null;
    this.#held.add(key); // before the store's answer: a second delivery in this process is refused at once
    let version: string | null;
    try {
      version = await this.#write(key, { state: "processing", ...origin }, null);
    } catch (error) {
      this.#held.delete(key);
      throw error;
    }
    if (version === null) {
      this.#held.delete(key);
      return null;
    }
    return this.#holding(key, version, origin);
  }

  /**
   * Run `work` once for the update: `processed` when it ran (its claim held meanwhile, done after, given
   * back when `work` threw, which is rethrown), `duplicate` when it was handled, `busy` when another
   * delivery holds it now.
   */
  async once(
    instance: string,
    id: string,
    work: () => Promise<void> | void,
    origin: MessageOrigin = {},
  ): Promise<"processed" | "duplicate" | "busy"> {
    const held = await this.hold(instance, id, origin);
    if (held === null) return (await this.state(instance, id)) === "processing" ? "busy" : "duplicate";
    try {
      await work();
    } catch (error) {
      await held.release().catch(() => {});
      throw error;
    }
    await held.complete(origin);
    return "processed";
  }

  #holding(key: string, first: string, origin: MessageOrigin): HeldClaim {
    let version: string | null = first;
    const renew = async () => {
      if (version === null) return;
      version = await this.#write(key, { state: "processing", ...origin }, version);
    };
    const timer = setInterval(() => void renew().catch(() => {}), RENEW_EVERY_MS);
    const stop = () => {
      clearInterval(timer);
      version = null;
      this.#held.delete(key);
    };
    return {
      renew,
      complete: async (done: MessageOrigin = origin) => {
        stop();
        const record: ClaimRecord = { state: "done", ...done };
        await this.#state.set(NAMESPACE, key, record, { expiresAt: this.#now() + MESSAGE_CLAIM_WINDOW_MS });
      },
      release: async () => {
        const mine = version;
        stop();
        // Only its own claim: a lease lost meanwhile belongs to the delivery that took it over.
        if (mine !== null) await this.#state.delete(NAMESPACE, key, { expectedVersion: mine });
      },
      abandon: stop,
    };
  }

  #write(key: string, record: ClaimRecord, expectedVersion: string | null): Promise<string | null> {
    return this.#state.set(NAMESPACE, key, record, {
      expectedVersion,
      expiresAt: this.#now() + MESSAGE_CLAIM_LEASE_MS,
    });
  }

  /** Where a message's claim stands (`processing` while this process holds it, whatever the store says). */
  async state(instance: string, id: string): Promise<MessageClaimState> {
    if (this.#held.has(this.#key(instance, id))) return "processing";
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
