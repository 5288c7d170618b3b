import { ConfigurationException } from "../errors.ts";
import { BotError } from "./bot_error.ts";
import type { Context } from "./context.ts";
import { checkQueries, type Filter, type FilterQuery, matchFilter, type MessageFields } from "./filter.ts";
import {
  concat,
  flatten,
  type Middleware,
  type MiddlewareFn,
  type MiddlewareObj,
  type NextFunction,
  nextOnce,
  pass,
  run,
} from "./middleware.ts";
import { commandName } from "./command_name.ts";

/** A value or a promise of it. */
export type MaybePromise<T> = T | Promise<T>;

/** What `hears` accepts: a text (equal to the whole message), a regular expression, or several. */
export type HearsTrigger = string | RegExp | readonly (string | RegExp)[];

/** The context under `hears`: an inbound message with a text, and what matched. */
export type HearsContext<C> = C & MessageFields & { readonly text: string; match: string | RegExpMatchArray };

/** The context under `command`: an inbound message with a text, and the command's arguments. */
export type CommandContext<C> = C & MessageFields & { readonly text: string; match: string };

/** Collect every query registered under a composer (for echo safety). Internal. */
export const REGISTERED_QUERIES: unique symbol = Symbol("gateway.bot.registeredQueries");

/** The matcher of one `hears` trigger (shared with `conversation.waitForHears`). Internal. */
export function triggerOf(trigger: string | RegExp): (text: string) => string | RegExpMatchArray | undefined {
  if (typeof trigger === "string") return (text) => text === trigger ? text : undefined;
  if (trigger instanceof RegExp) {
    return (text) => {
      trigger.lastIndex = 0; // a global or sticky expression keeps state between calls
      return trigger.exec(text) ?? undefined;
    };
  }
  throw new ConfigurationException("Cannot use hears: a trigger must be a string or a RegExp", {
    setting: "trigger",
  });
}

/**
 * A tree of middleware; `Bot` is one. Every method returns the child composer its middleware run in.
 *
 * @example
 * ```ts
 * import { Composer, type Context } from "@gw/gateway/bot";
 * const admin = new Composer<Context>();
 * admin.command("stats", (ctx) => ctx.reply("42 chats today"));
 * admin.hears(/^price (\w+)$/i, (ctx) => ctx.reply(`Price of ${ctx.match[1]}: 10`));
 * ```
 */
export class Composer<C extends Context> implements MiddlewareObj<C> {
  #handler: MiddlewareFn<C>;
  readonly #queries = new Set<FilterQuery>();
  readonly #children: Composer<C>[] = [];

  /** A composer running `middleware` in order. */
  constructor(...middleware: Middleware<C>[]) {
    this.#handler = pass;
    for (const item of middleware) this.#append(item);
  }

  #append(item: Middleware<C>): void {
    const fn = flatten(item);
    this.#adopt(item);
    this.#handler = this.#handler === pass ? fn : concat(this.#handler, fn);
  }

  #adopt(item: unknown): void {
    if (item instanceof Composer) this.#children.push(item);
  }

  /** Every query registered in this composer and below it. Internal (echo safety). */
  [REGISTERED_QUERIES](into: Set<FilterQuery> = new Set()): Set<FilterQuery> {
    for (const query of this.#queries) into.add(query);
    for (const child of this.#children) child[REGISTERED_QUERIES](into);
    return into;
  }

  /** The middleware function of this composer. */
  middleware(): MiddlewareFn<C> {
    return (ctx, next) => this.#handler(ctx, next);
  }

  /** Run `middleware` for every update that reaches this point. */
  use(...middleware: Middleware<C>[]): Composer<C> {
    const child = new Composer<C>(...middleware);
    this.#append(child);
    return child;
  }

  /** Run `middleware` for updates matching a filter query (or several); an unknown query throws here. */
  on<Q extends FilterQuery>(
    query: Q | readonly Q[],
    ...middleware: Middleware<Filter<C, Q>>[]
  ): Composer<Filter<C, Q>> {
    const predicate = matchFilter<C, Q>(query);
    for (const q of checkQueries(query)) this.#queries.add(q);
    return this.filter(predicate, ...middleware);
  }

  /** Run `middleware` when the text or caption equals a string or matches a RegExp; `ctx.match` holds it. */
  hears(trigger: HearsTrigger, ...middleware: Middleware<HearsContext<C>>[]): Composer<HearsContext<C>> {
    const triggers = (Array.isArray(trigger) ? trigger : [trigger]).map(triggerOf);
    if (triggers.length === 0) {
      throw new ConfigurationException("Cannot use hears: no trigger given", { setting: "trigger" });
    }
    return this.filter((ctx: C): ctx is HearsContext<C> => {
      const text = ctx.text;
      if (text === undefined || !ctx.update.queries.includes("message")) return false;
      for (const test of triggers) {
        const match = test(text);
        if (match !== undefined) {
          ctx.match = match;
          return true;
        }
      }
      return false;
    }, ...middleware);
  }

  /** Run `middleware` for a text starting `/name` or `!name` (any case); `ctx.match`: the rest, trimmed. */
  command(
    name: string | readonly string[],
    ...middleware: Middleware<CommandContext<C>>[]
  ): Composer<CommandContext<C>> {
    const names = new Set((Array.isArray(name) ? name : [name]).map(commandName));
    if (names.size === 0) {
      throw new ConfigurationException("Cannot use command: no name given", { setting: "command" });
    }
    return this.filter((ctx: C): ctx is CommandContext<C> => {
      const text = ctx.text;
      if (text === undefined || !ctx.update.queries.includes("message")) return false;
      const found = /^[/!]([a-z0-9_-]+)(?:\s+([\s\S]*))?$/i.exec(text.trim());
      if (found === null || !names.has(found[1].toLowerCase())) return false;
      ctx.match = (found[2] ?? "").trim();
      return true;
    }, ...middleware);
  }

  /** Run `middleware` when `predicate` holds; a type guard narrows the context. */
  filter<D extends C>(predicate: (ctx: C) => ctx is D, ...middleware: Middleware<D>[]): Composer<D>;
  /** Run `middleware` when `predicate` (sync or async) holds. */
  filter(predicate: (ctx: C) => MaybePromise<boolean>, ...middleware: Middleware<C>[]): Composer<C>;
  filter(predicate: (ctx: C) => MaybePromise<boolean>, ...middleware: Middleware<C>[]): Composer<C> {
    const child = new Composer<C>(...middleware);
    this.branch(predicate, child, pass);
    return child;
  }

  /** Run `middleware` when `predicate` does not hold. */
  drop(predicate: (ctx: C) => MaybePromise<boolean>, ...middleware: Middleware<C>[]): Composer<C> {
    return this.filter(async (ctx) => !(await predicate(ctx)), ...middleware);
  }

  /** Run `onTrue` or `onFalse` depending on `predicate`. */
  branch(
    predicate: (ctx: C) => MaybePromise<boolean>,
    onTrue: Middleware<C>,
    onFalse: Middleware<C>,
  ): Composer<C> {
    if (typeof predicate !== "function") {
      throw new ConfigurationException("Cannot use branch: the predicate is not a function");
    }
    this.#adopt(onTrue);
    this.#adopt(onFalse);
    const yes = flatten(onTrue);
    const no = flatten(onFalse);
    return this.use((ctx, next) => {
      // A predicate that answers at once (every filter query does) costs no promise.
      const holds = predicate(ctx);
      if (typeof (holds as PromiseLike<boolean> | undefined)?.then !== "function") {
        return (holds ? yes : no)(ctx, next);
      }
      return Promise.resolve(holds).then((held) => (held ? yes : no)(ctx, next));
    });
  }

  /**
   * Pick the middleware for each update: `router` returns a key of `routes` (or undefined for `fallback`).
   */
  route<K extends string>(
    router: (ctx: C) => MaybePromise<K | undefined>,
    routes: Readonly<Record<K, Middleware<C>>>,
    fallback: Middleware<C> = pass,
  ): Composer<C> {
    const table = new Map<string, MiddlewareFn<C>>();
    for (const [key, middleware] of Object.entries(routes) as [K, Middleware<C>][]) {
      this.#adopt(middleware);
      table.set(key, flatten(middleware));
    }
    this.#adopt(fallback);
    const otherwise = flatten(fallback);
    return this.use(async (ctx, next) => {
      const key = await router(ctx);
      const chosen = key === undefined ? undefined : table.get(key);
      return (chosen ?? otherwise)(ctx, next);
    });
  }

  /** Build the middleware for each update at the time it arrives. */
  lazy(factory: (ctx: C) => MaybePromise<Middleware<C> | readonly Middleware<C>[]>): Composer<C> {
    if (typeof factory !== "function") {
      throw new ConfigurationException("Cannot use lazy: the factory is not a function");
    }
    return this.use(async (ctx, next) => {
      const made = await factory(ctx);
      const list = Array.isArray(made) ? made : [made as Middleware<C>];
      await new Composer<C>(...list).middleware()(ctx, next);
    });
  }

  /** Run `middleware` concurrently with the rest of the chain (which runs at once, without waiting). */
  fork(...middleware: Middleware<C>[]): Composer<C> {
    const child = new Composer<C>(...middleware);
    this.#adopt(child);
    const fn = child.middleware();
    this.#append((ctx, next) => Promise.all([next(), run(fn, ctx)]));
    return child;
  }

  /** Pass errors thrown by `middleware` (not after it) to `handler` as a `BotError`; it may call `next`. */
  errorBoundary(
    handler: (error: BotError<C>, next: NextFunction) => unknown,
    ...middleware: Middleware<C>[]
  ): Composer<C> {
    if (typeof handler !== "function") {
      throw new ConfigurationException("Cannot use errorBoundary: the handler is not a function");
    }
    const child = new Composer<C>(...middleware);
    this.#adopt(child);
    const fn = child.middleware();
    this.#append(async (ctx, next) => {
      let goOn = false;
      // Each gets a `next` that may be called once, like every other.
      const resume = () => nextOnce(() => Promise.resolve(void (goOn = true)));
      try {
        await fn(ctx, resume());
      } catch (error) {
        goOn = false;
        await handler(new BotError(error, ctx), resume());
      }
      if (goOn) await next();
    });
    return child;
  }
}
