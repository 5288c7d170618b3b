/**
 * `Context`: one update as the middleware sees it, with the actions bound to its instance and chat.
 *
 * @module
 */

import type { ContactCard } from "../dto/structured_messages.ts";
import type { MediaSource } from "../media/media_input.ts";
import type { MessagesResource, SendResponse } from "../resources/messages.ts";
import type { GatewayService } from "../service.ts";
import type { StateStore } from "../store/state.ts";
import type { WebhookPayloadDto } from "../webhooks/payload.ts";
import type { BotActions } from "./actions.ts";
import type {
  ActionOptions,
  ReplyOptions,
  ReplyWithLocationOptions,
  ReplyWithMediaOptions,
  ReplyWithPollOptions,
} from "./action_options.ts";
import { chatOf, deliver, messageRefOf, readRefsOf, runOf, startRun } from "./action_path.ts";
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

export { CONTEXT_ACTIONS } from "./action_path.ts";

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

/**
 * One update and what the middleware can do with it. Every action that sends (`reply`, `replyWith*`,
 * `react`) goes one way: to this context's chat, about this context's message (`quote`, `react`,
 * `markRead`), paced by the chat's gap, echo-safe (the sent id is the bot's own), with an idempotency key
 * that names the action: `bot:<instance>:<update id>:<k>` for the update's k-th message (counted in the
 * order the actions are called, not the order they finish), `...:react:<k>` for its k-th reaction, or the
 * `idempotencyKey` given. Running the update again (a retry after a throw, a restart) sends nothing an
 * earlier run sent under the same key, whatever the body now: the action answers the first send, `replayed`.
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
    startRun(this, init.actions, update.instance, update.id);
  }

  /**
   * The service's resources bound to this update's instance (built at first use). Its sends are the bot's
   * own (their echoes never match `outgoing`) but carry no key of the bot's: prefer the actions, or pass
   * your own `idempotencyKey`.
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
    return runOf(this).actions.api(this.instance);
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
   * Send a text to this chat; `quote` quotes this context's message.
   *
   * @example
   * ```ts
   * import { Bot } from "@gw/gateway/bot";
   * const bot = new Bot({ signature: { scheme: "none" } });
   * bot.on("message:text", (ctx) => ctx.reply("Got it", { quote: true }));
   * ```
   */
  async reply(text: string, options?: ReplyOptions): Promise<SendResponse> {
    if (options === undefined) {
      return await deliver(this, "reply", options, (m, to, o) => m.text(to, text, o));
    }
    const { quote: _quote, idempotencyKey: _key, ...rest } = options;
    return await deliver(this, "reply", options, (m, to, o) => m.text(to, text, { ...rest, ...o }));
  }

  /**
   * Send a file to this chat as an image, video, voice note (`audio`), document or sticker: a URL, bytes, a
   * `Blob` or a `File`, through `toMediaInput` (MIME type sniffed, size checked before any request).
   *
   * @example
   * ```ts
   * import { Bot } from "@gw/gateway/bot";
   * const bot = new Bot({ signature: { scheme: "none" } });
   * bot.command("logo", (ctx) => ctx.replyWithMedia("https://example.com/logo.png", { type: "image", caption: "Our logo" }));
   * bot.command("hello", (ctx) => ctx.replyWithMedia("https://example.com/hello.ogg", { type: "audio" }));
   * ```
   */
  async replyWithMedia(source: MediaSource, options: ReplyWithMediaOptions): Promise<SendResponse> {
    const { quote: _quote, idempotencyKey: _key, ...media } = options ?? {};
    return await deliver(
      this,
      "replyWithMedia",
      options,
      (m, to, o) => m.sendFile(to, source, { ...media, ...o }),
    );
  }

  /**
   * Send a location to this chat.
   *
   * @example
   * ```ts
   * import { Bot } from "@gw/gateway/bot";
   * const bot = new Bot({ signature: { scheme: "none" } });
   * bot.command("where", (ctx) => ctx.replyWithLocation(-23.5614, -46.6559, { name: "Shop", address: "Av. Paulista, 1000" }));
   * ```
   */
  async replyWithLocation(
    latitude: number,
    longitude: number,
    options?: ReplyWithLocationOptions,
  ): Promise<SendResponse> {
    return await deliver(
      this,
      "replyWithLocation",
      options,
      (m, to, o) => m.location(to, latitude, longitude, options?.name, options?.address, o),
    );
  }

  /**
   * Send one or more contact cards to this chat.
   *
   * @example
   * ```ts
   * import { Bot } from "@gw/gateway/bot";
   * const bot = new Bot({ signature: { scheme: "none" } });
   * bot.command("support", (ctx) => ctx.replyWithContact({ fullName: "Support", phoneNumber: "+55 11 98888-7777" }));
   * ```
   */
  async replyWithContact(
    contacts: ContactCard | ContactCard[],
    options?: ActionOptions,
  ): Promise<SendResponse> {
    return await deliver(this, "replyWithContact", options, (m, to, o) => m.contact(to, contacts, o));
  }

  /**
   * Send a poll to this chat.
   *
   * @example
   * ```ts
   * import { Bot } from "@gw/gateway/bot";
   * const bot = new Bot({ signature: { scheme: "none" } });
   * bot.command("lunch", (ctx) => ctx.replyWithPoll("Lunch?", ["Pizza", "Sushi"], { selectableCount: 1 }));
   * ```
   */
  async replyWithPoll(
    question: string,
    answers: string[],
    options?: ReplyWithPollOptions,
  ): Promise<SendResponse> {
    const count = options?.selectableCount;
    return await deliver(
      this,
      "replyWithPoll",
      options,
      (m, to, o) => m.poll(to, question, answers, count === undefined ? o : { ...o, selectableCount: count }),
    );
  }

  /**
   * Send a list message to this chat; a pick comes back as a `message:list` update (`ctx.msg.rowId`).
   *
   * @example
   * ```ts
   * import { Bot } from "@gw/gateway/bot";
   * const bot = new Bot({ signature: { scheme: "none" } });
   * bot.command("menu", (ctx) =>
   *   ctx.replyWithList({
   *     title: "Menu", footerText: "Thanks", buttonText: "Open",
   *     sections: [{ title: "Food", rows: [{ title: "Pizza", rowId: "pizza" }] }],
   *   }));
   * bot.on("message:list", (ctx) => ctx.reply(`You picked ${ctx.msg.rowId}`));
   * ```
   */
  async replyWithList(
    list: Parameters<MessagesResource["list"]>[1],
    options?: ActionOptions,
  ): Promise<SendResponse> {
    return await deliver(this, "replyWithList", options, (m, to, o) => m.list(to, list, o));
  }

  /**
   * Send buttons to this chat; a press of a reply button comes back as a `message:button` update
   * (`ctx.msg.buttonId`).
   *
   * @example
   * ```ts
   * import { Bot } from "@gw/gateway/bot";
   * const bot = new Bot({ signature: { scheme: "none" } });
   * bot.command("confirm", (ctx) =>
   *   ctx.replyWithButtons({ title: "Confirm?", buttons: [{ type: "reply", displayText: "Yes", id: "yes" }] }));
   * bot.on("message:button", (ctx) => ctx.reply(`You chose ${ctx.msg.buttonId}`));
   * ```
   */
  async replyWithButtons(
    message: Parameters<MessagesResource["buttons"]>[1],
    options?: ActionOptions,
  ): Promise<SendResponse> {
    return await deliver(this, "replyWithButtons", options, (m, to, o) => m.buttons(to, message, o));
  }

  /**
   * React to this context's message (`""` removes the reaction).
   *
   * @example
   * ```ts
   * import { Bot } from "@gw/gateway/bot";
   * const bot = new Bot({ signature: { scheme: "none" } });
   * bot.on("message", (ctx) => ctx.react("👍"));
   * ```
   */
  async react(emoji: string, options?: Pick<ActionOptions, "idempotencyKey">): Promise<SendResponse> {
    chatOf(this, "react");
    const ref = messageRefOf(this, "react");
    return await deliver(this, "react", options, (m, _to, o) => m.reaction(ref, emoji, o));
  }

  /**
   * Mark this context's message (every message of a debounced burst) as read.
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
    chatOf(this, "mark as read");
    await this.api.chats().markAsRead(readRefsOf(this));
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
    const chat = chatOf(this, "show typing");
    await this.api.chats().sendPresence(chat, "composing", ms);
  }
}
