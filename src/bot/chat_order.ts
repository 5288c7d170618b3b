/**
 * Per-chat order across processes and isolates: each update of a chat takes a ticket (a compare-and-set
 * increment in the store), then runs when the chat's "now serving" number reaches it, so one chat's
 * updates run one at a time in the order their tickets were taken, while other chats run concurrently.
 *
 * A holder that never leaves (a crashed process) is skipped once the turn has not moved for the lease
 * (`leaseMs`). Waiters in the same process are woken at once when a turn ends; others look again every
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

/** A turn taken: leave it when done (always, also after a failure). */
export interface ChatTurn {
  /** End the turn: the next ticket runs. */
  leave(): Promise<void>;
}

/** The lines of every chat of one bot. */
export class ChatOrder {
  readonly #state: StateStore;
  readonly #options: ChatOrderOptions;
  // Tickets are taken one at a time per chat in this process, in arrival order.
  readonly #taking = new Map<string, Promise<unknown>>();
  // Waiters in this process, woken when a turn of their chat ends here.
  readonly #waiters = new Map<string, Set<() => void>>();

  constructor(state: StateStore, options: ChatOrderOptions) {
    this.#state = state;
    this.#options = options;
  }

  /** Wait for the turn of a new update of `chat` (of `instance`). */
  async enter(instance: string, chat: string): Promise<ChatTurn> {
    const key = `${instance}/${chat}`;
    const previous = this.#taking.get(key) ?? Promise.resolve();
    const taking = previous.catch(() => {}).then(() => this.#takeTicket(key));
    this.#taking.set(key, taking);
    let ticket: number;
    try {
      ticket = await taking;
    } finally {
      if (this.#taking.get(key) === taking) this.#taking.delete(key);
    }
    await this.#waitFor(key, ticket);
    return { leave: () => this.#leave(key, ticket) };
  }

  async #takeTicket(key: string): Promise<number> {
    for (let attempt = 0; attempt < CAS_ATTEMPTS; attempt++) {
      const entry = await this.#state.get<Line>(NAMESPACE, key);
      const now = this.#options.now();
      const line = entry?.value ?? { next: 0, serving: 0, since: now };
      const written = await this.#state.set<Line>(NAMESPACE, key, { ...line, next: line.next + 1 }, {
        expectedVersion: entry?.version ?? null,
        expiresAt: now + RECORD_TTL_MS,
      });
      if (written !== null) return line.next;
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
