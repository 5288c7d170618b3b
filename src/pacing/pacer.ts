import { InstanceKeys, type InstanceRef } from "../health/health_types.ts";
import type { StateStore } from "../store/state.ts";
import type { PacingPause, PacingStatus, PauseReason } from "./pause_types.ts";
import { activePause, capFor, DAY_MS, type PacingRecord, recordToday } from "./record.ts";
import { RecipientKeys, type RecipientTimes, recipientTimes } from "./recipient_times.ts";
import { PACING_OPTION_KEYS, type PacingOptions, readRules, type Rules } from "./rules.ts";
import { checkOptionKeys } from "../option_keys.ts";

export type { PacingPause, PacingStatus, PauseReason } from "./pause_types.ts";

type Stored = PacingRecord;

const NAMESPACE = "pacing";
const CAS_ATTEMPTS = 8;

/**
 * Pacing that keeps bulk sends from looking like spam (jittered gap, per-recipient interval, daily cap with
 * warm-up, typing delay, pause on restriction), kept in a state store so that every process and every pacer
 * on it (`sendMany`, a bot's replies, your loop) follows one schedule.
 *
 * @example Pace your own loop
 * ```ts
 * import { MemoryState } from "@gw/gateway";
 * import { SendPacer } from "@gw/gateway/resources";
 * const pacer = new SendPacer(new MemoryState(), { minGapMs: 5000, recipientIntervalMs: 120_000 });
 * const sales = { connection: "default", instance: "sales" };
 * const waitMs = await pacer.waitFor(sales, "5511999999999");
 * console.log(waitMs, pacer.typingDelay("Hello!")); // 0 800
 * ```
 */
export class SendPacer {
  readonly #state: StateStore;
  readonly #rules: Rules;
  readonly #now: () => number;
  readonly #random: () => number;
  readonly #recipients: RecipientTimes;
  /** State keys of the instances: read on every paced send, each built once. */
  readonly #instances = new InstanceKeys();
  readonly #recipientKeys = new RecipientKeys(this.#instances);

  /** Build with pacing rules; `now` and `random` are test seams. */
  constructor(
    state: StateStore,
    options: PacingOptions = {},
    seams: { now?: () => number; random?: () => number } = {},
  ) {
    checkOptionKeys(options, PACING_OPTION_KEYS, "new SendPacer");
    this.#state = state;
    this.#rules = readRules(options);
    this.#now = seams.now ?? Date.now;
    this.#random = seams.random ?? Math.random;
    this.#recipients = recipientTimes(state);
  }

  /** The typing time for a text (the send's `delay`), or undefined when typing is off. */
  typingDelay(text: string): number | undefined {
    const rules = this.#rules;
    if (!rules.typing) return undefined;
    const ms = Math.round(text.length * rules.typingMsPerChar);
    return Math.min(rules.maxTypingMs, Math.max(rules.minTypingMs, ms));
  }

  /** Ms to wait before sending to `recipient`: the later end of the instance's gap and its interval. */
  async waitFor(ref: InstanceRef, recipient: string): Promise<number> {
    return Math.max(0, (await this.readyAt(ref, recipient)) - this.#now());
  }

  /** When `recipient` may get the next send (epoch ms), counting the gap (with `jitter`) and its interval. */
  async readyAt(ref: InstanceRef, recipient: string, jitter: number = this.#jitter()): Promise<number> {
    // No gap between an instance's sends: its last send cannot make this one wait, so it is not read.
    if (this.#rules.minGapMs === 0 && jitter === 0) {
      const last = await this.recipientLastSent(ref, recipient);
      return last === null ? 0 : last + this.#rules.recipientIntervalMs;
    }
    const [instance, last] = await Promise.all([
      this.#state.get<Stored>(NAMESPACE, this.#instances.of(ref)),
      this.recipientLastSent(ref, recipient),
    ]);
    const lastSentAt = instance?.value.lastSentAt ?? null;
    const gapEnd = lastSentAt === null ? 0 : lastSentAt + this.#rules.minGapMs + jitter;
    const intervalEnd = last === null ? 0 : last + this.#rules.recipientIntervalMs;
    return Math.max(gapEnd, intervalEnd);
  }

  /** A fresh jitter in [0, jitterMs). */
  jitter(): number {
    return this.#jitter();
  }

  #jitter(): number {
    return Math.floor(this.#random() * this.#rules.jitterMs);
  }

  /** The last paced send to `recipient` (epoch ms) by any pacer on this state (kept an hour), or null. */
  async recipientLastSent(ref: InstanceRef, recipient: string): Promise<number | null> {
    return await this.#recipients.last(this.#recipientKeys.of(ref, recipient), this.#now());
  }

  /** {@link SendPacer.waitFor}, reading only the recipient's record when `minGapMs` and `jitterMs` are 0. */
  async waitMs(ref: InstanceRef, recipient: string): Promise<number> {
    if (this.#rules.minGapMs !== 0 || this.#rules.jitterMs !== 0) return await this.waitFor(ref, recipient);
    const last = await this.#recipients.last(this.#recipientKeys.of(ref, recipient), this.#now());
    return this.#intervalLeft(last, this.#now());
  }

  /** How much of the recipient's interval is left at `now` after its last send (0: none, or no send). */
  #intervalLeft(last: number | null, now: number): number {
    return last === null ? 0 : Math.max(0, last + this.#rules.recipientIntervalMs - now);
  }

  /** The instance's pacing state: last send, today's count and cap, the pause in force. */
  async status(ref: InstanceRef): Promise<PacingStatus> {
    const now = this.#now();
    const stored = await this.#read(ref, now);
    return {
      lastSentAt: stored.lastSentAt,
      sentToday: stored.sentToday,
      capToday: capFor(this.#rules, stored, now),
      pause: activePause(stored, now),
      consecutiveFailures: stored.consecutiveFailures,
    };
  }

  /** The pause in force for the next send (stored, or the daily cap reached), or null. */
  async pauseFor(ref: InstanceRef): Promise<PacingPause | null> {
    const now = this.#now();
    const stored = await this.#read(ref, now);
    const pause = activePause(stored, now);
    if (pause) return pause;
    const cap = capFor(this.#rules, stored, now);
    if (stored.sentToday >= cap) {
      return {
        reason: "daily_cap",
        message: `the daily cap of ${cap} sends is reached${
          stored.firstDay !== null && this.#rules.warmup.length > 0 ? " (warm-up)" : ""
        }; sending resumes tomorrow (UTC)`,
        at: now,
        until: (Math.floor(now / DAY_MS) + 1) * DAY_MS,
      };
    }
    return null;
  }

  /** Record a send the server accepted: the gap, the recipient's interval and today's count start from it. */
  async recordSent(ref: InstanceRef, recipient: string): Promise<void> {
    const now = this.#now();
    await this.#update(ref, (current) => ({
      lastSentAt: now,
      sentToday: current.sentToday + 1,
      firstDay: current.firstDay ?? Math.floor(now / DAY_MS),
      consecutiveFailures: 0,
    }));
    await this.#recordRecipient(ref, recipient, now);
  }

  /** Record a send to `recipient` for its interval only (one write; the instance's gap and cap untouched). */
  async recordRecipientSent(ref: InstanceRef, recipient: string): Promise<void> {
    await this.#recordRecipient(ref, recipient, this.#now());
  }

  async #recordRecipient(ref: InstanceRef, recipient: string, now: number): Promise<void> {
    if (this.#rules.recipientIntervalMs === 0) return;
    await this.#recipients.note(
      this.#recipientKeys.of(ref, recipient),
      now,
      this.#rules.recipientIntervalMs,
    );
  }

  /** Record a failed send; `pauseAfterFailures` in a row pause the instance (resolves the pause, or null). */
  async recordFailure(ref: InstanceRef, error: string): Promise<PacingPause | null> {
    const now = this.#now();
    let paused: PacingPause | null = null;
    await this.#update(ref, (current) => {
      const failures = current.consecutiveFailures + 1;
      // A failed attempt still counts for the gap: hammering a failing instance is a signal too.
      if (failures < this.#rules.pauseAfterFailures) {
        return { consecutiveFailures: failures, lastSentAt: now };
      }
      paused = {
        reason: "repeated_failures",
        message: `${failures} sends failed in a row (last: "${error}")`,
        at: now,
      };
      return { consecutiveFailures: failures, lastSentAt: now, pause: paused };
    });
    return paused;
  }

  /** Pause an instance's paced sending until {@link SendPacer.resume} (or `until`). */
  async pause(ref: InstanceRef, reason: PauseReason, message: string, until?: number): Promise<PacingPause> {
    const pause: PacingPause = {
      reason,
      message,
      at: this.#now(),
      ...(until !== undefined ? { until } : {}),
    };
    await this.#update(ref, () => ({ pause }));
    return pause;
  }

  /** End a pause (and the failure count); the next paced send goes at the usual pace. */
  async resume(ref: InstanceRef): Promise<void> {
    await this.#update(ref, () => ({ pause: undefined, consecutiveFailures: 0 }));
  }

  async #read(ref: InstanceRef, now: number): Promise<Stored> {
    return recordToday((await this.#state.get<Stored>(NAMESPACE, this.#instances.of(ref)))?.value, now);
  }

  async #update(ref: InstanceRef, change: (current: Stored) => Partial<Stored>): Promise<void> {
    const key = this.#instances.of(ref);
    for (let attempt = 0; attempt < CAS_ATTEMPTS; attempt++) {
      const entry = await this.#state.get<Stored>(NAMESPACE, key);
      const current = recordToday(entry?.value, this.#now());
      const next: Stored = { ...current, ...change(current) };
      if (next.pause === undefined) delete next.pause;
      const version = await this.#state.set(NAMESPACE, key, next, {
        expectedVersion: entry ? entry.version : null,
      });
      if (version !== null) return;
    }
    throw new Error(`Cannot record pacing of instance "${ref.instance}": too many concurrent writes`);
  }
}
