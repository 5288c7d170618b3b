/**
 * Per-chat order on a `MemoryState` (this process only): a line of promises gives the tickets' order with
 * no store operation or renewal timer. Bots on one `MemoryState` share the lines, as they would the tickets.
 *
 * @module
 */

import { MemoryState } from "../backends/memory/state.ts";
import type { StateStore } from "../store/state.ts";
import {
  type ArrivalSlot,
  type ChatLines,
  ChatOrder,
  type ChatOrderOptions,
  type ChatTurn,
} from "./chat_order.ts";

const DONE: Promise<void> = Promise.resolve();

/**
 * The last arrival of each chat of one state. A chat whose line emptied keeps its last place, passed (a map
 * entry added and deleted per update costs its table's regrowth), until the map doubled since the last sweep.
 */
interface Tails {
  readonly places: Map<string, Place>;
  sweepAt: number;
}

const linesByState = new WeakMap<MemoryState, Tails>();

/**
 * A place in a chat's line, and its turn once entered: its turn comes when the arrival before it ends its
 * own (or gives it up).
 */
class Place implements ArrivalSlot, ChatTurn {
  readonly before: Promise<void>;
  #released = false;
  /** Its turn and every earlier one ended: a later arrival waits for nothing. */
  passed = false;
  // Made only when a later arrival waits for this one (most never do: their chat's line is empty).
  #ending: Promise<void> | undefined;
  #end: (() => void) | undefined;

  constructor(last: Place | undefined) {
    this.before = last === undefined || last.passed ? DONE : last.#whenEnded();
  }

  #whenEnded(): Promise<void> {
    return this.#ending ??= new Promise<void>((resolve) => this.#end = resolve);
  }

  /** End the turn (or give up the place): the next arrival's turn comes once the earlier ones ended. */
  release(): void {
    if (this.#released) return;
    this.#released = true;
    if (this.before === DONE) this.#pass();
    else void this.before.then(() => this.#pass());
  }

  /** End the turn: nothing to write, so done at once. */
  leave(): Promise<void> {
    this.release();
    return DONE;
  }

  #pass(): void {
    this.passed = true;
    this.#end?.();
  }
}

/** The lines of every chat of the bots on one `MemoryState`. */
export class LocalChatOrder implements ChatLines {
  readonly #tails: Tails;

  constructor(state: MemoryState) {
    let tails = linesByState.get(state);
    if (tails === undefined) linesByState.set(state, tails = { places: new Map(), sweepAt: 1024 });
    this.#tails = tails;
  }

  /** Note an update of `chat` arriving now (call in arrival order, before anything asynchronous). */
  arrive(instance: string, chat: string): ArrivalSlot {
    const { places } = this.#tails;
    const key = `${instance}/${chat}`;
    const last = places.get(key);
    if (last === undefined && places.size >= this.#tails.sweepAt) this.#sweep();
    const place = new Place(last);
    places.set(key, place);
    return place;
  }

  // Drops the chats whose lines are empty (their last place passed).
  #sweep(): void {
    const tails = this.#tails;
    for (const [key, place] of tails.places) {
      if (place.passed) tails.places.delete(key);
    }
    tails.sweepAt = Math.max(1024, tails.places.size * 2);
  }

  /** The turn of an update of `chat`, once every earlier arrival ended. */
  enter(instance: string, chat: string, slot?: ArrivalSlot): Promise<ChatTurn> {
    const place = slot instanceof Place ? slot : this.arrive(instance, chat) as Place;
    return place.before === DONE ? Promise.resolve(place) : place.before.then(() => place);
  }

  /** Nothing is written anywhere: always settled. */
  settled(): Promise<void> {
    return DONE;
  }
}

/** A bot's chat lines: in memory on a `MemoryState` (exact and free there), else tickets in the store. */
export function chatLines(state: StateStore, options: ChatOrderOptions): ChatLines {
  return state instanceof MemoryState ? new LocalChatOrder(state) : new ChatOrder(state, options);
}
