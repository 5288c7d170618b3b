/**
 * The bot's reply pacing (default one per chat per second) shares each chat's last-send record with every
 * pacer on the state, so `sendMany` and a user's pacer see the bot's replies and the bot sees their sends.
 *
 * @module
 */

import { InstanceKeys, type InstanceRef } from "../health/health_types.ts";
import { SendPacer } from "../pacing/pacer.ts";
import { RecipientKeys, type RecipientTimes, recipientTimes } from "../pacing/recipient_times.ts";
import { type PacingOptions, readRules, type Rules } from "../pacing/rules.ts";
import type { StateStore } from "../store/state.ts";

const DONE: Promise<void> = Promise.resolve();

/** One reply's recipient: its instance, its chat and the key of its record (built once per reply). */
export interface ReplyRecipient {
  readonly ref: InstanceRef;
  readonly chat: string;
  readonly key: string;
}

/** How a bot's replies are paced: per chat only, one record read and written, when the rules allow it. */
export class ReplyGap {
  readonly #pacer: SendPacer;
  readonly #rules: Rules;
  readonly #now: () => number;
  // No gap between the instance's sends: only the chat's record is read and noted (the pacer's own
  // recipient record, read here without its instance record).
  readonly #times: RecipientTimes | undefined;
  readonly #keys = new RecipientKeys(new InstanceKeys());
  /** The longest a reply can have to wait: more is a clock that stepped back past an earlier send. */
  readonly #longestMs: number;

  /** The pacing of `options` over `defaults`, kept for `state`, on the bot's clock. */
  constructor(state: StateStore, defaults: PacingOptions, options: PacingOptions, now: () => number) {
    const merged = { ...defaults, ...options };
    const rules = readRules(merged);
    this.#rules = rules;
    this.#now = now;
    const perChatOnly = rules.minGapMs === 0 && rules.jitterMs === 0;
    this.#times = perChatOnly ? recipientTimes(state) : undefined;
    this.#longestMs = Math.max(rules.minGapMs + rules.jitterMs, rules.recipientIntervalMs);
    this.#pacer = new SendPacer(state, merged, { now });
  }

  /** The recipient of a reply to `chat` through the instance `ref`. */
  recipient(ref: InstanceRef, chat: string): ReplyRecipient {
    return { ref, chat, key: this.#keys.of(ref, chat) };
  }

  // Not `async` (one frame less per reply): the record's own promise, mapped.

  /** How long a reply to the recipient must wait (0: now). */
  waitMs(to: ReplyRecipient): Promise<number> {
    if (this.#times === undefined) return this.#pacer.waitMs(to.ref, to.chat).then((ms) => this.#clamp(ms));
    const now = this.#now();
    return this.#times.last(to.key, now).then((last) =>
      last === null ? 0 : this.#clamp(Math.max(0, last + this.#rules.recipientIntervalMs - now))
    );
  }

  /** Note a reply to the recipient the server accepted. */
  sent(to: ReplyRecipient): Promise<void> {
    if (this.#times === undefined) return this.#pacer.recordSent(to.ref, to.chat);
    const interval = this.#rules.recipientIntervalMs;
    return interval === 0 ? DONE : this.#times.note(to.key, this.#now(), interval);
  }

  #clamp(ms: number): number {
    return Math.min(ms, this.#longestMs);
  }
}
