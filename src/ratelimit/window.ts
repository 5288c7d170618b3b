/**
 * The fixed-window arithmetic of the limiters. An entry stores its own window end because a store's expiry
 * (Deno KV `expireIn`) is lazy: an expired entry can still be read for a while.
 *
 * @module
 */

import { GatewayApiException } from "../errors.ts";

/** One key's current window, as stored. */
export interface WindowEntry {
  /** Attempts taken in this window. */
  count: number;
  /** `maxAttempts` of the last attempt, so `availableIn` (which is not given it) knows whether one is free. */
  max: number;
  /** When the window opened (epoch ms). */
  start: number;
  /** When the window closes (epoch ms, exclusive). */
  reset: number;
}

/** What taking one attempt at `now` does to `entry`: the entry to store, or null when refused. */
export function nextWindow(
  entry: WindowEntry | null | undefined,
  maxAttempts: number,
  decaySeconds: number,
  now: number,
): WindowEntry | null {
  if (!entry || now >= entry.reset) {
    return { count: 1, max: maxAttempts, start: now, reset: now + decaySeconds * 1000 };
  }
  if (entry.count >= maxAttempts) return null;
  return { count: entry.count + 1, max: maxAttempts, start: entry.start, reset: entry.reset };
}

/** Seconds (fractional, exact to the ms) until `entry` has a free slot at `now`; 0 when one is free. */
export function secondsUntilFree(entry: WindowEntry | null | undefined, now: number): number {
  if (!entry || now >= entry.reset || entry.count < entry.max) return 0;
  return (entry.reset - now) / 1000;
}

/** Reject arguments no window can be built from (a caller bug, not a limit). */
export function checkArguments(key: string, maxAttempts: number, decaySeconds: number): void {
  if (typeof key !== "string" || key === "") {
    throw new GatewayApiException("Cannot rate limit: the key must be a non-empty string");
  }
  if (!Number.isInteger(maxAttempts) || maxAttempts < 1) {
    throw new GatewayApiException(
      `Cannot rate limit "${key}": maxAttempts must be an integer >= 1, got ${JSON.stringify(maxAttempts)}`,
    );
  }
  checkDecay(key, decaySeconds);
}

/** Reject a window length that is not a positive finite number. */
export function checkDecay(key: string, decaySeconds: number): void {
  if (typeof decaySeconds !== "number" || !Number.isFinite(decaySeconds) || decaySeconds <= 0) {
    throw new GatewayApiException(
      `Cannot rate limit "${key}": decaySeconds must be a number > 0, got ${JSON.stringify(decaySeconds)}`,
    );
  }
}
