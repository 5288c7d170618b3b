/**
 * Per-chat order across processes: each update takes a ticket (a compare-and-set increment) at arrival and
 * runs when the chat's "now serving" reaches it; other chats run concurrently. A process's queued arrivals
 * take their tickets in one compare-and-set, in arrival order (across processes: the order writes land).
 *
 * A ticket given up (a redelivery, a refused update) is skipped. The holder renews its turn; one that
 * stopped (a crash) is skipped after `leaseMs` without a move, never by a waiter of its own process (it is
 * alive, whatever the clock says), and its process's other tickets of the chat go with it: one lease frees
 * the chat, not one per ticket. Same-process waiters wake at once, others poll every `pollMs`. Only the
 * `StateStore` contract is used, so every engine works.
 *
 * @module
 */

import { WebhookException } from "../errors.ts";
import { getGatewayLogger } from "../log.ts";
import type { StateEntry, StateStore } from "../store/state.ts";
import { after, type Line, servedBy, withoutGone } from "./chat_line.ts";

const NAMESPACE = "bot_chat_order";
const CAS_ATTEMPTS = 64;
const RECORD_TTL_MS = 86_400_000;
const logger = getGatewayLogger("bot", "order");

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

/** An update's place in its chat's line, taken when it arrived: give it up when it will not run. */
export interface ArrivalSlot {
  /** Give up the place (idempotent; nothing once its turn was entered). */
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
  /** Once the lines' store writes still in flight (places given up) are done. */
  settled(): Promise<void>;
}

/** One arrival's ticket, on its way from the store. */
class Ticket implements ArrivalSlot {
  readonly taken: Promise<number>;
  resolve!: (ticket: number) => void;
  reject!: (error: unknown) => void;
  entered = false;
  #released = false;
  readonly #giveUp: (taken: Promise<number>) => void;

  constructor(giveUp: (taken: Promise<number>) => void) {
    this.#giveUp = giveUp;
    this.taken = new Promise<number>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
    this.taken.catch(() => {}); // the update's processing fails with it
  }

  release = (): void => {
    if (this.entered || this.#released) return;
    this.#released = true;
    this.#giveUp(this.taken);
  };
}

/** The lines of every chat of one bot, in the store. */
export class ChatOrder implements ChatLines {
  readonly #state: StateStore;
  readonly #options: ChatOrderOptions;
  // This process's name in the lines it takes tickets of.
  readonly #id = crypto.randomUUID();
  // The arrivals of each chat waiting for their tickets, in arrival order (present while a taker runs).
  readonly #queues = new Map<string, Ticket[]>();
  // The line as this process last wrote it, per chat whose turn it holds (to leave in one step).
  readonly #known = new Map<string, Taken>();
  // The sleep the waiters of each chat share, cut short when a turn of the chat ends here.
  readonly #pauses = new Map<string, { promise: Promise<void>; wake: () => void }>();
  // The turns this process holds now (`key#ticket`): alive whatever the clock says, never skipped here.
  readonly #holding = new Set<string>();
  // The read of each chat's line in flight for its waiters.
  readonly #looks = new Map<string, Promise<StateEntry<Line> | null>>();
  // The tickets of each chat given up here and not written yet (present while a write of them runs).
  readonly #givenUp = new Map<string, number[]>();
  // The give-ups on their way to the store (they outlive their update's answer).
  readonly #writing = new Set<Promise<void>>();

  constructor(state: StateStore, options: ChatOrderOptions) {
    this.#state = state;
    this.#options = options;
  }

  /** Once the tickets given up here are written (what `bot.close()` waits for). */
  async settled(): Promise<void> {
    while (this.#writing.size > 0) await Promise.all(this.#writing);
  }

  /** An update of `chat` arriving now takes its ticket (call in arrival order, before anything asynchronous). */
  arrive(instance: string, chat: string): ArrivalSlot {
    const key = `${instance}/${chat}`;
    const ticket = new Ticket((taken) => {
      const writing = taken.then((number) => this.#giveUp(key, number)).catch(() => {}); // logged there
      this.#writing.add(writing);
      writing.finally(() => this.#writing.delete(writing));
    });
    const queue = this.#queues.get(key);
    if (queue !== undefined) queue.push(ticket);
    else {
      this.#queues.set(key, [ticket]);
      void this.#takeQueued(key);
    }
    return ticket;
  }

  /** Take the tickets of the chat's queued arrivals, as many as queued in one compare-and-set. */
  async #takeQueued(key: string): Promise<void> {
    const queue = this.#queues.get(key)!;
    while (queue.length > 0) {
      const batch = queue.splice(0);
      try {
        const taken = await this.#takeTickets(key, batch.length);
        batch.forEach((ticket, i) => ticket.resolve(taken.ticket + i));
        if (batch.length === 1 && taken.line.serving === taken.ticket) this.#known.set(key, taken);
      } catch (error) {
        for (const ticket of batch) ticket.reject(error);
      }
    }
    this.#queues.delete(key);
  }

  /** Wait for the turn of the update holding `slot` (from {@link ChatOrder.arrive}; else taken now). */
  async enter(instance: string, chat: string, slot?: ArrivalSlot): Promise<ChatTurn> {
    const key = `${instance}/${chat}`;
    const mine = slot instanceof Ticket ? slot : this.arrive(instance, chat) as Ticket;
    mine.entered = true;
    let ticket: number;
    try {
      ticket = await mine.taken;
      const known = this.#known.get(key);
      // Its turn already when the ticket was taken (the usual case): no need to look again.
      if (known?.ticket !== ticket || known.line.serving !== ticket) await this.#waitFor(key, ticket);
    } catch (error) {
      // It will not run (the store failed, or its turn was skipped): its ticket must not hold the chat.
      mine.entered = false;
      mine.release();
      throw error;
    }
    // A live holder renews every third of the lease, so only a gone one is skipped. Real time on purpose:
    // an injected sleep may not wait (a harness's), and liveness is about the process, not the clock.
    const every = Math.max(1, Math.floor(this.#options.leaseMs / 3));
    const renewal = setInterval(() =>
      void this.#renew(key, ticket).catch((error) => {
        logger.warn("Cannot renew the turn of chat {key} (the next update may take it over): {error}", {
          key,
          error: String(error),
        });
      }), every);
    const held = `${key}#${ticket}`;
    this.#holding.add(held);
    return {
      leave: () => {
        clearInterval(renewal); // a renewal still in flight cannot undo the leave: both compare-and-set the line
        this.#holding.delete(held);
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

  async #takeTickets(key: string, count: number): Promise<Taken> {
    for (let attempt = 0; attempt < CAS_ATTEMPTS; attempt++) {
      const entry = await this.#state.get<Line>(NAMESPACE, key);
      const now = this.#options.now();
      const line = entry?.value ?? { next: 0, serving: 0, since: now };
      const by = [...servedBy(line, line.serving), [this.#id, line.next, count] as [string, number, number]];
      const next = { ...line, next: line.next + count, by };
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
      const entry = await this.#look(key);
      if (entry !== null && entry.value.serving === ticket) return;
      // The line moved past this ticket, or vanished with it: another process took this waiter's process for
      // gone (stalled past the lease) and skipped its turn; running now could run beside the next holder.
      if (entry === null || entry.value.serving > ticket) {
        throw new WebhookException(`Cannot process an update of chat "${key}": its turn was skipped`, {
          status: 503,
        });
      }
      const line = entry.value;
      const now = this.#options.now();
      if (now - line.since >= leaseMs && !this.#holding.has(`${key}#${line.serving}`)) {
        // The turn did not move for a whole lease: its holder is gone; skip it, and its process's tickets.
        await this.#write(key, entry.version, withoutGone(line, now, this.#id));
        continue;
      }
      await this.#pause(key, pollMs);
    }
  }

  /** Write `line` over `version` (or drop the line when null); whether it was written. */
  async #write(key: string, version: string, line: Line | null): Promise<boolean> {
    if (line === null) return await this.#state.delete(NAMESPACE, key, { expectedVersion: version });
    const written = await this.#state.set<Line>(NAMESPACE, key, line, {
      expectedVersion: version,
      expiresAt: this.#options.now() + RECORD_TTL_MS,
    });
    return written !== null;
  }

  /** Sleep `ms`, or less when a turn of `key` ends here; a chat's waiters share it (one poll per chat). */
  #pause(key: string, ms: number): Promise<void> {
    let pause = this.#pauses.get(key);
    if (pause === undefined) {
      const woken = new AbortController();
      const promise = this.#options.sleep(ms, woken.signal).catch(() => {}).finally(() => {
        if (this.#pauses.get(key)?.promise === promise) this.#pauses.delete(key);
      });
      pause = { promise, wake: () => woken.abort() };
      this.#pauses.set(key, pause);
    }
    return pause.promise;
  }

  /** The chat's line, read once for every waiter of this process that looks at the same time. */
  #look(key: string): Promise<StateEntry<Line> | null> {
    let look = this.#looks.get(key);
    if (look === undefined) {
      look = this.#state.get<Line>(NAMESPACE, key).finally(() => this.#looks.delete(key));
      this.#looks.set(key, look);
    }
    return look;
  }

  /**
   * A ticket that will not run: skipped at its turn (handed on now if it is). Give-ups arriving during a
   * write go in the next one together: one compare-and-set per round, not one each racing the others out of
   * attempts (which left the chat stuck until the lease).
   */
  #giveUp(key: string, ticket: number): Promise<void> {
    const pending = this.#givenUp.get(key);
    if (pending !== undefined) return (pending.push(ticket), Promise.resolve());
    this.#givenUp.set(key, [ticket]);
    return this.#skipQueued(key);
  }

  async #skipQueued(key: string): Promise<void> {
    const pending = this.#givenUp.get(key)!;
    try {
      while (pending.length > 0) {
        const tickets = pending.splice(0);
        await this.#skip(key, tickets).catch((error) => {
          logger.error("Cannot give up tickets {tickets} of chat {key} (skipped after the lease): {error}", {
            key,
            tickets,
            error: String(error),
          });
        });
      }
    } finally {
      this.#givenUp.delete(key);
    }
  }

  /** Write `tickets` as given up: skipped later, or handed on now when the turn is one of them. */
  async #skip(key: string, tickets: number[]): Promise<void> {
    for (let attempt = 0; attempt < CAS_ATTEMPTS; attempt++) {
      const entry = await this.#state.get<Line>(NAMESPACE, key);
      if (entry === null) return;
      const line = entry.value;
      const left = tickets.filter((t) => t >= line.serving);
      if (left.length === 0) return;
      const skipped = { ...line, skip: [...line.skip ?? [], ...left.filter((t) => t !== line.serving)] };
      const now = this.#options.now();
      const written = left.includes(line.serving)
        ? await this.#write(key, entry.version, after(skipped, line.serving, now))
        : await this.#write(key, entry.version, skipped);
      if (!written) continue;
      if (left.includes(line.serving)) {
        this.#known.delete(key); // the turn it noted is over: a line started anew may reuse its number
        this.#pauses.get(key)?.wake();
      }
      return;
    }
    throw new Error("the store kept changing");
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
        if (await this.#write(key, entry.version, after(entry.value, ticket, this.#options.now()))) return;
      }
      // Not thrown: the update ran; failing it now would run it again. The next waiter skips the turn after
      // the lease.
      logger.error(
        "Cannot hand on the turn of chat {key} (the store kept changing): the next update waits for the lease",
        {
          key,
        },
      );
    } finally {
      this.#pauses.get(key)?.wake();
    }
  }
}
