/**
 * Lines for the operator on stderr, at most one per cause per interval on the receiver's clock: a 401 storm
 * (a wrong secret, a sender with another scheme) must be visible without LogTape being configured, and must
 * not flood the log either. Internal.
 *
 * @module
 */

/** Default interval between two lines of the same cause, in ms. */
export const REPORT_INTERVAL_MS = 60_000;

// Causes are a small fixed set (the refusal reasons); the bound only guards against a caller that varies them.
const MAX_CAUSES = 64;

// deno-lint-ignore no-control-regex -- control characters are what must not reach the log
const CONTROL = /[\u0000-\u001f\u007f]/g;
const escapeControl = (char: string) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`;

/** One stderr line per cause per interval; the lines skipped in between are counted in the next one. */
export class RateLimitedReports {
  readonly #now: () => number;
  readonly #intervalMs: number;
  readonly #last = new Map<string, { at: number; skipped: number }>();

  constructor(now: () => number, intervalMs = REPORT_INTERVAL_MS) {
    this.#now = now;
    this.#intervalMs = intervalMs;
  }

  /** Write `line()` for `cause`, unless a line of that cause was written less than an interval ago. */
  report(cause: string, line: () => string): void {
    const now = this.#now();
    const last = this.#last.get(cause);
    // A clock that stepped back (NTP) starts a new interval rather than silencing the cause.
    if (last !== undefined && now >= last.at && now - last.at < this.#intervalMs) {
      last.skipped++;
      return;
    }
    if (last === undefined && this.#last.size >= MAX_CAUSES) this.#last.clear();
    this.#last.set(cause, { at: now, skipped: 0 });
    const skipped = last !== undefined && last.skipped > 0
      ? ` (${last.skipped} more since the last line of this cause)`
      : "";
    // A line may quote the sender (a path, a header's field): no control character, so no forged line.
    console.error(`[gateway] ${line().replace(CONTROL, escapeControl)}${skipped}`);
  }
}
