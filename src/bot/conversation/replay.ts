/**
 * The replay engine behind conversations. A dialogue's progress is a log: one entry per `wait` (the update)
 * and per `call` (a non-deterministic result: replies, `external`, `now`, `random`). To continue, the
 * function runs again from the start: within the log, waits and calls return the logged values without
 * running; past it they run for real and append. A wait with no update yet stops the run (it never
 * resolves) and the log is stored. Knows nothing of contexts or stores.
 *
 * @module
 */

/** One logged step. */
export type LogEntry =
  /** An update received by a wait (in the form `store` gave it). */
  | { wait: unknown }
  /** A call that returned `value` (`undefined` values are stored as absent). */
  | { call: string; value?: unknown }
  /** A call that threw. */
  | { call: string; error: { name: string; message: string } };

/** What a wait decides about the update offered to it. */
export interface WaitCheck<U> {
  /** Whether the update is the one waited for. */
  accepts: (update: U) => boolean;
  /** Called (for real) with an update that was not accepted, instead of passing it on. */
  otherwise?: (update: U) => unknown;
  /** Give up waiting this many ms after the wait started. */
  maxMs?: number;
}

/** How a run ended. */
export type RunOutcome<U> =
  /** The function returned (or called `exit`): the dialogue is over. */
  | { kind: "done" }
  /** The function waits for an update: store `log`; `deadline` is when the wait gives up, if it does. */
  | { kind: "waiting"; log: LogEntry[]; deadline?: number }
  /** The offered update was not accepted by the wait: nothing changed. */
  | { kind: "skipped"; otherwise?: (update: U) => unknown };

/** A logged step did not match what the function did: the function changed under a stored dialogue. */
export class ReplayMismatchError extends Error {
  /** Name the step that differs. */
  constructor(position: number, expected: string, found: string) {
    super(
      `Cannot replay conversation: step ${position} is a ${found} in the stored log but the dialogue did a ${expected}; ` +
        `the dialogue changed without a new version`,
    );
    this.name = "ReplayMismatchError";
  }
}

/** Inputs of one run. */
export interface ReplayInput<U> {
  /** The stored log (not modified). */
  log: readonly LogEntry[];
  /** The update offered to the first wait past the log, if any. */
  offer?: U;
  /** Turn a logged wait entry back into an update. */
  rebuild: (stored: unknown) => U;
  /** Reduce an accepted update to what the log keeps (the wait then returns `rebuild` of it). */
  store: (update: U) => unknown;
  /** The clock for deadlines. */
  now: () => number;
}

/** A copy of a logged JSON value, so the dialogue cannot change the log through it. */
function copyJson<T>(value: T): T {
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map(copyJson) as T;
  const copy: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) copy[key] = copyJson(inner);
  return copy as T;
}

const never = new Promise<never>(() => {});

/** One run of a dialogue function over a log. */
export class Replay<U> {
  readonly #input: ReplayInput<U>;
  readonly #log: LogEntry[];
  #cursor = 0;
  #offered: boolean;
  #pending = new Set<Promise<unknown>>();
  #finish!: (outcome: RunOutcome<U>) => void;
  #fail!: (error: unknown) => void;
  /** Resolves with how the run ended (a thrown function rejects it). */
  readonly outcome: Promise<RunOutcome<U>>;

  constructor(input: ReplayInput<U>) {
    this.#input = input;
    this.#log = [...input.log];
    this.#offered = input.offer !== undefined;
    this.outcome = new Promise((resolve, reject) => {
      this.#finish = resolve;
      this.#fail = reject;
    });
  }

  /** Run `body`; the outcome settles when it returns, throws, or stops at a wait. */
  start(body: () => Promise<unknown>): Promise<RunOutcome<U>> {
    body().then(
      () => this.#stop({ kind: "done" }),
      (error) => this.#stop({ error }),
    );
    return this.outcome;
  }

  /** Whether the run is past the log (doing things for real). */
  get live(): boolean {
    return this.#cursor >= this.#input.log.length;
  }

  /** The next update: logged, or the offered one when accepted; otherwise the run stops here. */
  wait(check: WaitCheck<U>): Promise<U> {
    const position = this.#cursor;
    if (position < this.#input.log.length) {
      const entry = this.#input.log[position];
      if (!("wait" in entry)) throw new ReplayMismatchError(position, "wait", `call ${entry.call}`);
      this.#cursor++;
      return Promise.resolve(this.#input.rebuild(entry.wait));
    }
    const offer = this.#input.offer;
    if (this.#offered && offer !== undefined) {
      this.#offered = false;
      if (!check.accepts(offer)) {
        this.#stop({ kind: "skipped", otherwise: check.otherwise });
        return never;
      }
      const stored = this.#input.store(offer);
      this.#log.push({ wait: stored });
      this.#cursor++;
      // The stored form, as a replay will rebuild it: the first run sees what every replay sees.
      return Promise.resolve(this.#input.rebuild(stored));
    }
    const deadline = check.maxMs === undefined ? undefined : this.#input.now() + check.maxMs;
    this.#stop({ kind: "waiting", log: this.#log, deadline });
    return never;
  }

  /** A side effect or varying result: logged in replay, `fn()` past the log; `read` of the logged result. */
  call<T>(
    label: string,
    fn: () => unknown,
    read: (logged: unknown) => T = copyJson as (v: unknown) => T,
  ): Promise<T> {
    const position = this.#cursor++;
    if (position < this.#input.log.length) {
      const entry = this.#input.log[position];
      if (!("call" in entry)) throw new ReplayMismatchError(position, `call ${label}`, "wait");
      if (entry.call !== label) {
        throw new ReplayMismatchError(position, `call ${label}`, `call ${entry.call}`);
      }
      if ("error" in entry) return Promise.reject(revive(entry.error));
      return Promise.resolve(read(entry.value));
    }
    const slot: LogEntry = { call: label };
    this.#log.push(slot);
    const running = (async () => await fn())();
    const settled = running.then(
      (value) => {
        if (value !== undefined) {
          (slot as { value?: unknown }).value = JSON.parse(JSON.stringify(value) ?? "null");
        }
      },
      (error: unknown) => {
        const { name, message } = error instanceof Error ? error : new Error(String(error));
        Object.assign(slot, { error: { name, message } });
      },
    );
    this.#pending.add(settled);
    settled.finally(() => this.#pending.delete(settled));
    // The logged result, as a replay will return it: the first run sees what every replay sees.
    return settled.then(() => {
      if ("error" in slot) return Promise.reject(revive(slot.error as { name: string; message: string }));
      return read((slot as { value?: unknown }).value);
    });
  }

  /** End the dialogue now (its function never continues). */
  exit(): Promise<never> {
    this.#stop({ kind: "done" });
    return never;
  }

  // The first stop wins; calls still running are awaited so their results are in the stored log.
  #stopped = false;
  #stop(outcome: RunOutcome<U> | { error: unknown }): void {
    if (this.#stopped) return;
    this.#stopped = true;
    Promise.allSettled([...this.#pending]).then(() => {
      if ("error" in outcome) this.#fail(outcome.error);
      else this.#finish(outcome);
    });
  }
}

function revive(stored: { name: string; message: string }): Error {
  const error = new Error(stored.message);
  error.name = stored.name;
  return error;
}
