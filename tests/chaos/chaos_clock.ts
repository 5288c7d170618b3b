/**
 * The clock every part of a chaos bot process uses: real time plus an offset the test sets over stdin, so
 * that the test can jump every process's clock past every lease at once. `sleep` waits on this clock: a
 * jump wakes the sleepers whose time it passed, as a real clock jump would wake a timer on it.
 */

interface Sleeper {
  until: number;
  wake: () => void;
  timer: ReturnType<typeof setTimeout> | undefined;
}

export class ChaosClock {
  #offset: number;
  readonly #sleepers = new Set<Sleeper>();

  constructor(offset: number) {
    this.#offset = offset;
  }

  readonly now = (): number => Date.now() + this.#offset;

  /** Move the clock to `offset` ms past real time (the test only ever moves it forward). */
  jump(offset: number): void {
    this.#offset = offset;
    for (const sleeper of [...this.#sleepers]) this.#check(sleeper);
  }

  readonly sleep = (ms: number, signal?: AbortSignal): Promise<void> =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const sleeper: Sleeper = { until: this.now() + ms, wake: () => {}, timer: undefined };
      const onAbort = () => {
        this.#drop(sleeper);
        reject(signal?.reason);
      };
      sleeper.wake = () => {
        signal?.removeEventListener("abort", onAbort);
        resolve();
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.#sleepers.add(sleeper);
      this.#check(sleeper);
    });

  #check(sleeper: Sleeper): void {
    clearTimeout(sleeper.timer);
    const left = sleeper.until - this.now();
    if (left <= 0) {
      this.#drop(sleeper);
      sleeper.wake();
      return;
    }
    sleeper.timer = setTimeout(() => this.#check(sleeper), left);
  }

  #drop(sleeper: Sleeper): void {
    clearTimeout(sleeper.timer);
    this.#sleepers.delete(sleeper);
  }
}
