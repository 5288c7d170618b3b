/** An update's entry into the inbound path (taken when a webhook's body is in): placed once, ended once. */
export interface Arrival<P = unknown> {
  /** Processing took the arrival over: it ends it when done (the receiver does not). */
  taken: boolean;
  /** Place the update in its line (the first call places; later calls do nothing). */
  place(payload: P): void;
  /** Leave the line (or give the number up when never placed). Idempotent. */
  end(): void;
}

/** The arrival of a processor without lines: placed nowhere, already taken. */
export const NO_ARRIVAL: Arrival = Object.freeze({
  taken: true,
  place() {},
  end() {},
});

/** Numbers taken synchronously where updates enter, placed in that order whatever finding each line took. */
export class Arrivals {
  #next = 0;
  #head = 0;
  // Numbers past the head that are ready: the placing to run, or null when dropped.
  readonly #ready = new Map<number, (() => void) | null>();

  /** The number of an update entering now. */
  take(): number {
    return this.#next++;
  }

  /**
   * Run `place` once every earlier number was placed or dropped: at once when none is left (why not plain
   * `async`: bench/README.md, "Where a result may be synchronous").
   */
  place<T>(number: number, place: () => T): T | Promise<T> {
    if (number === this.#head) {
      try {
        return place();
      } finally {
        this.#advance();
      }
    }
    return new Promise<T>((resolve, reject) => {
      this.#ready.set(number, () => {
        try {
          resolve(place());
        } catch (error) {
          reject(error);
        }
      });
    });
  }

  /** Give up a number that will not be placed (refused, nothing to order, failed): later ones go on. */
  drop(number: number): void {
    if (number < this.#head || this.#ready.has(number)) return;
    if (number === this.#head) this.#advance();
    else this.#ready.set(number, null);
  }

  #advance(): void {
    this.#head++;
    for (;;) {
      const ready = this.#ready.get(this.#head);
      if (ready === undefined) return;
      this.#ready.delete(this.#head);
      this.#head++;
      ready?.();
    }
  }
}

/** A turn in a {@link WriteOrder}: `run` its write after the earlier ones, or `end` (idempotent). */
export interface WriteTurn {
  run<T>(write: () => Promise<T>): Promise<T>;
  end(): void;
}

/** Writes in arrival order, each after the earlier ones finished (a big body's job takes more). Internal. */
export class WriteOrder {
  #tail: Promise<void> = Promise.resolve();

  /** The turn of an arrival entering now. */
  take(): WriteTurn {
    const before = this.#tail;
    let end!: () => void;
    const mine = new Promise<void>((resolve) => end = resolve);
    this.#tail = before.then(() => mine);
    return {
      run: async <T>(write: () => Promise<T>) => {
        await before;
        try {
          return await write();
        } finally {
          end();
        }
      },
      end,
    };
  }
}
