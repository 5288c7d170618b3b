/**
 * What a context's actions go through: the service (built at first use), the pacer's per-chat gap, the
 * idempotent send (a key per action), and the record of the bot's own message ids (so their echoes never
 * reach middleware).
 *
 * @module
 */

import type { ApiResponse } from "../client/response.ts";
import type { PacingOptions } from "../pacing/rules.ts";
import type { CallOptions } from "../resources/resource.ts";
import type { GatewayService } from "../service.ts";
import type { StateStore } from "../store/state.ts";
import { ReplyGap } from "./reply_gap.ts";

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
  #gap: ReplyGap | null | undefined; // null: no pacing

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
    const gap = this.#pacing();
    // The service's connection, as `sendMany` names it: both pace one chat through one record.
    const ref = { connection: this.api(target.instance).getConnectionName(), instance: target.instance };
    if (gap !== null) {
      let wait = gap.waitMs(ref, target.chat);
      if (typeof wait !== "number") wait = await wait;
      if (wait > 0) await this.#options.sleep(wait);
    }
    const response = await send(this.api(target.instance), { idempotencyKey: target.key });
    const id = this.#options.remembers() ? idOf(response) : undefined;
    if (id !== undefined) await this.rememberSent(target.instance, id);
    const noted = gap !== null && !response.replayed ? gap.sent(ref, target.chat) : undefined;
    if (noted !== undefined) await noted;
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

  #pacing(): ReplyGap | null {
    if (this.#gap !== undefined) return this.#gap;
    const { pacing, state, now } = this.#options;
    return this.#gap = pacing === false ? null : new ReplyGap(state, BOT_PACING, pacing, now);
  }
}

function idOf(response: ApiResponse<unknown>): string | undefined {
  const data = response.data as { key?: { id?: unknown } } | undefined;
  const id = data?.key?.id;
  return typeof id === "string" && id !== "" ? id : undefined;
}
