import { MAX_TIMER_MS } from "./util/timers.ts";

/**
 * The longest `delay` a send or `sendPresence` may ask of the server, in ms (5 minutes): the server holds the
 * request open that long, showing "composing", and the client's attempt timeout and deadline stretch by it.
 */
export const MAX_SERVER_DELAY_MS = 300_000;

/**
 * A delay a timer can wait: at least 0, at most `2^31 - 1` ms (24.8 days). Runtimes fire a longer timer at
 * once, so a bigger value (a timeout or deadline set to the largest the schema accepts, plus a server delay)
 * is clamped to the longest wait a timer can do instead.
 */
export function timerDelay(ms: number): number {
  return ms > MAX_TIMER_MS ? MAX_TIMER_MS : ms > 0 ? ms : 0;
}

/** Resolve after `ms`; reject with `signal.reason` when `signal` aborts first (the timer is cleared). */
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
    }, timerDelay(ms));
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

interface SharedTimeout {
  signal: AbortSignal;
  /** performance.now() until which attempts may join this signal. */
  joinUntil: number;
}

/**
 * Attempt timeouts sharing one `AbortSignal.timeout` per window (1 % of the timeout, at most 1 s), since a
 * timer per request costs on a fast round trip: never early, at most 1 % late; under 100 ms, one each.
 */
export class SharedTimeouts {
  readonly #current = new Map<number, SharedTimeout>();

  /** A signal that aborts no sooner than `ms` from now, and at most 1 % (≤ 1 s) later. */
  signal(ms: number): AbortSignal {
    const window = Math.min(1000, Math.floor(ms / 100));
    if (window < 1) return AbortSignal.timeout(timerDelay(ms));
    const now = performance.now();
    const shared = this.#current.get(ms);
    if (shared !== undefined && now <= shared.joinUntil && !shared.signal.aborted) return shared.signal;
    const signal = AbortSignal.timeout(timerDelay(ms + window));
    if (this.#current.size > 64) this.#current.clear();
    this.#current.set(ms, { signal, joinUntil: now + window });
    return signal;
  }
}
