/**
 * The retry policy: which failures are retried, and how long to wait before the next attempt.
 * Every retry rule lives here so the request loop stays one plain loop.
 *
 * @module
 */

import { DEFAULTS, type RetryConfig } from "../config.ts";

/** Statuses retried for requests that are safe to repeat. */
export const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([408, 429, 500, 502, 503, 504]);

/** Statuses where the server cannot have acted, so even a message send may be retried. */
export const NOT_ACTED_STATUSES: ReadonlySet<number> = new Set([429, 503]);

/** The retry settings with every default filled in. */
export interface RetryPolicy {
  /** Retries after the first attempt. */
  maxRetries: number;
  /** First backoff delay in ms. */
  baseDelayMs: number;
  /** Largest backoff delay in ms. */
  maxDelayMs: number;
  /** Longest `Retry-After` honoured, in ms. */
  maxRetryAfterMs: number;
}

/**
 * Fill in the retry defaults (2 retries, 500 ms base, 8 s cap, 60 s longest Retry-After).
 *
 * @example
 * ```ts
 * import { retryPolicy } from "./retry.ts";
 * retryPolicy({ max_retries: 5 }).maxRetries; // 5
 * ```
 */
export function retryPolicy(config: RetryConfig = {}): RetryPolicy {
  return {
    maxRetries: config.max_retries ?? DEFAULTS.max_retries,
    baseDelayMs: config.base_delay_ms ?? DEFAULTS.base_delay_ms,
    maxDelayMs: config.max_delay_ms ?? DEFAULTS.max_delay_ms,
    maxRetryAfterMs: config.max_retry_after_ms ?? DEFAULTS.max_retry_after_ms,
  };
}

/**
 * Backoff before retry number `retry` (0 for the first retry): `min(maxDelayMs, baseDelayMs · 2^retry)`,
 * then "full jitter" scaled into [50 %, 100 %] of that value so retries spread without collapsing to zero.
 *
 * @example
 * ```ts
 * import { backoffDelay, retryPolicy } from "./retry.ts";
 * backoffDelay(retryPolicy(), 0, () => 1); // 500
 * backoffDelay(retryPolicy(), 5, () => 0); // 4000 (half of the 8000 cap)
 * ```
 */
export function backoffDelay(policy: RetryPolicy, retry: number, random: () => number): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** retry);
  return Math.round(ceiling / 2 + (ceiling / 2) * random());
}

const REFUSED =
  /connection refused|ECONNREFUSED|os error 111|os error 61|tcp connect error|dns error|failed to lookup|ENOTFOUND/i;

/**
 * True when a fetch failure happened before the request could reach the server (refused connection, DNS
 * failure), so retrying cannot act twice.
 *
 * @example
 * ```ts
 * import { failedBeforeSending } from "./retry.ts";
 * failedBeforeSending(new TypeError("tcp connect error: Connection refused (os error 111)")); // true
 * ```
 */
export function failedBeforeSending(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current; depth++) {
    const text = current instanceof Error ? `${current.name} ${current.message}` : String(current);
    if (REFUSED.test(text)) return true;
    const code = (current as { code?: unknown }).code;
    if (code === "ECONNREFUSED" || code === "ENOTFOUND") return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}
