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

/** What a context is built from (the bot builds them). */
export interface ContextInit {
  /** The webhook payload. */
  payload: WebhookPayloadDto;
  /** The update read from it. */
  update: BotUpdate;
  /** A debounced burst's messages, oldest first (default: the update's message). */
  messages?: readonly BotMessage[];
  /** The bot's shared state. */
  state: StateStore;
  /** The bot's clock. */
  now: () => number;
  /** The bot's actions. */
  actions: BotActions;
}

/**
 * One update and what the middleware can do with it. Every send goes to this chat, paced by the chat's
 * gap, echo-safe, keyed `bot:<instance>:<update id>:<k>` for the k-th message (in call order, not finish
 * order), `...:react:<k>` for the k-th reaction, or the `idempotencyKey` given. A rerun of the update sends
 * nothing sent under the same key, whatever the body now: the action answers the first send, `replayed`.
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
  /** The update read once at arrival: its kind and the queries it matches. */
  readonly update: BotUpdate;
  /** A debounced burst's messages, oldest first (the message alone without `debounceMs`). */
  readonly messages: readonly BotMessage[];
  /** The bot's shared state (sessions, dialogues, plugins). */
  readonly state: StateStore;
  /** The bot's clock, epoch ms. */
  readonly now: () => number;
  /** What `hears` or `command` matched: the regular expression's match, or the command's arguments. */
  match: string | RegExpMatchArray | undefined;

  /** Build a context (the bot does this for each update). */
  constructor(init: ContextInit) {
    const update = init.update;
    this.payload = init.payload;
    this.update = update;
    this.messages = init.messages ?? (update.msg === undefined ? [] : [update.msg]);
    this.state = init.state;
    this.now = init.now;
    startRun(this, init.actions, update.instance, update.id);
  }

  /** The instance the update came from. */
  get instance(): string {
    return this.update.instance;
  }
  /** The chat (one canonical id per chat), when the update has one. */
  get chat(): BotChat | undefined {
    return this.update.chat;
  }
  /** The sender, when known. */
  get from(): BotSender | undefined {
    return this.update.from;
  }
  /** The message, for message, edit, delete, status and outgoing updates. */
  get msg(): BotMessage | undefined {
    return this.update.msg;
  }
  /** The message's text or caption (or a chosen button's or row's title). */
  get text(): string | undefined {
    return this.update.msg?.text;
  }
  /** The delivery status of a `status` update. */
  get status(): string | undefined {
    return this.update.status;
  }
  /** The group change of a `group:*` update. */
  get group(): BotGroupChange | undefined {
    return this.update.group;
  }
  /** The connection change of a `connection` update. */
  get connection(): BotConnection | undefined {
    return this.update.connection;
  }
  /** The call of a `call` update. */
  get call(): BotCall | undefined {
    return this.update.call;
  }

  /** The service bound to this instance; its sends are the bot's own but unkeyed (pass `idempotencyKey`). */
  get api(): GatewayService {
    return runOf(this).actions.api(this.instance);
  }

  /** Whether the update matches a query, or any of several; an unknown query throws. */
  has(query: FilterQuery | readonly FilterQuery[]): boolean {
    return checkQueries(query).some((q) => this.update.queries.includes(q));
  }

  /** Send a text to this chat; `quote` quotes this context's message. */
  reply(text: string, options?: ReplyOptions): Promise<SendResponse> {
    // Not `async`: the most frequent action, and its send is a promise already; a refusal still rejects.
    try {
      if (options === undefined) {
        return deliver(this, "reply", options, (m, to, o, c) => m.text(to, text, o, c));
      }
      const { quote: _quote, idempotencyKey: _key, ...rest } = options;
      return deliver(this, "reply", options, (m, to, o, c) => m.text(to, text, { ...rest, ...o }, c));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** Send a URL, bytes, `Blob` or `File` as image, video, voice note (`audio`), document or sticker. */
  async replyWithMedia(source: MediaSource, options: ReplyWithMediaOptions): Promise<SendResponse> {
    const { quote: _quote, idempotencyKey: _key, ...media } = options ?? {};
    return await deliver(
      this,
      "replyWithMedia",
      options,
      (m, to, o, c) => m.sendFile(to, source, { ...media, ...o }, c),
    );
  }

  /** Send a location to this chat. */
  async replyWithLocation(
    latitude: number,
    longitude: number,
    options?: ReplyWithLocationOptions,
  ): Promise<SendResponse> {
    return await deliver(
      this,
      "replyWithLocation",
      options,
      (m, to, o, c) => m.location(to, latitude, longitude, options?.name, options?.address, o, c),
    );
  }

  /** Send one or more contact cards to this chat. */
  async replyWithContact(
    contacts: ContactCard | ContactCard[],
    options?: ActionOptions,
  ): Promise<SendResponse> {
    return await deliver(this, "replyWithContact", options, (m, to, o, c) => m.contact(to, contacts, o, c));
  }

  /** Send a poll to this chat. */
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
      (m, to, o, c) =>
        m.poll(to, question, answers, count === undefined ? o : { ...o, selectableCount: count }, c),
    );
  }

  /** Send a list to this chat; a pick comes back as `message:list` (`ctx.msg.rowId`). */
  async replyWithList(
    list: Parameters<MessagesResource["list"]>[1],
    options?: ActionOptions,
  ): Promise<SendResponse> {
    return await deliver(this, "replyWithList", options, (m, to, o, c) => m.list(to, list, o, c));
  }

  /** Send buttons to this chat; a press comes back as `message:button` (`ctx.msg.buttonId`). */
  async replyWithButtons(
    message: Parameters<MessagesResource["buttons"]>[1],
    options?: ActionOptions,
  ): Promise<SendResponse> {
    return await deliver(this, "replyWithButtons", options, (m, to, o, c) => m.buttons(to, message, o, c));
  }

  /** React to this context's message (`""` removes the reaction). */
  async react(emoji: string, options?: Pick<ActionOptions, "idempotencyKey">): Promise<SendResponse> {
    chatOf(this, "react");
    const ref = messageRefOf(this, "react");
    return await deliver(this, "react", options, (m, _to, _o, c) => m.reaction(ref, emoji, c));
  }

  /** Mark this context's message (every message of a debounced burst) as read. */
  async markRead(): Promise<void> {
    chatOf(this, "mark as read");
    await this.api.chats().markAsRead(readRefsOf(this));
  }

  /** Show "typing..." in this chat for `ms` (default 2000). */
  async typing(ms = 2000): Promise<void> {
    const chat = chatOf(this, "show typing");
    await this.api.chats().sendPresence(chat, "composing", ms);
  }
}
