import { keepConnected, type KeepConnectedOptions } from "./keep_connected.ts";

/**
 * Runs `session` again and again until `close()` (the first may start before the constructor returns), and
 * tracks the handlers each session starts so that it can wait for them before closing.
 */
export class ConsumerLoop {
  /** Resolves once a session takes messages (or when the loop is closed before one could). */
  readonly ready: Promise<void>;
  /** Aborted by `close()`: ends the loop and cuts the waits short. */
  readonly signal: AbortSignal;
  readonly #stop = new AbortController();
  readonly #inflight = new Set<Promise<void>>();
  readonly #running: Promise<void>;

  constructor(
    session: (started: () => void, loop: ConsumerLoop) => Promise<void>,
    options: Omit<KeepConnectedOptions, "signal">,
  ) {
    this.signal = this.#stop.signal;
    const ready = Promise.withResolvers<void>();
    this.ready = ready.promise;
    this.signal.addEventListener("abort", () => ready.resolve(), { once: true });
    this.#running = keepConnected((started) =>
      session(() => {
        started();
        ready.resolve();
      }, this), { ...options, signal: this.signal });
  }

  /** Resolves when `close()` is called (at once when it already was). */
  stopped(): Promise<void> {
    return new Promise<void>((resolve) => {
      if (this.signal.aborted) resolve();
      this.signal.addEventListener("abort", () => resolve(), { once: true });
    });
  }

  /** Track one handler; returns how many are running now. */
  track(handled: Promise<void>): number {
    this.#inflight.add(handled);
    handled.finally(() => this.#inflight.delete(handled));
    return this.#inflight.size;
  }

  /** Resolves when one of the running handlers finishes. */
  oneDone(): Promise<void> {
    return Promise.race([...this.#inflight]);
  }

  /** Resolves when every handler running now has finished. */
  async allDone(): Promise<void> {
    await Promise.all([...this.#inflight]);
  }

  /** Stop, then wait for the running session to end. */
  async close(): Promise<void> {
    this.#stop.abort();
    await this.#running;
  }
}
