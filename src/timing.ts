/**
 * Timing helpers shared by the client, the rate limiter and the polling helpers.
 *
 * @module
 */

/**
 * Resolve after `ms`; reject with `signal.reason` when `signal` aborts first (the timer is cleared).
 *
 * @example
 * ```ts
 * import { abortableSleep } from "@gw/gateway";
 * await abortableSleep(10);
 * ```
 */
export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, Math.max(0, ms));
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
