/**
 * Per-chat order across processes and isolates: each update of a chat takes a ticket (a compare-and-set
 * increment in the store), then runs when the chat's "now serving" number reaches it, so one chat's
 * updates run one at a time in the order their tickets were taken, while other chats run concurrently.
 *
 * The holder renews its turn while its middleware runs; a holder that stopped renewing (a crashed process)
 * is skipped once the turn has not moved or been renewed for the lease (`leaseMs`). Waiters in the same process are woken at once when a turn ends; others look again every
 * `pollMs`. Only the `StateStore` contract is used, so it works on every engine (memory, Deno KV, Redis,
 * Durable Objects, D1).
 *
 * @module
 */

import type { StateStore } from "../store/state.ts";

const NAMESPACE = "bot_chat_order";
const CAS_ATTEMPTS = 64;
const RECORD_TTL_MS = 86_400_000;

interface Line {
  /** The next ticket to hand out. */
  next: number;
  /** The ticket whose turn it is. */
  serving: number;
  /** When `serving` last moved (epoch ms). */
  since: number;
}

/** Settings of a {@link ChatOrder}. */
export interface ChatOrderOptions {
  /** Clock. */
  now: () => number;
  /** Sleep between two looks at the line; rejects when `signal` aborts (a waiter woken early). */
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** How long a turn may last before the next waiter skips it, in ms. */
  leaseMs: number;
  /** Time between two looks at the line, in ms. */
  pollMs: number;
}

/**
 * An update's place among the updates of its chat that arrived in this process: it takes its ticket once
 * those before it took theirs (or were dropped), so tickets follow arrival order even when the steps
 * before (claims in a busy store) finish out of order.
 */
export interface ArrivalSlot {
  /** Settles when every earlier arrival of the chat took its ticket or gave up its place. */
  readonly before: Promise<void>;
  /** Give up the place (idempotent): the next arrival may take its ticket. */
  release(): void;
}

/** A ticket taken, with the line and its version as written. */
interface Taken {
  ticket: number;
  line: Line;
  version: string;
}

/** A turn taken: leave it when done (always, also after a failure). */
export interface ChatTurn {
  /** End the turn: the next ticket runs. */
  leave(): Promise<void>;
}

/** Per-chat lines: in the store ({@link ChatOrder}) or, on a `MemoryState`, in memory (`LocalChatOrder`). */
export interface ChatLines {
  /** Note an update of `chat` arriving now (call in arrival order, before anything asynchronous). */
  arrive(instance: string, chat: string): ArrivalSlot;
  /** Wait for the turn of an update of `chat`; its place from `arrive` (a new one when absent). */
  enter(instance: string, chat: string, slot?: ArrivalSlot): Promise<ChatTurn>;
}

/** The lines of every chat of one bot, in the store. */
export class ChatOrder implements ChatLines {
  readonly #state: StateStore;
  readonly #options: ChatOrderOptions;
  // The last arrival of each chat in this process: the next one takes its ticket after it.
  readonly #tails = new Map<string, Promise<void>>();
  // The line as this process last wrote it, per chat whose turn it holds (to leave in one step).
  readonly #known = new Map<string, Taken>();
  // Waiters in this process, woken when a turn of their chat ends here.
  readonly #waiters = new Map<string, Set<() => void>>();

  constructor(state: StateStore, options: ChatOrderOptions) {
    this.#state = state;
    this.#options = options;
  }

  /** Note an update of `chat` arriving now (call in arrival order, before anything asynchronous). */
  arrive(instance: string, chat: string): ArrivalSlot {
    const key = `${instance}/${chat}`;
    const before = this.#tails.get(key) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((resolve) => release = resolve);
    this.#tails.set(key, mine);
    // The place frees only once the places before it did: a dropped update never lets a later one pass
    // an earlier one still on its way to its ticket.
    mine.then(() => {
      if (this.#tails.get(key) === mine) this.#tails.delete(key);
    });
    return { before, release: () => void before.then(release) };
  }

  /**
   * Wait for the turn of an update of `chat` (of `instance`): its ticket is taken after those of the updates
   * that arrived before it in this process (`slot`, from {@link ChatOrder.arrive}; a new one when absent).
   */
  async enter(instance: string, chat: string, slot?: ArrivalSlot): Promise<ChatTurn> {
    const key = `${instance}/${chat}`;
    const place = slot ?? this.arrive(instance, chat);
    let taken: Taken;
    try {
      await place.before;
      taken = await this.#takeTicket(key);
    } finally {
      place.release();
    }
    const ticket = taken.ticket;
    // Its turn already when the ticket was taken (the usual case): no need to look again.
    if (taken.line.serving !== ticket) await this.#waitFor(key, ticket);
    else this.#known.set(key, taken);
    // A live holder keeps its turn however long its middleware takes: it renews the turn every third of
    // the lease, so only a holder that is gone is ever skipped.
    // Real time on purpose: an injected sleep may not wait at all (a test harness's), and liveness is
    // about the process still running, whatever the clock says.
    const every = Math.max(1, Math.floor(this.#options.leaseMs / 3));
    const renewal = setInterval(() => void this.#renew(key, ticket).catch(() => {}), every);
    return {
      leave: () => {
        clearInterval(renewal); // a renewal still in flight cannot undo the leave: both compare-and-set the line
        return this.#leave(key, ticket);
      },
    };
  }

  async #renew(key: string, ticket: number): Promise<void> {
    const entry = await this.#state.get<Line>(NAMESPACE, key);
    if (entry === null || entry.value.serving !== ticket) return;
    const now = this.#options.now();
    this.#known.delete(key); // the version changes: leave looks the line up again
    await this.#state.set<Line>(NAMESPACE, key, { ...entry.value, since: now }, {
      expectedVersion: entry.version,
      expiresAt: now + RECORD_TTL_MS,
    });
  }

  async #takeTicket(key: string): Promise<Taken> {
    for (let attempt = 0; attempt < CAS_ATTEMPTS; attempt++) {
      const entry = await this.#state.get<Line>(NAMESPACE, key);
      const now = this.#options.now();
      const line = entry?.value ?? { next: 0, serving: 0, since: now };
      const next = { ...line, next: line.next + 1 };
      const written = await this.#state.set<Line>(NAMESPACE, key, next, {
        expectedVersion: entry?.version ?? null,
        expiresAt: now + RECORD_TTL_MS,
      });
      if (written !== null) return { ticket: line.next, line: next, version: written };
    }
    throw new Error(`Cannot order updates of chat "${key}": the store kept changing`);
  }

  async #waitFor(key: string, ticket: number): Promise<void> {
    const { leaseMs, pollMs } = this.#options;
    for (;;) {
      const entry = await this.#state.get<Line>(NAMESPACE, key);
      // The line vanished (expired) or moved past this ticket (skipped as stuck): go on.
      if (entry === null || entry.value.serving >= ticket) return;
      const line = entry.value;
      if (this.#options.now() - line.since >= leaseMs) {
        // The turn did not move for a whole lease: its holder is gone; skip it.
        await this.#state.set<Line>(NAMESPACE, key, {
          ...line,
          serving: line.serving + 1,
          since: this.#options.now(),
        }, {
          expectedVersion: entry.version,
          expiresAt: this.#options.now() + RECORD_TTL_MS,
        });
        continue;
      }
      await this.#pause(key, pollMs);
    }
  }

  /** Sleep `ms`, or less when a turn of `key` ends in this process. */
  async #pause(key: string, ms: number): Promise<void> {
    const woken = new AbortController();
    const wake = () => woken.abort();
    let set = this.#waiters.get(key);
    if (set === undefined) this.#waiters.set(key, set = new Set());
    set.add(wake);
    try {
      await this.#options.sleep(ms, woken.signal).catch(() => {});
    } finally {
      set.delete(wake);
      if (set.size === 0) this.#waiters.delete(key);
    }
  }

  async #leave(key: string, ticket: number): Promise<void> {
    try {
      // Nobody took a ticket or renewed since this one wrote the line: drop the line in one step.
      const known = this.#known.get(key);
      this.#known.delete(key);
      if (
        known?.ticket === ticket && known.line.next === ticket + 1 &&
        await this.#state.delete(NAMESPACE, key, { expectedVersion: known.version })
      ) return;
      for (let attempt = 0; attempt < CAS_ATTEMPTS; attempt++) {
        const entry = await this.#state.get<Line>(NAMESPACE, key);
        if (entry === null || entry.value.serving !== ticket) return; // skipped meanwhile: nothing to hand on
        const line = entry.value;
        const now = this.#options.now();
        const done = line.next === ticket + 1
          ? await this.#state.delete(NAMESPACE, key, { expectedVersion: entry.version })
          : await this.#state.set<Line>(NAMESPACE, key, { ...line, serving: ticket + 1, since: now }, {
            expectedVersion: entry.version,
            expiresAt: now + RECORD_TTL_MS,
          }) !== null;
        if (done) return;
      }
    } finally {
      for (const wake of this.#waiters.get(key) ?? []) wake();
    }
  }
}
