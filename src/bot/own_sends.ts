/**
 * The bot's own messages: every message sent through the bot's service (a context action, `ctx.api`, the
 * service object itself) is noted by its id, so its echo (`send.message`, a `fromMe` upsert) never matches
 * `outgoing`. The service announces each send (`MessageSent`); the note is written to the bot's state then,
 * and a chat's turn ends only once the notes of its update are written. Internal.
 *
 * @module
 */

import { MessageSent } from "../events.ts";
import { getGatewayLogger } from "../log.ts";
import type { GatewayService } from "../service.ts";
import type { StateStore } from "../store/state.ts";

const SENT = "bot_sent";
/** How long the bot remembers the ids it sent, to recognise their echoes. */
export const SENT_WINDOW_MS = 86_400_000;

/** What {@link OwnSends} needs. */
export interface OwnSendsOptions {
  /** The bot's shared state. */
  state: StateStore;
  /** Clock. */
  now: () => number;
  /** Whether sent ids must be noted (only an `outgoing` query, or `groups: "mentions"`, reads them). */
  remembers: () => boolean;
}

/**
 * The bots watching each service's announcements, by their state: one listener per service, and one bot per
 * state (a restarted bot replaces the one it restarts, so restarts neither pile up listeners nor notes).
 */
const watchers = new WeakMap<EventTarget, Map<StateStore, OwnSends>>();

function listen(events: EventTarget): Map<StateStore, OwnSends> {
  const bots = new Map<StateStore, OwnSends>();
  events.addEventListener(MessageSent.type, (event) => {
    const { instance, messageId } = event as MessageSent;
    if (messageId === null) return;
    for (const own of bots.values()) {
      // Nobody awaits an announcement: a failed note is logged (its echo may then reach `outgoing`).
      own.note(instance, messageId).catch((error) =>
        getGatewayLogger("bot").warn("Bot: cannot note sent message {id} as the bot's own ({error})", {
          id: messageId,
          error: error instanceof Error ? error.message : String(error),
        })
      );
    }
  });
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

  /**
   * Note `id` as the bot's own: resolves when the write (shared with a note of the same id in flight) is done.
   * The note is in place before the first await, so an echo checked meanwhile is the bot's already.
   */
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
  async settled(): Promise<void> {
    if (this.#writing.size > 0) await Promise.allSettled([...this.#writing.values()]);
  }
}
