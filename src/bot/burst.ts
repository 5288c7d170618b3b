/**
 * Debounce: a chat's messages within `debounceMs` of each other become one update; the one still last after
 * the wait takes the burst, kept under its id until its middleware succeeds (a retry runs the same burst).
 *
 * @module
 */

import type { StateStore } from "../store/state.ts";
import type { BotMessage } from "./update_types.ts";

const BURSTS = "bot_burst";
const TAKEN = "bot_burst_taken";
const CAS_ATTEMPTS = 64;
const KEEP_MS = 86_400_000;
/** Most messages in one burst: a full burst is taken at once. */
export const MAX_BURST = 20;

interface Burst {
  messages: BotMessage[];
}

/** A burst taken by one message: handle `messages`, then call `done`. */
export interface TakenBurst {
  /** The burst's messages, oldest first (the taker last). */
  messages: BotMessage[];
  /** The middleware succeeded: forget the burst. */
  done(): Promise<void>;
}

/** Settings of {@link Bursts}. */
export interface BurstOptions {
  /** Wait after a message for more, in ms. */
  debounceMs: number;
  /** Clock. */
  now: () => number;
  /** Sleep. */
  sleep: (ms: number) => Promise<void>;
}

/** The bursts of every chat of one bot. */
export class Bursts {
  readonly #state: StateStore;
  readonly #options: BurstOptions;

  constructor(state: StateStore, options: BurstOptions) {
    this.#state = state;
    this.#options = options;
  }

  /** Join `msg` to its chat's burst and wait: the burst when `msg` is still its last, else null. */
  async collect(instance: string, chat: string, msg: BotMessage): Promise<TakenBurst | null> {
    const takenKey = `${instance}/${msg.id}`;
    const taken = await this.#state.get<Burst>(TAKEN, takenKey);
    if (taken !== null) return this.#taken(takenKey, taken.value.messages); // a retry of a taker
    const key = `${instance}/${chat}`;
    const size = await this.#join(key, msg);
    if (size < MAX_BURST) await this.#options.sleep(this.#options.debounceMs);
    const entry = await this.#state.get<Burst>(BURSTS, key);
    const messages = entry?.value.messages;
    if (entry === null || messages === undefined || messages.at(-1)?.id !== msg.id) return null;
    await this.#state.set<Burst>(TAKEN, takenKey, { messages }, { expiresAt: this.#options.now() + KEEP_MS });
    if (!(await this.#state.delete(BURSTS, key, { expectedVersion: entry.version }))) {
      // Another message joined meanwhile: it is the last now and takes the burst.
      await this.#state.delete(TAKEN, takenKey);
      return null;
    }
    return this.#taken(takenKey, messages);
  }

  #taken(takenKey: string, messages: BotMessage[]): TakenBurst {
    return { messages, done: async () => void await this.#state.delete(TAKEN, takenKey) };
  }

  /** Append `msg` (once) to the burst; returns its size. */
  async #join(key: string, msg: BotMessage): Promise<number> {
    for (let attempt = 0; attempt < CAS_ATTEMPTS; attempt++) {
      const entry = await this.#state.get<Burst>(BURSTS, key);
      const messages = entry?.value.messages ?? [];
      const rest = messages.filter((m) => m.id !== msg.id);
      const next = [...rest, msg];
      const written = await this.#state.set<Burst>(BURSTS, key, { messages: next }, {
        expectedVersion: entry?.version ?? null,
        expiresAt: this.#options.now() + KEEP_MS,
      });
      if (written !== null) return next.length;
    }
    throw new Error(`Cannot debounce chat "${key}": the store kept changing`);
  }
}
