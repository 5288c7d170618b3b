/**
 * The bot's reply pacing (default one per chat per second) shares each chat's last-send record with every
 * pacer on the state, so `sendMany` and a user's pacer see the bot's replies and the bot sees their sends.
 *
 * @module
 */

import type { InstanceRef } from "../health/health_types.ts";
import { SendPacer } from "../pacing/pacer.ts";
import { type PacingOptions, readRules } from "../pacing/rules.ts";
import type { StateStore } from "../store/state.ts";

/** How a bot's replies are paced: per chat only, one record read and written, when the rules allow it. */
export class ReplyGap {
  readonly #pacer: SendPacer;
  // No gap between the instance's sends: only the chat's interval is noted (one write, not three).
  readonly #perChatOnly: boolean;
  /** The longest a reply can have to wait: more is a clock that stepped back past an earlier send. */
  readonly #longestMs: number;

  /** The pacing of `options` over `defaults`, kept for `state`, on the bot's clock. */
  constructor(state: StateStore, defaults: PacingOptions, options: PacingOptions, now: () => number) {
    const merged = { ...defaults, ...options };
    const rules = readRules(merged);
    this.#perChatOnly = rules.minGapMs === 0 && rules.jitterMs === 0;
    this.#longestMs = Math.max(rules.minGapMs + rules.jitterMs, rules.recipientIntervalMs);
    this.#pacer = new SendPacer(state, merged, { now });
  }

  /** How long a reply to `chat` must wait (0: now). */
  async waitMs(ref: InstanceRef, chat: string): Promise<number> {
    return Math.min(await this.#pacer.waitMs(ref, chat), this.#longestMs);
  }

  /** Note a reply to `chat` the server accepted. */
  sent(ref: InstanceRef, chat: string): Promise<void> {
    return this.#perChatOnly ? this.#pacer.recordRecipientSent(ref, chat) : this.#pacer.recordSent(ref, chat);
  }
}
