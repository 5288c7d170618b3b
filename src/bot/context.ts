/**
 * `Context`: one update as the middleware sees it, with the actions bound to its instance and chat.
 *
 * @module
 */

import type { QuotedInput } from "../dto/message_options.ts";
import type { MediaKind, MediaSource } from "../media/media_input.ts";
import type { SendResponse } from "../resources/messages.ts";
import type { MessageRef } from "../resources/types.ts";
import type { GatewayService } from "../service.ts";
import type { StateStore } from "../store/state.ts";
import type { WebhookPayloadDto } from "../webhooks/payload.ts";
import type { BotActions } from "./actions.ts";
import { checkQueries, type FilterQuery } from "./filter.ts";
import type {
  BotCall,
  BotChat,
  BotConnection,
  BotGroupChange,
  BotMessage,
  BotSender,
  BotUpdate,
} from "./update_types.ts";

/** What a context is built from (the bot builds contexts; plugins and tests rarely need to). */
export interface ContextInit {
  /** The webhook payload. */
  payload: WebhookPayloadDto;
  /** The update read from it (with the canonical chat id). */
  update: BotUpdate;
  /** The messages of a debounced burst, oldest first (default: the update's message). */
  messages?: readonly BotMessage[];
  /** The bot's shared state. */
  state: StateStore;
  /** The bot's clock. */
  now: () => number;
  /** The bot's actions. */
  actions: BotActions;
}

/** Options of {@link Context.reply}. */
export interface ReplyOptions {
  /** Quote the message being answered. */
  quote?: boolean;
  /** Numbers to mention. */
  mentioned?: string[];
  /** `false` disables the link preview. */
  linkPreview?: boolean;
}

/** Options of {@link Context.replyWithMedia}. */
export interface ReplyWithMediaOptions {
  /** The media kind (decides the route, the size limit and the MIME types that fit). */
  type: MediaKind;
  /** Caption (image, video, document). */
  caption?: string;
  /** File name (documents). */
  fileName?: string;
  /** MIME type instead of the sniffed one. */
  mimetype?: string;
  /** Quote the message being answered. */
  quote?: boolean;
}

/**
 * One update and what the middleware can do with it. Actions (`reply`, `replyWithMedia`, `react`) carry an
 * idempotency key made of the update's message id and the action's position in this run, so running the
 * same update again (a retry after a throw, a restart) never sends twice; replies wait for the chat's gap.
 *
 * @example
 * ```ts
 * import { Bot, type Context } from "@gw/gateway/bot";
 * const bot = new Bot({ signature: { scheme: "none" } });
 * bot.on("message:text", async (ctx: Context) => {
 *   await ctx.react("👀");
 *   await ctx.reply(`You said: ${ctx.text}`, { quote: true });
 * });
 * ```
 */
export class Context {
  /** The raw webhook payload. */
  readonly payload: WebhookPayloadDto;
  /** The update read from the payload: its kind and the queries it matches. */
  readonly update: BotUpdate;
  /** The instance the update came from. */
  readonly instance: string;
  /** The chat (one canonical id per chat), when the update has one. */
  readonly chat: BotChat | undefined;
  /** The sender, when known. */
  readonly from: BotSender | undefined;
  /** The message, for message, edit, delete, status and outgoing updates. */
  readonly msg: BotMessage | undefined;
  /** The message's text or caption (or a chosen button's or row's title). */
  readonly text: string | undefined;
  /** The delivery status of a `status` update. */
  readonly status: string | undefined;
  /** The group change of a `group:*` update. */
  readonly group: BotGroupChange | undefined;
  /** The connection change of a `connection` update. */
  readonly connection: BotConnection | undefined;
  /** The call of a `call` update. */
  readonly call: BotCall | undefined;
  /** Every message of a debounced burst, oldest first (the message alone without `debounceMs`). */
  readonly messages: readonly BotMessage[];
  /** The bot's shared state (sessions, dialogues, plugins). */
  readonly state: StateStore;
  /** The bot's clock, epoch ms. */
  readonly now: () => number;
  /** What `hears` or `command` matched: the regular expression's match, or the command's arguments. */
  match: string | RegExpMatchArray | undefined;
  readonly #actions: BotActions;
  #position = 0;

  /**
   * Build a context (the bot does this for each update).
   *
   * The example is not type-checked: the bot builds contexts from its own internal parts.
   *
   * @example
   * ```ts ignore
   * new Context({ payload, update, state, now: Date.now, actions });
   * ```
   */
  constructor(init: ContextInit) {
    const update = init.update;
    this.payload = init.payload;
    this.update = update;
    this.instance = update.instance;
    this.chat = update.chat;
    this.from = update.from;
    this.msg = update.msg;
    this.text = update.msg?.text;
    this.status = update.status;
    this.group = update.group;
    this.connection = update.connection;
    this.call = update.call;
    this.messages = init.messages ?? (update.msg === undefined ? [] : [update.msg]);
    this.state = init.state;
    this.now = init.now;
    this.#actions = init.actions;
  }

  /**
   * The service's resources bound to this update's instance (built at first use).
   *
   * @example
   * ```ts
   * import { Bot } from "@gw/gateway/bot";
   * const bot = new Bot({ signature: { scheme: "none" } });
   * bot.command("profile", async (ctx) => {
   *   const state = await ctx.api.instances().connectionState();
   *   await ctx.reply(`Connection: ${state.json("instance.state")}`);
   * });
   * ```
   */
  get api(): GatewayService {
    return this.#actions.api(this.instance);
  }

  /**
   * Whether the update matches a query, or any of several; an unknown query throws.
   *
   * @example
   * ```ts
   * import { Bot } from "@gw/gateway/bot";
   * const bot = new Bot({ signature: { scheme: "none" } });
   * bot.use((ctx, next) => ctx.has(["message:image", "message:video"]) ? ctx.reply("Nice!") : next());
   * ```
   */
  has(query: FilterQuery | readonly FilterQuery[]): boolean {
    return checkQueries(query).some((q) => this.update.queries.includes(q));
  }

  /**
   * Send a text to this chat; `quote` quotes the message being answered.
   *
   * @example
   * ```ts
   * import { Bot } from "@gw/gateway/bot";
   * const bot = new Bot({ signature: { scheme: "none" } });
   * bot.on("message:text", (ctx) => ctx.reply("Got it", { quote: true }));
   * ```
   */
  async reply(text: string, options?: ReplyOptions): Promise<SendResponse> {
    const chat = this.#chatFor("reply");
    return await this.#actions.send(this.#target(chat), (api, call) => {
      if (options === undefined) return api.messages().text(chat, text, call); // the usual reply: no copies
      const { quote, ...rest } = options;
      return api.messages().text(chat, text, {
        ...rest,
        quoted: quote ? this.#quoted() : undefined,
        ...call,
      });
    });
  }

  /**
   * Send a file to this chat (a URL, bytes, a `Blob` or a `File`, through `toMediaInput`).
   *
   * @example
   * ```ts
   * import { Bot } from "@gw/gateway/bot";
   * const bot = new Bot({ signature: { scheme: "none" } });
   * bot.command("logo", (ctx) => ctx.replyWithMedia("https://example.com/logo.png", { type: "image", caption: "Our logo" }));
   * ```
   */
  async replyWithMedia(source: MediaSource, options: ReplyWithMediaOptions): Promise<SendResponse> {
    const chat = this.#chatFor("reply");
    const { quote, ...rest } = options;
    return await this.#actions.send(this.#target(chat), (api, call) =>
      api.messages().sendFile(chat, source, {
        ...rest,
        quoted: quote ? this.#quoted() : undefined,
        ...call,
      }));
  }

  /**
   * React to the message being answered (`""` removes the reaction).
   *
   * @example
   * ```ts
   * import { Bot } from "@gw/gateway/bot";
   * const bot = new Bot({ signature: { scheme: "none" } });
   * bot.on("message", (ctx) => ctx.react("👍"));
   * ```
   */
  async react(emoji: string): Promise<SendResponse> {
    const chat = this.#chatFor("react");
    const ref = this.#messageRef("react");
    return await this.#actions.send(
      this.#target(chat),
      (api, call) => api.messages().reaction(ref, emoji, call),
    );
  }

  /**
   * Mark the message being answered (every message of a debounced burst) as read.
   *
   * @example
   * ```ts
   * import { Bot } from "@gw/gateway/bot";
   * const bot = new Bot({ signature: { scheme: "none" } });
   * bot.on("message", async (ctx, next) => {
   *   await ctx.markRead();
   *   await next();
   * });
   * ```
   */
  async markRead(): Promise<void> {
    this.#chatFor("mark as read");
    const first = this.#messageRef("mark as read");
    const refs = this.messages.map((msg) => ({ ...first, id: msg.id }));
    await this.api.chats().markAsRead(refs.length > 0 ? refs : [first]);
  }

  /**
   * Show "typing..." in this chat for `ms` (default 2000).
   *
   * @example
   * ```ts
   * import { Bot } from "@gw/gateway/bot";
   * const bot = new Bot({ signature: { scheme: "none" } });
   * bot.on("message:text", async (ctx) => {
   *   await ctx.typing(1500);
   *   await ctx.reply("Thinking done");
   * });
   * ```
   */
  async typing(ms = 2000): Promise<void> {
    const chat = this.#chatFor("show typing");
    await this.api.chats().sendPresence(chat, "composing", ms);
  }

  #chatFor(action: string): string {
    const chat = this.chat?.id;
    if (chat === undefined) {
      throw new TypeError(`Cannot ${action}: this update (${this.payload.rawEvent}) has no chat`);
    }
    return chat;
  }

  #messageRef(action: string): MessageRef {
    const msg = this.msg;
    if (msg === undefined || msg.id === "") {
      throw new TypeError(`Cannot ${action}: this update (${this.payload.rawEvent}) has no message`);
    }
    const ref: MessageRef = {
      remoteJid: this.payload.remoteJid ?? this.chat!.id,
      id: msg.id,
      fromMe: msg.fromMe,
    };
    const participant = this.payload.participant;
    return participant === undefined ? ref : { ...ref, participant };
  }

  #quoted(): QuotedInput | undefined {
    const msg = this.msg;
    if (msg === undefined || msg.id === "") return undefined;
    const ref = this.#messageRef("quote");
    return { key: ref, message: msg.text === undefined ? undefined : { conversation: msg.text } };
  }

  /** The idempotency key of the next action: the update's id and the action's position in this run. */
  #target(chat: string) {
    const position = this.#position++;
    return { instance: this.instance, chat, key: `bot:${this.instance}:${this.update.id}:${position}` };
  }
}
