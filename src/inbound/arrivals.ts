/**
 * The order updates enter the inbound path of one process, and the gate that places each in its line in
 * that order. An update takes its number synchronously where it enters (a webhook when its body is in,
 * `process`/`handleUpdate` when called); finding its line may need the store (a chat's `@lid` looked up in
 * the directory), so the placing itself waits until every earlier number was placed or dropped. Two updates
 * of one chat are therefore placed in the order they arrived, whatever their own lookups took.
 *
 * @module
 */

/**
 * An update's entry into the inbound path: placed in its line once (or dropped), then ended once. The
 * receiver takes one from its processor when a webhook's body is in; a plain processor's places nothing.
 *
 * @example
 * ```ts
 * import { type Arrival, NO_ARRIVAL } from "@gw/gateway/webhooks";
 * const arrival: Arrival = NO_ARRIVAL; // what a processor without lines gives
 * arrival.end();
 * ```
 */
export interface Arrival<P = unknown> {
  /** Processing took the arrival over: it ends it when done (the receiver does not). */
  taken: boolean;
  /** Place the update in its line (the first call places; later calls do nothing). */
  place(payload: P): void;
  /** Leave the line (or give the number up when never placed). Idempotent. */
  end(): void;
}

/**
 * An arrival that is placed nowhere: what a processor without lines gives. Already "taken": the receiver has
 * nothing to give up for it.
 *
 * @example
 * ```ts
 * import { NO_ARRIVAL } from "@gw/gateway/webhooks";
 * NO_ARRIVAL.taken; // true
 * ```
 */
export const NO_ARRIVAL: Arrival = Object.freeze({
  taken: true,
  place() {},
  end() {},
});

/** Numbers in arrival order, placed in that order. */
export class Arrivals {
  #next = 0;
  #head = 0;
  // Numbers past the head that are ready: the placing to run, or null when dropped.
  readonly #ready = new Map<number, (() => void) | null>();

  /** The number of an update entering now. Call it synchronously where the update enters. */
  take(): number {
    return this.#next++;
  }

  /**
   * Run `place` once every earlier number was placed or dropped: at once (its result returned as it is)
   * when none is left before it, else later (a promise of its result). Why not plain `async`:
   * bench/README.md, "Where a result may be synchronous".
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

/** One arrival's turn in a {@link WriteOrder}: its write, or its giving up. */
export interface WriteTurn {
  /** Run `write` once every earlier arrival's write finished (or was given up); this turn ends after it. */
  run<T>(write: () => Promise<T>): Promise<T>;
  /** Give the turn up (it will not write, or wrote). Idempotent. */
  end(): void;
}

/**
 * Writes done in arrival order, each after the earlier ones finished: the queue-mode receiver writes its
 * jobs so (the queue delivers them in the order they were written, and a big body's job takes more writes
 * than a small one's, so starting them in order is not enough). Internal.
 */
export class WriteOrder {
  #tail: Promise<void> = Promise.resolve();

  /** The turn of an arrival entering now. Call it synchronously where the arrival enters. */
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
