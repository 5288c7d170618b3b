import type { Context } from "../context.ts";
import { type Filter, type FilterQuery, matchFilter } from "../filter.ts";
import { type HearsTrigger, triggerOf } from "../composer.ts";
import { checkOptionKeys, type OptionKeys } from "../../option_keys.ts";
import type { Replay } from "./replay.ts";

/** Options of a wait. */
export interface WaitOptions<C extends Context = Context> {
  /** End the dialogue when no match came within this many ms (bot's clock); later updates pass on. */
  maxMs?: number;
  /** Called with a chat message the wait refuses (it keeps waiting); else the update passes on. */
  otherwise?: (ctx: C) => unknown;
}

const WAIT_OPTION_KEYS: OptionKeys = { maxMs: true, otherwise: true };

/**
 * The dialogue's handle: wait for the chat's next update; run side effects and varying results through it
 * (`external`, `now`, `random`; actions such as `reply` already are). After a restart the function resumes
 * where it waited, doing nothing twice.
 *
 * @example A form
 * ```ts
 * import { Bot, type Context, type Conversation, type ConversationFlavor, createConversation } from "@gw/gateway/bot";
 * type MyContext = Context & ConversationFlavor;
 * async function form(conversation: Conversation<MyContext>, ctx: MyContext) {
 *   await ctx.reply("Your name?");
 *   const name = (await conversation.waitFor("message:text")).text;
 *   await ctx.reply(`Thanks, ${name}`);
 * }
 * const bot = new Bot<MyContext>();
 * bot.use(createConversation(form, "form"));
 * bot.command("form", (ctx) => ctx.conversation.enter("form"));
 * ```
 */
export class Conversation<C extends Context = Context> {
  readonly #replay: Replay<C>;
  readonly #now: () => number;

  /** @internal Built by the conversation middleware, with the bot's clock. */
  constructor(replay: Replay<C>, now: () => number) {
    this.#replay = replay;
    this.#now = now;
  }

  /** The chat's next message, of any type (`message` query). */
  async wait(options: WaitOptions<C> = {}): Promise<Filter<C, "message">> {
    return await this.waitFor("message", options);
  }

  /** The chat's next update that matches a filter query (or any of several). */
  async waitFor<Q extends FilterQuery>(
    query: Q | readonly Q[],
    options: WaitOptions<C> = {},
  ): Promise<Filter<C, Q>> {
    checkWaitOptions(options);
    const accepts = matchFilter<C, Q>(query);
    return await this.#replay.wait({ accepts, ...options }) as Filter<C, Q>;
  }

  /** The chat's next text (or caption) equal to a string or matching a pattern; sets `ctx.match`. */
  async waitForHears(
    trigger: HearsTrigger,
    options: WaitOptions<C> = {},
  ): Promise<C & { match: string | RegExpMatchArray }> {
    checkWaitOptions(options);
    const triggers = checkTriggers(trigger);
    const ctx = await this.#replay.wait({ accepts: (c) => hearMatch(triggers, c) !== undefined, ...options });
    ctx.match = hearMatch(triggers, ctx);
    return ctx as C & { match: string | RegExpMatchArray };
  }

  /**
   * Run `fn` once in the dialogue's life; replays get its logged (JSON) result. For anything outside the
   * chat: an HTTP call, a database write, `ctx.session`.
   */
  async external<T>(fn: () => T | Promise<T>): Promise<T> {
    if (typeof fn !== "function") throw new TypeError("Cannot run external: pass a function");
    return await this.#replay.call("external", fn);
  }

  /** The bot's clock, logged like {@link Conversation.external} (a replay sees the first reading). */
  now(): Promise<number> {
    return this.#replay.call("now", this.#now);
  }

  /** A random number in [0, 1), logged like {@link Conversation.external}. */
  random(): Promise<number> {
    return this.#replay.call("random", Math.random);
  }

  /** End the dialogue here (the function does not continue; its stored state is deleted). */
  exit(): Promise<never> {
    return this.#replay.exit();
  }
}

function checkWaitOptions(options: WaitOptions<never>): void {
  if (options === null || typeof options !== "object") {
    throw new TypeError("Cannot wait: options must be an object");
  }
  checkOptionKeys(options, WAIT_OPTION_KEYS, "conversation.wait");
  const { maxMs, otherwise } = options;
  if (maxMs !== undefined && (typeof maxMs !== "number" || !Number.isFinite(maxMs) || maxMs <= 0)) {
    throw new RangeError(`Cannot wait: "maxMs" must be a positive number of ms, got "${String(maxMs)}"`);
  }
  if (otherwise !== undefined && typeof otherwise !== "function") {
    throw new TypeError(`Cannot wait: "otherwise" must be a function`);
  }
}

/** The `hears` matchers of a trigger (a string, a RegExp, or a non-empty list of them). */
function checkTriggers(trigger: HearsTrigger): ((text: string) => string | RegExpMatchArray | undefined)[] {
  const list = Array.isArray(trigger) ? [...trigger] : [trigger as string | RegExp];
  if (list.length === 0) throw new TypeError("Cannot wait for text: no trigger given");
  return list.map(triggerOf);
}

/** What `hears` would set as `ctx.match`: the first trigger's match of a message's text or caption. */
function hearMatch(
  triggers: readonly ((text: string) => string | RegExpMatchArray | undefined)[],
  ctx: Context,
): string | RegExpMatchArray | undefined {
  const text = ctx.text;
  if (text === undefined || !ctx.update.queries.includes("message")) return undefined;
  for (const test of triggers) {
    const match = test(text);
    if (match !== undefined) return match;
  }
  return undefined;
}
