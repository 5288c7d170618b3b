/**
 * A fixed-window rate limiter shared by every call that uses the same key.
 *
 * @example A custom limiter that never limits
 * ```ts
 * import type { RateLimiterInterface } from "@gw/gateway";
 * const unlimited: RateLimiterInterface = {
 *   attempt: () => Promise.resolve(true),
 *   availableIn: () => Promise.resolve(0),
 *   clear: () => Promise.resolve(),
 * };
 * ```
 */
export interface RateLimiterInterface {
  /** Take one slot for `key` if fewer than `maxAttempts` were taken in the current window; true when taken. */
  attempt(key: string, maxAttempts: number, decaySeconds: number): Promise<boolean>;
  /** Seconds until a slot frees for `key` (0 when one is free now). */
  availableIn(key: string, decaySeconds: number): Promise<number>;
  /** Forget every slot taken for `key`. */
  clear(key: string): Promise<void>;
}

/** Which limit a call counts against: chosen by the resource method, never by the URL. */
export type RateLimitBucket = "default" | "messages" | "media";
