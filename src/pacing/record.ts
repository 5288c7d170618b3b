// A new UTC day starts the count at 0.

import type { PacingPause } from "./pause_types.ts";
import type { Rules } from "./rules.ts";

/** One instance's pacing record. */
export interface PacingRecord {
  lastSentAt: number | null;
  day: number;
  sentToday: number;
  firstDay: number | null;
  consecutiveFailures: number;
  pause?: PacingPause;
}

/** One UTC day. */
export const DAY_MS = 86_400_000;

/** The record as of `now`'s UTC day (a missing record is an empty one). */
export function recordToday(stored: PacingRecord | undefined, now: number): PacingRecord {
  const day = Math.floor(now / DAY_MS);
  const value = stored ?? { lastSentAt: null, day, sentToday: 0, firstDay: null, consecutiveFailures: 0 };
  return value.day === day ? value : { ...value, day, sentToday: 0 };
}

/** The stored pause still in force at `now`, else null. */
export function activePause(stored: PacingRecord, now: number): PacingPause | null {
  const pause = stored.pause;
  if (!pause || (pause.until !== undefined && pause.until <= now)) return null;
  return pause;
}

/** Today's cap: the warm-up schedule's day from the first send, then the daily cap. */
export function capFor(rules: Rules, stored: PacingRecord, now: number): number {
  const day = stored.firstDay === null ? 0 : Math.floor(now / DAY_MS) - stored.firstDay;
  return day < rules.warmup.length ? Math.min(rules.warmup[day], rules.dailyCap) : rules.dailyCap;
}
