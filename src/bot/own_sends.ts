/**
 * Every send through the bot's service (actions, `ctx.api`, the service) is noted by id when announced
 * (`MessageSent`), so its echo never matches `outgoing`; a chat's turn ends once its notes are written.
 *
 * @module
 */

import { MessageSent } from "../events.ts";
import { getGatewayLogger } from "../log.ts";
import type { GatewayService } from "../service.ts";
import type { StateStore } from "../store/state.ts";

const SENT = "bot_sent";
const DONE: Promise<void> = Promise.resolve();
/** How long the bot remembers the ids it sent, to recognise their echoes. */
export const SENT_WINDOW_MS = 86_400_000;

/** What {@link OwnSends} needs. */
export interface OwnSendsOptions {
  /** The bot's shared state. */
  state: StateStore;
  /** Clock. */
  now: () => number;
  /**
   * Whether sent ids must be noted (only an `outgoing` query, or `groups: "mentions"`, reads them); once
   * false, false for good.
   */
  remembers: () => boolean;
}

/** One listener per service, one bot per state: a restarted bot replaces the old one (nothing piles up). */
const watchers = new WeakMap<EventTarget, Map<StateStore, OwnSends>>();

function listen(events: EventTarget): Map<StateStore, OwnSends> {
  const bots = new Map<StateStore, OwnSends>();
  const listener = (event: Event) => {
    const { instance, messageId } = event as MessageSent;
    if (messageId === null) return;
    for (const [state, own] of bots) {
      if (!own.notes()) {
        // A bot that notes nothing never will (what it reads is fixed at its first send): it stops listening,
        // and once no bot listens the service builds no announcement for it (`watch` listens again).
        bots.delete(state);
        if (bots.size === 0 && watchers.get(events) === bots) {
          watchers.delete(events);
          events.removeEventListener(MessageSent.type, listener);
        }
        continue;
      }
      // Nobody awaits an announcement: a failed note is logged (its echo may then reach `outgoing`).
      own.note(instance, messageId).catch((error) =>
        getGatewayLogger("bot").warn("Bot: cannot note sent message {id} as the bot's own ({error})", {
          id: messageId,
          error: error instanceof Error ? error.message : String(error),
        })
      );
    }
  };
  events.addEventListener(MessageSent.type, listener);
  return bots;
}

/** The ids of the messages the bot sent, noted as the service announces them. */
export class OwnSends {
  readonly #options: OwnSendsOptions;
  /** Notes being written, by `instance/id`: an echo checked meanwhile is the bot's already. */
  readonly #writing = new Map<string, Promise<void>>();

  constructor(options: OwnSendsOptions) {
    this.#options = options;
  }

  /** Note every send `service` (and every view of it) makes from now on. */
  watch(service: GatewayService): void {
    const events = service.events;
    let bots = watchers.get(events);
    if (bots === undefined) watchers.set(events, bots = listen(events));
    bots.set(this.#options.state, this);
  }

  /** Whether sent ids are noted at all (only when a query reads them; once false, false for good). */
  notes(): boolean {
    return this.#options.remembers();
  }

  /** Note `id` as the bot's own (in place before the first await); resolves once written. */
  async note(instance: string, id: string): Promise<void> {
    if (!this.#options.remembers()) return;
    const key = `${instance}/${id}`;
    let write = this.#writing.get(key);
    if (write === undefined) {
      const { state, now } = this.#options;
      write = state.set(SENT, key, 1, { expiresAt: now() + SENT_WINDOW_MS }).then(() => {});
      this.#writing.set(key, write);
      const done = () => void this.#writing.delete(key);
      write.then(done, done);
    }
    await write;
  }

  /** Whether the bot sent message `id` (within the window). */
  async has(instance: string, id: string): Promise<boolean> {
    const key = `${instance}/${id}`;
    if (this.#writing.has(key)) return true;
    return (await this.#options.state.get(SENT, key)) !== null;
  }

  /** Settles (never rejects) when the notes still being written have. */
  settled(): Promise<void> {
    if (this.#writing.size === 0) return DONE; // every turn asks: no promise of its own when none is
    return Promise.allSettled([...this.#writing.values()]).then(() => {});
  }
}
