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

/** Fill in the retry defaults (2 retries, 500 ms base, 8 s cap, 60 s longest Retry-After). */
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
 */
export function backoffDelay(policy: RetryPolicy, retry: number, random: () => number): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** retry);
  return Math.round(ceiling / 2 + (ceiling / 2) * random());
}

/**
 * Whether a request whose fetch failed may be sent again: when safe to repeat, or when it cannot have reached
 * the server (refused connection, failed DNS lookup); never a send that may have arrived.
 */
export function retriesFailedFetch(failure: { idempotent: boolean; notSent: boolean }): boolean {
  return failure.idempotent || failure.notSent;
}

/**
 * Whether an answer's status is retried before its body is read: 408, 429, 500, 502 and 504 for a request that
 * is safe to repeat, 429 alone for one that is not. A 503 is decided once its body is read
 * ({@link retriesAnswer}): the server's license gate answers 503 too, and that one never heals by itself.
 */
export function retriesStatus(idempotent: boolean, status: number): boolean {
  if (status === 503) return false;
  return idempotent ? RETRYABLE_STATUSES.has(status) : NOT_ACTED_STATUSES.has(status);
}

/** Whether an answer whose body was read is retried: a 503 that is not the license gate's. */
export function retriesAnswer(status: number, licenseRequired: boolean): boolean {
  return status === 503 && !licenseRequired;
}

/** What to do before the next attempt: wait, stop retrying, or refuse a `Retry-After` that is too long. */
export type RetryWait =
  | { kind: "wait"; delayMs: number }
  | { kind: "stop" }
  | { kind: "too_long"; retryAfterMs: number };

/** What {@link retryWait} decides from. */
export interface RetryWaitInput {
  /** The attempt that just failed (1 for the first). */
  attempt: number;
  /** Retries allowed after the first attempt. */
  maxRetries: number;
  /** The clock now (epoch ms). */
  now: number;
  /** The call's overall deadline (epoch ms). */
  deadlineAt: number;
  /** The server's `Retry-After` in ms, or null when it gave none. */
  retryAfterMs: number | null;
  /** Random number in [0, 1) for the jitter. */
  random: () => number;
}

/**
 * How long to wait before the next attempt. `stop` when the retries are used up or the wait would pass the
 * deadline; `too_long` when the server's `Retry-After` is longer than `maxRetryAfterMs` or the deadline
 * allows (the caller then fails at once with a `RateLimitException` instead of retrying early).
 */
export function retryWait(policy: RetryPolicy, input: RetryWaitInput): RetryWait {
  if (input.attempt > input.maxRetries) return { kind: "stop" };
  const { retryAfterMs, now, deadlineAt } = input;
  if (retryAfterMs !== null && (retryAfterMs > policy.maxRetryAfterMs || now + retryAfterMs > deadlineAt)) {
    return { kind: "too_long", retryAfterMs };
  }
  const delayMs = retryAfterMs ?? backoffDelay(policy, input.attempt - 1, input.random);
  return now + delayMs >= deadlineAt ? { kind: "stop" } : { kind: "wait", delayMs };
}

/** Parse a `Retry-After` or `retry-after-ms` header into milliseconds (null when absent or unreadable). */
export function parseRetryAfter(headers: Headers, now: number): number | null {
  const ms = headers.get("retry-after-ms");
  if (ms !== null && ms.trim() !== "") {
    const value = Number(ms);
    if (Number.isFinite(value) && value >= 0) return value;
  }
  const raw = headers.get("retry-after");
  if (raw === null || raw.trim() === "") return null;
  if (/^\s*\d+(\.\d+)?\s*$/.test(raw)) return Math.round(Number(raw) * 1000);
  const date = Date.parse(raw);
  if (Number.isNaN(date)) return null;
  return Math.max(0, date - now);
}
