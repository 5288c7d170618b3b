// Each recipient's last paced send: one in-memory map per `MemoryState`, else records in the store.

import { MemoryState } from "../backends/memory/state.ts";
import type { InstanceKeys, InstanceRef } from "../health/health_types.ts";
import type { StateStore } from "../store/state.ts";

const RECIPIENTS = "pacing-recipient";

/** How long a last send is kept at least: a pacer with a longer interval than the sender's must see it. */
const RETENTION_MS = 3_600_000;

function keptUntil(at: number, intervalMs: number): number {
  return at + Math.max(intervalMs, RETENTION_MS);
}

const PERSON = "@s.whatsapp.net";

const DONE: Promise<void> = Promise.resolve();

/** Recipient keys, `<instance key>/<recipient>`: a JID and its bare number are one recipient. Internal. */
export class RecipientKeys {
  readonly #instances: InstanceKeys;

  /** Build on `instances`, the instance keys the pacer also keys its own records by. */
  constructor(instances: InstanceKeys) {
    this.#instances = instances;
  }

  /** The key of `recipient` of the instance `ref`. */
  of(ref: InstanceRef, recipient: string): string {
    const id = recipient.endsWith(PERSON) ? recipient.slice(0, -PERSON.length) : recipient;
    return `${this.#instances.of(ref)}/${encodeURIComponent(id)}`;
  }
}

/** The last paced send per recipient key (`<instance key>/<recipient>`). Internal. */
export interface RecipientTimes {
  /** The last send to `key` (epoch ms) while its record lives at `now`, else null. */
  last(key: string, now: number): Promise<number | null>;
  /**
   * Note a send to `key` at `at` by a pacer whose interval is `intervalMs`, kept for an hour or that interval.
   */
  note(key: string, at: number, intervalMs: number): Promise<void>;
}

interface Held {
  at: number;
  expiresAt: number;
}

/** Times in memory, one map per state; expiry judged on the caller's clock. */
class MemoryRecipientTimes implements RecipientTimes {
  readonly #held = new Map<string, Held>();
  // Expired entries are dropped once the map doubled since the last sweep.
  #sweepAt = 1024;

  last(key: string, now: number): Promise<number | null> {
    const held = this.#held.get(key);
    return Promise.resolve(held === undefined || held.expiresAt <= now ? null : held.at);
  }

  note(key: string, at: number, intervalMs: number): Promise<void> {
    const expiresAt = keptUntil(at, intervalMs);
    const held = this.#held.get(key);
    if (held === undefined) {
      this.#held.set(key, { at, expiresAt });
      if (this.#held.size >= this.#sweepAt) this.#sweep(at);
      return DONE;
    }
    held.at = at;
    // Pacers with different intervals share the record: a send under a shorter one (a bot's reply) must not
    // end the record a longer one (a `sendMany` run) still waits on.
    if (expiresAt > held.expiresAt) held.expiresAt = expiresAt;
    return DONE;
  }

  #sweep(now: number): void {
    for (const [key, held] of this.#held) {
      if (held.expiresAt <= now) this.#held.delete(key);
    }
    this.#sweepAt = Math.max(1024, this.#held.size * 2);
  }
}

/** Times as records in the store (expiry on the store's clock, as for every record). */
class StoredRecipientTimes implements RecipientTimes {
  readonly #state: StateStore;

  constructor(state: StateStore) {
    this.#state = state;
  }

  async last(key: string): Promise<number | null> {
    return (await this.#state.get<number>(RECIPIENTS, key))?.value ?? null;
  }

  async note(key: string, at: number, intervalMs: number): Promise<void> {
    await this.#state.set(RECIPIENTS, key, at, { expiresAt: keptUntil(at, intervalMs) });
  }
}

const timesByState = new WeakMap<MemoryState, MemoryRecipientTimes>();

/** The recipients' last sends kept for `state`: the one in-memory map of a `MemoryState`, else the store. */
export function recipientTimes(state: StateStore): RecipientTimes {
  if (!(state instanceof MemoryState)) return new StoredRecipientTimes(state);
  let times = timesByState.get(state);
  if (times === undefined) timesByState.set(state, times = new MemoryRecipientTimes());
  return times;
}
