/**
 * One dialogue per chat and instance, stored under `conversation/<instance>:<chat id>` (`record_store.ts`):
 * name, version, the entering update, the replay log (older steps in chunks), the wait's deadline.
 *
 * @module
 */

import { getGatewayLogger } from "../../log.ts";
import type { Context } from "../context.ts";
import type { MiddlewareFn } from "../middleware.ts";
import { checkOptionKeys, type OptionKeys } from "../../option_keys.ts";
import { Conversation } from "./conversation.ts";
import { DialogueRecords, type LoadedDialogue } from "./record_store.ts";
import { type LogEntry, Replay, ReplayMismatchError, type RunOutcome } from "./replay.ts";
import type { StoredWait } from "./stored.ts";
import { contextView, storeUpdate } from "./view.ts";

/** A dialogue: straight-line code awaiting the chat's answers; `ctx` is the update that entered it. */
export type ConversationFn<C extends Context = Context> = (
  conversation: Conversation<C>,
  ctx: C,
) => unknown;

/** The name and version of a dialogue. */
export interface ConversationOptions {
  /** The name `ctx.conversation.enter` takes. */
  name: string;
  /**
   * A stored dialogue of another version is dropped, not replayed (its log may not fit). Default: a hash
   * of the function's source; set it when only its helpers change.
   */
  version?: string | number;
}

const OPTION_KEYS: OptionKeys = { name: true, version: true };

/** `ctx.conversation` of a bot that uses {@link createConversation}. */
export interface ConversationFlavor {
  /** Enter, leave and inspect this chat's dialogue. */
  readonly conversation: ConversationControl;
}

interface Definition<C extends Context> {
  name: string;
  version: string;
  fn: ConversationFn<C>;
}

/**
 * This chat's dialogue, for the middleware: which one is active, enter one, leave it.
 *
 * @example
 * ```ts
 * import { Bot, type Context, type ConversationFlavor } from "@gw/gateway/bot";
 * type MyContext = Context & ConversationFlavor;
 * const bot = new Bot<MyContext>();
 * bot.command("status", (ctx) => ctx.reply(`In dialogue: ${ctx.conversation.active() ?? "none"}`));
 * ```
 */
export class ConversationControl {
  readonly #ctx: Context;
  readonly #key: string | undefined;
  readonly #records: DialogueRecords | undefined;
  readonly #definitions = new Map<string, Definition<Context>>();
  #loaded: LoadedDialogue | null | undefined;
  /** Whether a dialogue already ran for this update (entered or resumed): it is not offered twice. */
  #handled = false;

  /** @internal Built by the conversation middleware, once per update. */
  constructor(ctx: Context) {
    this.#ctx = ctx;
    this.#key = ctx.chat === undefined ? undefined : `${ctx.instance}:${ctx.chat.id}`;
    this.#records = this.#key === undefined ? undefined : new DialogueRecords(ctx.state, this.#key);
  }

  /** The name of this chat's active dialogue, or undefined. */
  active(): string | undefined {
    return this.#loaded?.record.name;
  }

  /**
   * Start dialogue `name` (registered before this middleware) with this update: it runs to its first wait
   * and is stored, replacing the chat's active one.
   */
  async enter(name: string): Promise<void> {
    const definition = this.#definitions.get(name);
    if (definition === undefined) {
      const known = [...this.#definitions.keys()];
      throw new TypeError(
        `Cannot enter conversation "${name}": it is not registered before this middleware ` +
          `(bot.use(createConversation(fn, "${name}")))${
            known.length > 0 ? `; registered: ${known.join(", ")}` : ""
          }`,
      );
    }
    this.#requireKey("enter conversation");
    await this.load();
    this.#handled = true;
    await this.#run(definition, storeUpdate(this.#ctx), [], false);
  }

  /** Leave this chat's dialogue (whichever is active). True when one was active. */
  async exit(): Promise<boolean> {
    this.#requireKey("exit conversation");
    this.#loaded = null;
    return await this.#records!.clear();
  }

  /** @internal Register a dialogue this update passed. */
  register(definition: Definition<Context>): void {
    this.#definitions.set(definition.name, definition);
  }

  /** @internal Read this chat's record once per update. */
  async load(): Promise<LoadedDialogue | null> {
    if (this.#loaded === undefined) this.#loaded = (await this.#records?.load()) ?? null;
    return this.#loaded;
  }

  /** @internal Continue `definition`'s dialogue: "taken", "pass" (not its) or "skipped" (by its wait). */
  async resume(
    definition: Definition<Context>,
  ): Promise<
    { kind: "pass" } | { kind: "taken" } | { kind: "skipped"; otherwise?: (ctx: Context) => unknown }
  > {
    const loaded = await this.load();
    if (this.#handled || loaded === null || loaded.record.name !== definition.name) return { kind: "pass" };
    const record = loaded.record;
    const expired = record.deadline !== undefined && this.#ctx.now() >= record.deadline;
    if (record.version !== definition.version || expired) {
      getGatewayLogger("bot", "conversation").info(
        "Dropped conversation {name} of {key}: {reason}",
        { name: record.name, key: this.#key, reason: expired ? "its wait timed out" : "its version changed" },
      );
      await this.#end();
      return { kind: "pass" };
    }
    this.#handled = true;
    const outcome = await this.#run(definition, record.enter, loaded.log, true);
    return outcome.kind === "skipped" ? outcome : { kind: "taken" };
  }

  /** Run the dialogue over `log` (from its start when `resumes` is false) and store what the run left. */
  async #run(
    definition: Definition<Context>,
    enter: StoredWait,
    log: LogEntry[],
    resumes: boolean,
  ): Promise<RunOutcome<Context>> {
    const live = this.#ctx;
    const calls: Pick<Replay<Context>, "call"> = { call: (label, fn, read) => replay.call(label, fn, read) };
    const replay: Replay<Context> = new Replay<Context>({
      log,
      offer: resumes ? contextView(live, calls) : undefined,
      rebuild: (stored) => contextView(live, replay, stored as StoredWait),
      store: (ctx) => storeUpdate(ctx),
      now: live.now,
    });
    let outcome: RunOutcome<Context>;
    try {
      outcome = await replay.start(async () =>
        await definition.fn(new Conversation(replay, live.now), contextView(live, replay, enter))
      );
    } catch (error) {
      if (error instanceof ReplayMismatchError) await this.#end();
      throw error;
    }
    if (outcome.kind === "done") await this.#end();
    else if (outcome.kind === "waiting") {
      this.#loaded = await this.#records!.save(this.#loaded ?? null, {
        continues: resumes,
        name: definition.name,
        version: definition.version,
        enter,
        log: outcome.log,
        deadline: outcome.deadline,
      });
    }
    return outcome;
  }

  /** Delete the dialogue this update read (compare-and-set), if any. */
  async #end(): Promise<void> {
    const loaded = this.#loaded ?? null;
    this.#loaded = null;
    await this.#records!.drop(loaded);
  }

  #requireKey(action: string): string {
    if (this.#key === undefined) {
      throw new TypeError(`Cannot ${action}: this update (${this.#ctx.payload.rawEvent}) has no chat`);
    }
    return this.#key;
  }
}

/**
 * A dialogue as middleware: continues this chat's dialogue when it is this one (updates its wait refuses
 * pass on), and lets `ctx.conversation.enter(name)` start it. Register it before the middleware that enters
 * it and the handlers that would answer its updates.
 *
 * @example A form, entered with /form
 * ```ts
 * import { Bot, type Context, type Conversation, type ConversationFlavor, createConversation } from "@gw/gateway/bot";
 * type MyContext = Context & ConversationFlavor;
 * async function form(conversation: Conversation<MyContext>, ctx: MyContext) {
 *   await ctx.reply("Your name?");
 *   const name = (await conversation.waitFor("message:text", { maxMs: 600_000 })).text;
 *   await ctx.reply(`Thanks, ${name}`);
 * }
 * const bot = new Bot<MyContext>();
 * bot.use(createConversation(form, "form"));
 * bot.command("form", (ctx) => ctx.conversation.enter("form"));
 * ```
 */
export function createConversation<C extends Context = Context>(
  fn: ConversationFn<C>,
  options: string | ConversationOptions,
): MiddlewareFn<C & ConversationFlavor> {
  if (typeof fn !== "function") throw new TypeError("Cannot create conversation: pass the dialogue function");
  const { name, version } = typeof options === "string" ? { name: options, version: undefined } : options;
  if (typeof options !== "string") checkOptionKeys(options, OPTION_KEYS, "createConversation");
  if (typeof name !== "string" || name === "") {
    throw new TypeError("Cannot create conversation: the name must be a non-empty string");
  }
  if (version !== undefined && typeof version !== "string" && typeof version !== "number") {
    throw new TypeError(`Cannot create conversation "${name}": "version" must be a string or a number`);
  }
  const definition = {
    name,
    version: version === undefined ? `source:${sourceHash(fn)}` : String(version),
    fn,
  } as unknown as Definition<Context>;
  return async (ctx, next) => {
    const control = controlOf(ctx);
    control.register(definition);
    const result = await control.resume(definition);
    if (result.kind === "taken") return;
    // `otherwise` answers a person's message; a status or group change goes on to the other middleware.
    if (
      result.kind === "skipped" && result.otherwise !== undefined && ctx.update.queries.includes("message")
    ) {
      await result.otherwise(ctx);
      return;
    }
    await next();
  };
}

/**
 * Install `ctx.conversation` for middleware placed before the dialogues (a `/cancel` that must win over a
 * waiting dialogue); `createConversation` installs it for the middleware after it.
 *
 * @example
 * ```ts
 * import { Bot, type Context, type ConversationFlavor, conversations } from "@gw/gateway/bot";
 * const bot = new Bot<Context & ConversationFlavor>();
 * bot.use(conversations());
 * bot.command("cancel", async (ctx) => {
 *   if (await ctx.conversation.exit()) await ctx.reply("Cancelled");
 * });
 * ```
 */
export function conversations<C extends Context = Context>(): MiddlewareFn<C & ConversationFlavor> {
  return async (ctx, next) => {
    await controlOf(ctx).load();
    await next();
  };
}

/** `ctx.conversation`, installed by the first conversation middleware the update passes. */
function controlOf(ctx: Context & Partial<ConversationFlavor>): ConversationControl {
  if (ctx.conversation instanceof ConversationControl) return ctx.conversation;
  const control = new ConversationControl(ctx);
  Object.defineProperty(ctx, "conversation", { value: control, configurable: true, enumerable: true });
  return control;
}

/** FNV-1a of the function's source, in hex: a different source gives another version. */
function sourceHash(fn: (...args: never[]) => unknown): string {
  let hash = 0x811c9dc5;
  for (const char of fn.toString()) {
    hash ^= char.codePointAt(0)!;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, "0");
}
