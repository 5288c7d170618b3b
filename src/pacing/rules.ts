import { numberSetting, timerMs } from "../util/checks.ts";
import type { OptionKeys } from "../option_keys.ts";

/** Pacing rules (every field optional; defaults in brackets). */
export interface PacingOptions {
  /** Least time between two sends of one instance, in ms [4000]. */
  minGapMs?: number;
  /** A random extra wait in [0, jitterMs) added to each gap [3000]. */
  jitterMs?: number;
  /** Least time between two sends to one recipient, in ms [60000]. */
  recipientIntervalMs?: number;
  /** Sends per instance per UTC day [1000]. */
  dailyCap?: number;
  /** Daily caps for a new number's first days from its first paced send (`true`: [20, 40, 80, 160, 320]). */
  warmup?: boolean | readonly number[];
  /** Show "typing..." before each text for a time from its length (the send's `delay`) [true]. */
  typing?: boolean;
  /** Typing time per character, in ms [40], between `minTypingMs` [800] and `maxTypingMs` [6000]. */
  typingMsPerChar?: number;
  /** Shortest typing time, in ms [800]. */
  minTypingMs?: number;
  /** Longest typing time, in ms [6000]. */
  maxTypingMs?: number;
  /** Failed sends in a row that pause the instance [5]. */
  pauseAfterFailures?: number;
}

/** The keys of {@link PacingOptions}: any other key is refused with a suggestion. Internal. */
export const PACING_OPTION_KEYS: OptionKeys = {
  minGapMs: true,
  jitterMs: true,
  recipientIntervalMs: true,
  dailyCap: true,
  warmup: true,
  typing: true,
  typingMsPerChar: true,
  minTypingMs: true,
  maxTypingMs: true,
  pauseAfterFailures: true,
};

/** Only the pacing rules of `options` (which may hold other settings, as `sendMany`'s do). Internal. */
export function pacingOptions(options: PacingOptions): PacingOptions {
  return Object.fromEntries(
    Object.entries(options).filter(([key]) => Object.hasOwn(PACING_OPTION_KEYS, key)),
  );
}

const DEFAULT_WARMUP: readonly number[] = [20, 40, 80, 160, 320];

/** The options with their defaults filled in. Internal. */
export interface Rules {
  minGapMs: number;
  jitterMs: number;
  recipientIntervalMs: number;
  dailyCap: number;
  warmup: readonly number[];
  typing: boolean;
  typingMsPerChar: number;
  minTypingMs: number;
  maxTypingMs: number;
  pauseAfterFailures: number;
}

const WHERE = "Invalid pacing";

/** Check the options and fill in the defaults. Internal. */
export function readRules(options: PacingOptions): Rules {
  const warmup = options.warmup === true
    ? DEFAULT_WARMUP
    : Array.isArray(options.warmup)
    ? options.warmup
    : [];
  warmup.forEach((cap, day) => numberSetting(WHERE, `warmup[${day}]`, cap, 0, { min: 1 }));
  return {
    minGapMs: timerMs(WHERE, "minGapMs", options.minGapMs, 4_000, 0),
    jitterMs: timerMs(WHERE, "jitterMs", options.jitterMs, 3_000, 0),
    recipientIntervalMs: timerMs(WHERE, "recipientIntervalMs", options.recipientIntervalMs, 60_000, 0),
    dailyCap: numberSetting(WHERE, "dailyCap", options.dailyCap, 1_000, { min: 1 }),
    warmup,
    typing: options.typing ?? true,
    typingMsPerChar: numberSetting(WHERE, "typingMsPerChar", options.typingMsPerChar, 40, { min: 0 }),
    minTypingMs: timerMs(WHERE, "minTypingMs", options.minTypingMs, 800, 0),
    maxTypingMs: timerMs(WHERE, "maxTypingMs", options.maxTypingMs, 6_000, 0),
    pauseAfterFailures: numberSetting(WHERE, "pauseAfterFailures", options.pauseAfterFailures, 5, { min: 1 }),
  };
}
