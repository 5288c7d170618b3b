// A held claim is renewed every third of the lease (its stored version changes). Another process takes it
// over only after seeing one version for a whole lease on its own monotonic clock, so that a wall clock
// stepped forward cannot free a live claim.

import { ConfigurationException } from "../errors.ts";
import { checkOptionKeys, type OptionKeys } from "../option_keys.ts";
import type { StateStore } from "../store/state.ts";

const NAMESPACE = "inbound_message";
/** How long a message is remembered as handled: longer than any reconciliation look-back. */
export const MESSAGE_CLAIM_WINDOW_MS = 14 * 86_400_000;
/** How long (ms) another process must see a claim unchanged before it takes it over. */
export const MESSAGE_CLAIM_LEASE_MS = 120_000;

const MAX_WATCHED = 10_000;

/** The timing of a claim service (tests inject the clock and the renewal timer). */
export interface InboundClaimOptions {
  /** How long a claim seen unchanged is left to its holder, in ms (default {@link MESSAGE_CLAIM_LEASE_MS}). */
  leaseMs?: number;
  /** A clock that never steps, in ms (default `performance.now`). */
  monotonic?: () => number;
  /** Call `renew` every `ms` until the returned function is called (default `setInterval`). */
  every?: (ms: number, renew: () => Promise<void>) => () => void;
}

export const CLAIM_OPTION_KEYS: OptionKeys = { leaseMs: true, monotonic: true, every: true };

/** Check claim options given under `where`. Internal. */
export function checkClaimOptions(options: unknown, where: string, path = "claims"): void {
  const fail = (name: string, problem: string): never => {
    throw new ConfigurationException(`${where}: "${path}.${name}" ${problem}`, {
      setting: `${path}.${name}`,
    });
  };
  if (options === null || typeof options !== "object" || Array.isArray(options)) {
    throw new ConfigurationException(`${where}: "${path}" must be an object`, { setting: path });
  }
  checkOptionKeys(options, CLAIM_OPTION_KEYS, where, path);
  const { leaseMs, monotonic, every } = options as InboundClaimOptions;
  if (leaseMs !== undefined && (!Number.isInteger(leaseMs) || leaseMs < 3 || leaseMs > 2 ** 31 - 1)) {
    fail("leaseMs", `must be an integer number of ms from 3, got "${String(leaseMs)}"`);
  }
  if (monotonic !== undefined && typeof monotonic !== "function") fail("monotonic", "must be a function");
  if (every !== undefined && typeof every !== "function") fail("every", "must be a function");
}

function everyInterval(ms: number, renew: () => Promise<void>): () => void {
  const timer = setInterval(() => void renew().catch(() => {}), ms);
  return () => clearInterval(timer);
}

/** Where a message's claim stands. */
export type MessageClaimState = "processing" | "done" | null;

/** Where a handled message came from (an edit naming it is placed in the same chat). */
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
  /** Renew the claim (its stored version changes). */
  renew(): Promise<void>;
  /** The update was handled: refuse it for the window, and remember where it came from. */
  complete(origin?: MessageOrigin): Promise<void>;
  /** Handling failed: let the next delivery run it. */
  release(): Promise<void>;
  /** Stop renewing without a word to the store, as a killed process does (tests). */
  abandon(): void;
}

/**
 * Claims on inbound updates by instance and id, so that each is handled once (webhook, redelivery or
 * reconciliation).
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
  readonly #monotonic: () => number;
  readonly #leaseMs: number;
  readonly #every: (ms: number, renew: () => Promise<void>) => () => void;
  readonly #held = new Set<string>();
  // Claims held elsewhere: the version seen and since when (monotonic); bounded, oldest forgotten.
  readonly #watched = new Map<string, { version: string; since: number }>();

  /** Claims in `state`; windows on `now`, staleness on `options.monotonic`. */
  constructor(state: StateStore, now: () => number = Date.now, options: InboundClaimOptions = {}) {
    checkClaimOptions(options, "new InboundMessageClaims", "options");
    this.#state = state;
    this.#now = now;
    this.#monotonic = options.monotonic ?? (() => performance.now());
    this.#leaseMs = options.leaseMs ?? MESSAGE_CLAIM_LEASE_MS;
    this.#every = options.every ?? everyInterval;
  }

  #key(instance: string, id: string): string {
    return `${instance}/${id}`;
  }

  /** Hold the claim on an update while it waits and runs; null when held elsewhere or handled. */
  async hold(instance: string, id: string, origin: MessageOrigin = {}): Promise<HeldClaim | null> {
    const taken = await this.#take(instance, id, origin);
    return typeof taken === "string" ? null : taken;
  }

  /**
   * Run `work` once for the update: `processed` (a throw gives the claim back and is rethrown), `duplicate`
   * when handled, `busy` when another delivery holds it.
   */
  async once(
    instance: string,
    id: string,
    work: () => Promise<void> | void,
    origin: MessageOrigin = {},
  ): Promise<"processed" | "duplicate" | "busy"> {
    const held = await this.#take(instance, id, origin);
    if (typeof held === "string") return held;
    try {
      await work();
    } catch (error) {
      await held.release().catch(() => {});
      throw error;
    }
    await held.complete(origin);
    return "processed";
  }

  async #take(
    instance: string,
    id: string,
    origin: MessageOrigin,
  ): Promise<HeldClaim | "duplicate" | "busy"> {
    const key = this.#key(instance, id);
    if (this.#held.has(key)) return "busy";
    this.#held.add(key); // before the store's answer: a second delivery in this process is refused at once
    let version: string | "duplicate" | "busy";
    try {
      version = await this.#claim(key, { state: "processing", ...origin });
    } catch (error) {
      this.#held.delete(key);
      throw error;
    }
    if (version === "duplicate" || version === "busy") {
      this.#held.delete(key);
      return version;
    }
    return this.#holding(key, version, origin);
  }

  async #claim(key: string, record: ClaimRecord): Promise<string | "duplicate" | "busy"> {
    const fresh = await this.#write(key, record, null);
    if (fresh !== null) return fresh;
    const entry = await this.#state.get<ClaimRecord>(NAMESPACE, key);
    // Released between the two calls: the server's retry claims it (never "duplicate": it was not handled).
    if (entry === null) return "busy";
    if (entry.value.state === "done") return "duplicate";
    if (!this.#stale(key, entry.version)) return "busy";
    this.#watched.delete(key);
    return await this.#write(key, record, entry.version) ?? "busy";
  }

  #stale(key: string, version: string): boolean {
    const now = this.#monotonic();
    const seen = this.#watched.get(key);
    if (seen?.version === version) return now - seen.since >= this.#leaseMs;
    this.#watched.delete(key);
    if (this.#watched.size >= MAX_WATCHED) this.#watched.delete(this.#watched.keys().next().value!);
    this.#watched.set(key, { version, since: now });
    return false;
  }

  #holding(key: string, first: string, origin: MessageOrigin): HeldClaim {
    let version: string | null = first;
    let inFlight: Promise<void> | undefined;
    // One renewal at a time: a second one on the same version would fail its compare-and-set and stop them.
    const renew = (): Promise<void> => {
      if (version === null) return Promise.resolve();
      inFlight ??= this.#write(key, { state: "processing", ...origin }, version).then((next) => {
        if (version !== null) version = next; // not after a stop: the claim is no longer renewed
      }).finally(() => inFlight = undefined);
      return inFlight;
    };
    const cancel = this.#every(Math.max(1, Math.floor(this.#leaseMs / 3)), renew);
    const stop = () => {
      cancel();
      version = null;
      this.#held.delete(key);
    };
    return {
      renew,
      complete: async (done: MessageOrigin = origin) => {
        stop();
        await this.#write(key, { state: "done", ...done });
      },
      release: async () => {
        cancel();
        await inFlight?.catch(() => {}); // its new version is the one to delete
        const mine = version;
        stop();
        // Only its own claim: a claim taken over meanwhile belongs to the delivery that took it.
        if (mine !== null) await this.#state.delete(NAMESPACE, key, { expectedVersion: mine });
      },
      abandon: stop,
    };
  }

  // A processing claim never expires by time, only by observed staleness (see the top).
  #write(key: string, record: ClaimRecord, expectedVersion?: string | null): Promise<string | null> {
    const expiresAt = this.#now() + MESSAGE_CLAIM_WINDOW_MS;
    const options = expectedVersion === undefined ? { expiresAt } : { expectedVersion, expiresAt };
    return this.#state.set(NAMESPACE, key, record, options);
  }

  /** Where a message's claim stands (`processing` while this process holds it). */
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
