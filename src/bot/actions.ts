/**
 * What a context's actions go through: the service (built at first use), the pacer's per-chat gap, the
 * idempotent send (a key per action), and the record of the bot's own message ids (so their echoes never
 * reach middleware).
 *
 * @module
 */

import type { ApiResponse } from "../client/response.ts";
import { SendPacer } from "../pacing/pacer.ts";
import { type PacingOptions, readRules } from "../pacing/rules.ts";
import type { CallOptions } from "../resources/resource.ts";
import type { GatewayService } from "../service.ts";
import type { StateStore } from "../store/state.ts";

const SENT = "bot_sent";
/** How long the bot remembers the ids it sent, to recognise their echoes. */
export const SENT_WINDOW_MS = 86_400_000;

/** The pacing a bot's replies follow by default: one reply per chat per second, no instance-wide gap. */
export const BOT_PACING: PacingOptions = {
  minGapMs: 0,
  jitterMs: 0,
  recipientIntervalMs: 1000,
  typing: false,
  dailyCap: Number.MAX_SAFE_INTEGER,
};

/** What {@link BotActions} needs. */
export interface BotActionsOptions {
  /** The service (built on first use). */
  service: () => GatewayService;
  /** The bot's shared state. */
  state: StateStore;
  /** Clock. */
  now: () => number;
  /** Sleep (for the pacer's gap). */
  sleep: (ms: number) => Promise<void>;
  /** Pacing of replies, or false for none. */
  pacing: PacingOptions | false;
  /** Whether sent ids must be remembered (only an `outgoing` query needs to tell them from others). */
  remembers: () => boolean;
}

/** Where one action goes: the instance, the chat (for pacing) and its idempotency key. */
export interface ActionTarget {
  /** Instance name. */
  instance: string;
  /** Chat JID (paced per chat). */
  chat: string;
  /** Idempotency key of the send. */
  key: string;
}

/** The actions every context of one bot shares. */
export class BotActions {
  readonly #options: BotActionsOptions;
  readonly #views = new Map<string, GatewayService>();
  #pacer: SendPacer | undefined;
  // Replies paced per chat only (no gap between the instance's sends): only the chat's last reply is kept.
  #perChatOnly = false;

  /** Build the actions of one bot (the bot does). */
  constructor(options: BotActionsOptions) {
    this.#options = options;
  }

  /** The service bound to `instance` (built on first use). */
  api(instance: string): GatewayService {
    let view = this.#views.get(instance);
    if (view === undefined) {
      const service = this.#options.service();
      view = instance === "" ? service : service.instance(instance);
      this.#views.set(instance, view);
    }
    return view;
  }

  /**
   * Send a message: wait for the chat's gap, send with the target's idempotency key (a second send with
   * the key returns the first answer without sending), then note the sent id as the bot's own.
   */
  async send<T extends ApiResponse<unknown>>(
    target: ActionTarget,
    send: (api: GatewayService, options: CallOptions) => Promise<T>,
  ): Promise<T> {
    const pacer = this.#pacing();
    const ref = { connection: "bot", instance: target.instance };
    if (pacer !== undefined) {
      const wait = await pacer.waitFor(ref, target.chat);
      if (wait > 0) await this.#options.sleep(wait);
    }
    const response = await send(this.api(target.instance), { idempotencyKey: target.key });
    const id = this.#options.remembers() ? idOf(response) : undefined;
    if (id !== undefined) await this.rememberSent(target.instance, id);
    if (pacer !== undefined && !response.replayed) {
      await (this.#perChatOnly
        ? pacer.recordRecipientSent(ref, target.chat)
        : pacer.recordSent(ref, target.chat));
    }
    return response;
  }

  /** Note `id` as a message this bot sent (its echo is dropped). */
  async rememberSent(instance: string, id: string): Promise<void> {
    await this.#options.state.set(SENT, `${instance}/${id}`, 1, {
      expiresAt: this.#options.now() + SENT_WINDOW_MS,
    });
  }

  /** Whether this bot sent message `id` (within the window). */
  async sentByBot(instance: string, id: string): Promise<boolean> {
    return (await this.#options.state.get(SENT, `${instance}/${id}`)) !== null;
  }

  #pacing(): SendPacer | undefined {
    const pacing = this.#options.pacing;
    if (pacing === false) return undefined;
    if (this.#pacer !== undefined) return this.#pacer;
    const options = { ...BOT_PACING, ...pacing };
    const rules = readRules(options);
    this.#perChatOnly = rules.minGapMs === 0 && rules.jitterMs === 0;
    return this.#pacer = new SendPacer(this.#options.state, options, { now: this.#options.now });
  }
}

function idOf(response: ApiResponse<unknown>): string | undefined {
  const data = response.data as { key?: { id?: unknown } } | undefined;
  const id = data?.key?.id;
  return typeof id === "string" && id !== "" ? id : undefined;
}
