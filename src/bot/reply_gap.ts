/**
 * The pacing of a bot's replies: how long a reply waits, and noting it once sent. The rules are the
 * pacer's (`SendPacer` options over the bot's defaults: one reply per chat per second). With rules that
 * only space one chat's replies (no gap between the instance's sends) on a `MemoryState` (this process's
 * alone), each chat's last reply is kept in memory, shared by every bot on that state, at no store cost;
 * otherwise the `SendPacer` keeps it in the store, shared by every process of the bot.
 *
 * @module
 */

import { MemoryState } from "../backends/memory/state.ts";
import type { InstanceRef } from "../health/health_types.ts";
import { SendPacer } from "../pacing/pacer.ts";
import { type PacingOptions, readRules } from "../pacing/rules.ts";
import type { StateStore } from "../store/state.ts";

/** How a bot's replies are paced (at once, without a promise, when kept in memory). */
export interface ReplyGap {
  /** How long a reply to `chat` must wait (0: now). */
  waitMs(ref: InstanceRef, chat: string): number | Promise<number>;
  /** Note a reply to `chat` the server accepted (undefined: noted at once). */
  sent(ref: InstanceRef, chat: string): Promise<void> | undefined;
}

// Per state: each chat's last reply (epoch ms), by `<instance>/<chat>`.
const lastRepliesByState = new WeakMap<MemoryState, Map<string, number>>();

/** One chat's replies spaced by `intervalMs`, in memory. */
class LocalChatGap implements ReplyGap {
  readonly #last: Map<string, number>;
  readonly #intervalMs: number;
  readonly #now: () => number;
  // Entries older than the interval are dropped once the map doubled since the last sweep.
  #sweepAt = 1024;

  constructor(state: MemoryState, intervalMs: number, now: () => number) {
    let last = lastRepliesByState.get(state);
    if (last === undefined) lastRepliesByState.set(state, last = new Map());
    this.#last = last;
    this.#intervalMs = intervalMs;
    this.#now = now;
  }

  waitMs(ref: InstanceRef, chat: string): number {
    const last = this.#last.get(`${ref.instance}/${chat}`);
    return last === undefined ? 0 : Math.max(0, last + this.#intervalMs - this.#now());
  }

  sent(ref: InstanceRef, chat: string): undefined {
    const now = this.#now();
    this.#last.delete(`${ref.instance}/${chat}`); // re-inserted last: the map stays in reply order
    this.#last.set(`${ref.instance}/${chat}`, now);
    if (this.#last.size >= this.#sweepAt) this.#sweep(now);
  }

  #sweep(now: number): void {
    // In reply order: the entries past their interval come first.
    for (const [key, last] of this.#last) {
      if (last + this.#intervalMs > now) break;
      this.#last.delete(key);
    }
    this.#sweepAt = Math.max(1024, this.#last.size * 2);
  }
}

/** The pacer's rules, in the store. */
class StoredGap implements ReplyGap {
  readonly #pacer: SendPacer;
  readonly #perChatOnly: boolean;

  constructor(pacer: SendPacer, perChatOnly: boolean) {
    this.#pacer = pacer;
    this.#perChatOnly = perChatOnly;
  }

  waitMs(ref: InstanceRef, chat: string): Promise<number> {
    return this.#pacer.waitFor(ref, chat);
  }

  sent(ref: InstanceRef, chat: string): Promise<void> {
    // Only the chat's interval matters when the instance's sends are not spaced: one write, not three.
    return this.#perChatOnly ? this.#pacer.recordRecipientSent(ref, chat) : this.#pacer.recordSent(ref, chat);
  }
}

/** The pacing of a bot's replies: `options` over `defaults`, kept in `state`. */
export function replyGap(
  state: StateStore,
  defaults: PacingOptions,
  options: PacingOptions,
  now: () => number,
): ReplyGap {
  const merged = { ...defaults, ...options };
  const rules = readRules(merged);
  const perChatOnly = rules.minGapMs === 0 && rules.jitterMs === 0;
  if (perChatOnly && state instanceof MemoryState) {
    return new LocalChatGap(state, rules.recipientIntervalMs, now);
  }
  return new StoredGap(new SendPacer(state, merged, { now }), perChatOnly);
}
