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

// Per state: the last arrival of each chat (absent when its line is empty).
const linesByState = new WeakMap<MemoryState, Map<string, Place>>();

/**
 * A place in a chat's line, and its turn once entered: its turn comes when the arrival before it ends its
 * own (or gives it up).
 */
class Place implements ArrivalSlot, ChatTurn {
  readonly before: Promise<void>;
  readonly #tails: Map<string, Place>;
  readonly #key: string;
  #released = false;
  // Made only when a later arrival waits for this one (most never do: their chat's line is empty).
  #ending: Promise<void> | undefined;
  #end: (() => void) | undefined;

  constructor(tails: Map<string, Place>, key: string) {
    this.#tails = tails;
    this.#key = key;
    const last = tails.get(key);
    this.before = last === undefined ? DONE : last.#whenEnded();
    tails.set(key, this);
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
    if (this.#tails.get(this.#key) === this) this.#tails.delete(this.#key);
    this.#end?.();
  }
}

/** The lines of every chat of the bots on one `MemoryState`. */
export class LocalChatOrder implements ChatLines {
  readonly #tails: Map<string, Place>;

  constructor(state: MemoryState) {
    let tails = linesByState.get(state);
    if (tails === undefined) linesByState.set(state, tails = new Map());
    this.#tails = tails;
  }

  /** Note an update of `chat` arriving now (call in arrival order, before anything asynchronous). */
  arrive(instance: string, chat: string): ArrivalSlot {
    return new Place(this.#tails, `${instance}/${chat}`);
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
