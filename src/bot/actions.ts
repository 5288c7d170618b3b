import type { ApiResponse } from "../client/response.ts";
import type { PacingOptions } from "../pacing/rules.ts";
import type { CallOptions } from "../resources/resource.ts";
import type { GatewayService } from "../service.ts";
import type { StateStore } from "../store/state.ts";
import { sendOnce } from "./action_keys.ts";
import { OwnSends } from "./own_sends.ts";
import { ReplyGap } from "./reply_gap.ts";

export { SENT_WINDOW_MS } from "./own_sends.ts";

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
  /** The service given in the bot's options: its sends are watched from the start. */
  given?: GatewayService;
  /** The bot's shared state. */
  state: StateStore;
  /** Clock. */
  now: () => number;
  /** Sleep (for the pacer's gap). */
  sleep: (ms: number) => Promise<void>;
  /** Pacing of replies, or false for none. */
  pacing: PacingOptions | false;
  /**
   * Whether sent ids must be remembered (only an `outgoing` query needs to tell them from others); once
   * false, false for good.
   */
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

/** One chat's sends in call order: the last one's promise (none when idle), and how many have not ended. */
interface Lane {
  tail: Promise<unknown> | undefined;
  sends: number;
}

/** The actions every context of one bot shares. */
export class BotActions {
  readonly #options: BotActionsOptions;
  readonly #views = new Map<string, GatewayService>();
  readonly #own: OwnSends;
  /**
   * Per chat, its sends in call order (with pacing: the next one starts after the last). An idle lane stays
   * (a map entry added and deleted per send costs its table's regrowth) until the map doubled since the
   * last sweep.
   */
  readonly #lanes = new Map<string, Lane>();
  #sweepAt = 1024;
  #gap: ReplyGap | null | undefined; // null: no pacing

  /** Build the actions of one bot (the bot does). */
  constructor(options: BotActionsOptions) {
    this.#options = options;
    this.#own = new OwnSends(options);
    if (options.given !== undefined) this.#own.watch(options.given);
  }

  /** The service bound to `instance` (built on first use). */
  api(instance: string): GatewayService {
    let view = this.#views.get(instance);
    if (view === undefined) {
      const service = this.#options.service();
      this.#own.watch(service);
      view = instance === "" ? service : service.instance(instance);
      this.#views.set(instance, view);
    }
    return view;
  }

  /**
   * Send after the chat's gap, once per key (an earlier send answers, `replayed`), its id noted as the bot's.
   * With pacing a chat's sends go in call order (`Promise.all` of replies keeps the gap).
   */
  send<T extends ApiResponse<unknown>>(
    target: ActionTarget,
    send: (api: GatewayService, options: CallOptions) => Promise<T>,
  ): Promise<T> {
    const gap = this.#pacing();
    if (gap === null) return this.#send(target, send, null);
    const name = `${target.instance}\n${target.chat}`;
    let lane = this.#lanes.get(name);
    if (lane === undefined) {
      if (this.#lanes.size >= this.#sweepAt) this.#sweepLanes();
      this.#lanes.set(name, lane = { tail: undefined, sends: 0 });
    }
    lane.sends++;
    let mine: Promise<T>;
    if (lane.tail === undefined) mine = this.#send(target, send, gap, lane);
    else {
      // The next send of the chat starts once this one settled, whether it failed or not.
      const go = () => this.#send(target, send, gap, lane);
      mine = lane.tail.then(go, go);
    }
    lane.tail = mine;
    return mine;
  }

  async #send<T extends ApiResponse<unknown>>(
    target: ActionTarget,
    send: (api: GatewayService, options: CallOptions) => Promise<T>,
    gap: ReplyGap | null,
    lane?: Lane,
  ): Promise<T> {
    try {
      const api = this.api(target.instance);
      // The service's connection, as `sendMany` names it: both pace one chat through one record.
      const ref = { connection: api.getConnectionName(), instance: target.instance };
      const recipient = gap?.recipient(ref, target.chat);
      if (recipient !== undefined) {
        const wait = await gap!.waitMs(recipient);
        if (wait > 0) await this.#options.sleep(wait);
      }
      const response = await sendOnce(api, target.key, (call) => send(api, call), this.#options.now);
      const id = idOf(response);
      // The service announced the send and its note is being written; a replay is noted again (cheap).
      if (id !== undefined && this.#own.notes()) await this.#own.note(target.instance, id);
      if (recipient !== undefined && !response.replayed) await gap!.sent(recipient);
      return response;
    } finally {
      // The lane's last send ended: nothing is queued behind it, the next send starts at once.
      if (lane !== undefined && --lane.sends === 0) lane.tail = undefined;
    }
  }

  /** Whether this bot sent message `id` (within the window). */
  sentByBot(instance: string, id: string): Promise<boolean> {
    return this.#own.has(instance, id);
  }

  /** Settles when the notes of sent ids still being written have: a chat's turn ends after them. */
  settled(): Promise<void> {
    return this.#own.settled();
  }

  #sweepLanes(): void {
    for (const [name, lane] of this.#lanes) {
      if (lane.sends === 0) this.#lanes.delete(name);
    }
    this.#sweepAt = Math.max(1024, this.#lanes.size * 2);
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
