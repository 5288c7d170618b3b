import { ConfigurationException, ValidationException } from "../errors.ts";
import { MemoryStore } from "../backends/memory/store.ts";
import type { GatewayStore } from "../store/store.ts";
import { abortableSleep } from "../timing.ts";
import type { WebhookExecutionContext } from "../webhooks/handler.ts";
import { WebhookPayloadDto } from "../webhooks/payload.ts";
import type { InboundMessageClaims } from "../webhooks/message_claims.ts";
import {
  type InboundMiddleware,
  PROCESS,
  WebhookProcessingException,
  WebhookProcessor,
} from "../webhooks/processor.ts";
import type { InboundLines } from "../inbound/lines.ts";
import { BotActions } from "./actions.ts";
import { BotError } from "./bot_error.ts";
import { BotEnvironment } from "./bot_env.ts";
import { type BotOptions, checkBotOptions } from "./bot_options.ts";
import { Bursts } from "./burst.ts";
import type { ChatLines } from "./chat_order.ts";
import { ContentIdentity } from "./content_identity.ts";
import {
  admitStage,
  type BotInbound,
  claimStage,
  debounceStage,
  echoStage,
  identifyStage,
  type InboundStage,
  pauseStage,
  readStage,
  turnStage,
} from "./inbound_stages.ts";
import { Composer, REGISTERED_QUERIES } from "./composer.ts";
import { Context } from "./context.ts";
import { chatLines } from "./local_order.ts";
import type { FilterQuery } from "./filter_table.ts";
import { type MiddlewareFn, run } from "./middleware.ts";
import { ChatPauses } from "./pauses.ts";
import { OwnJids } from "./own_jids.ts";
import { addressesInstance } from "./update.ts";
import { UpdateReader } from "./update_reader.ts";
import type { BotUpdate } from "./update_types.ts";

export type { BotGroups, BotOptions } from "./bot_options.ts";

// Settled answers of the admission check, shared: most updates need no store to be admitted.
const YES: Promise<boolean> = Promise.resolve(true);
const NO: Promise<boolean> = Promise.resolve(false);
const DONE: Promise<void> = Promise.resolve();

const DEFAULT_ORDER_LEASE_MS = 60_000;
const ORDER_POLL_MS = 50;

/**
 * A WhatsApp bot: middleware (it is a `Composer`) behind a webhook receiver (`bot.fetch`). It runs the
 * middleware once per inbound message, one update at a time per chat, never for its own echoes.
 *
 * @example The ten-line bot (in a Worker: `export default { fetch: bot.fetch }`)
 * ```ts
 * import { Bot } from "@gw/gateway/bot";
 * const bot = new Bot(); // service, secret and scheme from the environment
 * bot.on("message:text", (ctx) => ctx.reply(ctx.text));
 * Deno.serve(bot.fetch);
 * ```
 */
export class Bot<C extends Context = Context> extends Composer<C> {
  /** The options the bot was built with. */
  readonly options: Readonly<BotOptions>;
  /** Where claims, turns, pauses, sessions and dialogues live. */
  readonly store: GatewayStore;
  /** The receiver's processor; the bot's stages and middleware are its inbound middleware. */
  readonly processor: WebhookProcessor;
  readonly #now: () => number;
  readonly #env: BotEnvironment;
  readonly #actions: BotActions;
  readonly #order: ChatLines;
  readonly #pauses: ChatPauses;
  readonly #claims: InboundMessageClaims;
  readonly #own: OwnJids;
  readonly #bursts: Bursts | undefined;
  #catch: ((error: BotError<C>) => unknown) | undefined;
  #registered: Set<FilterQuery> | undefined;
  #middleware: MiddlewareFn<C> | undefined;

  /** Build a bot; an unknown option key throws. Nothing is read from the environment until first use. */
  constructor(options?: BotOptions) {
    super();
    const checked = checkBotOptions(options);
    this.options = Object.freeze({ ...checked });
    this.#now = checked.now ?? Date.now;
    const sleep = checked.sleep ?? abortableSleep;
    if (checked.store === undefined) warnMemoryStore();
    this.store = checked.store ?? new MemoryStore({ now: this.#now });
    const state = this.store.state;
    const reader = new UpdateReader(() => this.#claims, () => this.processor.lidDirectory);
    // Each update is read once and placed in its chat's line at arrival (the receiver's `lines` hook).
    const lines: InboundLines<BotUpdate> = {
      read: (payload) => reader.read(payload),
      arrive: (read) => this.#order.arrive(read.value.instance, read.line!),
    };
    this.processor = new WebhookProcessor({
      store: this.store,
      now: this.#now,
      lines,
      claims: checked.claims,
    });
    // One claim service: the processor's (its store is the bot's).
    this.#claims = this.processor.claims!;
    this.#actions = new BotActions({
      service: () => this.#env.service(),
      given: checked.service,
      state,
      now: this.#now,
      sleep: (ms) => sleep(ms),
      pacing: checked.pacing ?? {},
      // Sent ids tell echoes (`outgoing`) and group replies addressed to the bot's `@lid`.
      remembers: () => checked.groups === "mentions" || this.#registeredQueries().has("outgoing"),
    });
    this.#order = chatLines(state, {
      now: this.#now,
      sleep,
      leaseMs: checked.orderLeaseMs ?? DEFAULT_ORDER_LEASE_MS,
      pollMs: ORDER_POLL_MS,
    });
    this.#pauses = new ChatPauses(state, this.#now);
    this.#own = new OwnJids(this.processor.lidDirectory, (instance) => this.#actions.api(instance));
    const debounceMs = checked.debounceMs ?? 0;
    this.#bursts = debounceMs > 0
      ? new Bursts(state, { debounceMs, now: this.#now, sleep: (ms) => sleep(ms) })
      : undefined;
    this.#env = new BotEnvironment(this.options, this.processor, this.store, this.#now);
    // The guarantees are stages on the processor's hook; `read` goes first: it sets what the others read.
    this.processor.use(...this.#stages(state) as InboundMiddleware[]);
  }

  /** The bot's guarantees in their order, then the user's middleware. */
  #stages(state: GatewayStore["state"]): InboundStage[] {
    const claims = () => this.#claims;
    return [
      readStage(this.processor),
      admitStage((ctx) => this.#admits(ctx)),
      claimStage(claims),
      // Without `debounceMs` no update is merged: no stage to pass through on every update.
      ...(this.#bursts === undefined ? [] : [debounceStage(this.#bursts)]),
      turnStage(this.#order, this.#actions),
      identifyStage(new ContentIdentity(state, this.#now), claims),
      pauseStage(this.#pauses),
      echoStage(this.#actions),
      (ctx, next) => this.#toMiddleware(ctx).then(next),
    ];
  }

  /**
   * The bound fetch handler of `POST /<routePrefix>/<instance>`, like `createWebhookHandler`, configured from
   * `GATEWAY_WEBHOOK_*` (Workers `env` bindings, else `Deno.env`) with the bot's options on top.
   */
  readonly fetch = (
    request: Request,
    envOrInfo?: unknown,
    ctx?: WebhookExecutionContext,
  ): Promise<Response> => this.#env.fetch(request, envOrInfo, ctx);

  /**
   * Run one webhook payload through the bot with a webhook's claims, order and echo safety. Rejects with
   * the `BotError` no `catch` handler took (the claim is given back, so a retry runs it again).
   */
  handleUpdate(payload: WebhookPayloadDto | Record<string, unknown>): Promise<void> {
    // Not `async`: its frame would be one more object per update; every failure still rejects.
    let pending: Promise<void> | undefined;
    try {
      const dto = payload instanceof WebhookPayloadDto ? payload : WebhookPayloadDto.from(payload);
      if (dto === null) {
        throw new ValidationException("Cannot handle update: not a gateway webhook (no event name)", {
          messages: ["event is missing or invalid"],
        });
      }
      pending = this.processor[PROCESS](dto);
    } catch (error) {
      return Promise.reject(handlerError(error));
    }
    return pending === undefined ? DONE : pending.catch((error) => {
      throw handlerError(error);
    });
  }

  /** Handle middleware errors: the update counts as handled unless `handler` throws (then 500, retried). */
  catch(handler: (error: BotError<C>) => unknown): this {
    if (typeof handler !== "function") {
      throw new ConfigurationException("Cannot use catch: the handler is not a function");
    }
    this.#catch = handler;
    return this;
  }

  /** Pause a chat (no middleware runs) in the store, for every process; `untilMs` (epoch ms) ends it. */
  async pause(chatId: string, options: { untilMs?: number } = {}): Promise<void> {
    await this.#pauses.pause(chatId, options.untilMs);
  }

  /** Resume a paused chat; true when it was paused. */
  resume(chatId: string): Promise<boolean> {
    return this.#pauses.resume(chatId);
  }

  /** Whether a chat is paused. */
  isPaused(chatId: string): Promise<boolean> {
    return this.#pauses.isPaused(chatId);
  }

  /** What a restarted process builds: same options, middleware and `catch`, no in-memory caches. */
  restart(overrides: BotOptions = {}): Bot<C> {
    const fresh = new Bot<C>({ ...this.options, ...overrides });
    fresh.use(this as Composer<C>);
    if (this.#catch !== undefined) fresh.catch(this.#catch);
    return fresh;
  }

  /** Close what the receivers opened (a KV queue, its worker) once pending line places are written. */
  async close(): Promise<void> {
    await this.#order.settled(); // places given up after their answer are written before the store goes
    await this.#env.close();
  }

  /** The last step: the update as a `Context` through the middleware. */
  #toMiddleware(inbound: BotInbound): Promise<void> {
    const ctx = new Context({
      payload: inbound.payload,
      update: inbound.update,
      messages: inbound.burst?.messages,
      state: this.store.state,
      now: this.#now,
      actions: this.#actions,
    }) as C;
    return this.#runMiddleware(ctx);
  }

  #runMiddleware(ctx: C): Promise<void> {
    return run(this.#middleware ??= this.middleware(), ctx).catch(async (error) => {
      const wrapped = error instanceof BotError ? error as BotError<C> : new BotError(error, ctx);
      if (this.#catch === undefined) throw wrapped;
      await this.#catch(wrapped);
    });
  }

  /** The queries registered anywhere in the bot (read once, at first need). */
  #registeredQueries(): Set<FilterQuery> {
    return this.#registered ??= this[REGISTERED_QUERIES]();
  }

  /** Echo safety and the `groups` option: whether the update may reach the middleware at all. */
  #admits({ update, payload }: BotInbound): Promise<boolean> {
    if (update.own) {
      // Own updates are never "message" ones, so the groups option does not apply to them.
      const registered = this.#registeredQueries();
      if (!update.queries.some((q) => registered.has(q))) return NO;
      if (update.kind !== "outgoing") return YES;
      return this.#actions.sentByBot(update.instance, update.msg!.id).then((own) => !own);
    }
    if (update.kind !== "message" || update.chat?.isGroup !== true) return YES;
    const groups = this.options.groups ?? "all";
    if (groups !== "mentions") return groups === "all" ? YES : NO;
    return this.#mentioned(update, payload);
  }

  /** With `groups: "mentions"`: whether a group message mentions the bot or quotes one of its messages. */
  async #mentioned(update: BotUpdate, payload: WebhookPayloadDto): Promise<boolean> {
    const quoted = update.msg?.quoted?.id;
    const own = await this.#own.of(update, payload.sender);
    return addressesInstance(update, own) ||
      (quoted !== undefined && await this.#actions.sentByBot(update.instance, quoted));
  }
}

/** What `handleUpdate` rejects with: the one failure of the update itself, not the processor's list of it. */
function handlerError(error: unknown): unknown {
  return error instanceof WebhookProcessingException && error.errors.length === 1 ? error.errors[0] : error;
}

/** On stderr for a bot without a store, like a missing secret: the operator should know of this choice. */
function warnMemoryStore(): void {
  console.warn(
    "[gateway] Bot: no `store` given, so claims, chat order, pauses, sessions and dialogues are kept in " +
      "memory: lost on restart and not shared between processes (pass a KvStore, RedisStore or D1Store)",
  );
}
