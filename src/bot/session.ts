/**
 * `session()`: per-chat data kept in the bot's `StateStore` (`ctx.state`), read before the downstream
 * middleware and written after it only when it changed, with compare-and-set so two updates of one key
 * never lose each other's write.
 *
 * The rule when two updates of one session key meet (only possible when they run at once: the bot runs one
 * chat's updates one at a time, so this needs a key shared by several chats or per-chat order turned off):
 * the first to save wins; the other's save is refused with a `StateConflictException`, nothing of it is
 * stored, and it fails like any handler error, so its delivery is retried on the fresh value.
 *
 * @module
 */

import type { StateEntry, StateStore } from "../store/state.ts";
import { checkOptionKeys, type OptionKeys } from "../option_keys.ts";
import { StateConflictException } from "./state_conflict.ts";
import type { Context } from "./context.ts";
import type { MiddlewareFn } from "./middleware.ts";

/**
 * The context of a bot that uses {@link session}: `ctx.session` reads the chat's data (the `initial`
 * value when none is stored) and takes a new value; assigning `null` deletes it.
 *
 * @example
 * ```ts
 * import { Bot, type Context, session, type SessionFlavor } from "@gw/gateway/bot";
 * type MyContext = Context & SessionFlavor<{ count: number }>;
 * const bot = new Bot<MyContext>();
 * bot.use(session({ initial: () => ({ count: 0 }) }));
 * bot.on("message:text", (ctx) => ctx.reply(`message ${++ctx.session.count}`));
 * ```
 */
export type SessionFlavor<S> = {
  /** The session of this update's key (the `initial` value when none is stored). */
  get session(): S;
  /** Assign a new value, or `null` to delete the session. */
  set session(value: S | null);
};

/**
 * Options of {@link session}.
 *
 * @example
 * ```ts
 * import type { SessionOptions } from "@gw/gateway/bot";
 * const options: SessionOptions<{ count: number }> = {
 *   initial: () => ({ count: 0 }),
 *   getKey: (ctx) => ctx.from?.id, // one session per person, across chats
 * };
 * ```
 */
export interface SessionOptions<S, C extends Context = Context> {
  /** A fresh value for a key with no stored session (called each time one is needed). */
  initial: () => S;
  /**
   * The session key of an update, or `undefined` for none (then reading `ctx.session` throws). Default
   * `"<instance>:<chat id>"`: one session per chat and per instance.
   */
  getKey?: (ctx: C) => string | undefined;
  /** The store namespace (default `"session"`); two `session()` middlewares need different ones. */
  namespace?: string;
  /**
   * Delete a session this long (ms, on the bot's clock) after the last update that read or wrote it (each
   * such update then writes it, to move the expiry); default never.
   */
  ttlMs?: number;
}

const OPTION_KEYS: OptionKeys = { initial: true, getKey: true, namespace: true, ttlMs: true };

/**
 * The default session key: the instance and the chat's canonical id (none for an update without a chat,
 * such as `connection`).
 *
 * @example
 * ```ts
 * import { defaultSessionKey } from "@gw/gateway/bot";
 * console.log(defaultSessionKey({ instance: "sales", chat: { id: "5511999999999@s.whatsapp.net" } }));
 * // "sales:5511999999999@s.whatsapp.net"
 * ```
 */
export function defaultSessionKey(ctx: { instance: string; chat?: { id: string } }): string | undefined {
  return ctx.chat === undefined ? undefined : `${ctx.instance}:${ctx.chat.id}`;
}

/**
 * Session middleware. Each update with a key costs one read before the downstream middleware, and one
 * compare-and-set write after it when `ctx.session` changed (assigned, or changed in place); nothing is
 * written when the downstream middleware throws.
 *
 * @example A counter per chat
 * ```ts
 * import { Bot, type Context, session, type SessionFlavor } from "@gw/gateway/bot";
 * type MyContext = Context & SessionFlavor<{ count: number }>;
 * const bot = new Bot<MyContext>();
 * bot.use(session({ initial: () => ({ count: 0 }) }));
 * bot.hears("reset", (ctx) => {
 *   ctx.session = null; // deleted after this update
 * });
 * bot.on("message:text", (ctx) => ctx.reply(`message ${++ctx.session.count}`));
 * ```
 */
export function session<S, C extends Context = Context>(
  options: SessionOptions<S, C>,
): MiddlewareFn<C & SessionFlavor<S>> {
  return keyedSession<S, C, C & SessionFlavor<S>>(options, async (ctx, next, namespace, key) => {
    const slot = new SessionSlot<S>(await ctx.state.get<S>(namespace, key), options.initial);
    Object.defineProperty(ctx, "session", {
      configurable: true,
      enumerable: true,
      get: () => slot.read(),
      set: (value: S | null | undefined) => slot.assign(value),
    });
    await next();
    await slot.save(ctx.state, namespace, key, expiryOf(options, ctx));
  });
}

/**
 * The context of a bot that uses {@link lazySession}: `await ctx.session` reads the chat's data at the first
 * access; assigning a value or `null` works as with {@link SessionFlavor}.
 *
 * @example
 * ```ts
 * import { Bot, type Context, lazySession, type LazySessionFlavor } from "@gw/gateway/bot";
 * type MyContext = Context & LazySessionFlavor<{ count: number }>;
 * const bot = new Bot<MyContext>();
 * bot.use(lazySession({ initial: () => ({ count: 0 }) }));
 * bot.on("message:text", async (ctx) => {
 *   const session = await ctx.session; // read here, not for updates that never ask
 *   await ctx.reply(`message ${++session.count}`);
 * });
 * ```
 */
export type LazySessionFlavor<S> = {
  /** The session of this update's key, read from the store at the first access. */
  get session(): Promise<S>;
  /** Assign a new value, or `null` to delete the session. */
  set session(value: S | null);
};

/**
 * Session middleware that reads the store only when the middleware asks (`await ctx.session`): an update
 * that never touches its session costs no read and no write. Same options, writes and conflict rule as
 * {@link session}.
 *
 * @example
 * ```ts
 * import { Bot, type Context, lazySession, type LazySessionFlavor } from "@gw/gateway/bot";
 * type MyContext = Context & LazySessionFlavor<{ orders: string[] }>;
 * const bot = new Bot<MyContext>();
 * bot.use(lazySession({ initial: (): { orders: string[] } => ({ orders: [] }) }));
 * bot.command("order", async (ctx) => {
 *   (await ctx.session).orders.push(ctx.match);
 *   await ctx.reply("Noted");
 * });
 * bot.on("message:text", (ctx) => ctx.reply("Send /order <item>")); // never reads the session
 * ```
 */
export function lazySession<S, C extends Context = Context>(
  options: SessionOptions<S, C>,
): MiddlewareFn<C & LazySessionFlavor<S>> {
  return keyedSession<S, C, C & LazySessionFlavor<S>>(options, async (ctx, next, namespace, key) => {
    let loaded: Promise<SessionSlot<S>> | undefined;
    const load = () =>
      loaded ??= ctx.state.get<S>(namespace, key).then((entry) => new SessionSlot(entry, options.initial));
    Object.defineProperty(ctx, "session", {
      configurable: true,
      enumerable: true,
      get: () => load().then((slot) => slot.read()),
      // Applied once the entry is read (its version is what the save compares against), before later reads.
      // A failed read is not lost here: the save below awaits the same read and fails the update with it.
      set: (value: S | null | undefined) => void load().then((slot) => slot.assign(value), () => {}),
    });
    await next();
    if (loaded === undefined) return; // never touched: no read, no write
    await (await loaded).save(ctx.state, namespace, key, expiryOf(options, ctx));
  });
}

/**
 * What {@link session} and {@link lazySession} share: the options checked once, the key of each update,
 * and a throwing `ctx.session` for an update without a key; `withKey` runs for an update with one.
 */
function keyedSession<S, B extends Context, C extends B>(
  options: SessionOptions<S, B>,
  withKey: (ctx: C, next: () => Promise<void>, namespace: string, key: string) => Promise<void>,
): MiddlewareFn<C> {
  checkSessionOptions(options);
  const getKey = options.getKey ?? defaultSessionKey;
  const namespace = options.namespace ?? "session";
  return async (ctx, next) => {
    const key = getKey(ctx);
    if (key === undefined) {
      noSession(ctx);
      await next();
      return;
    }
    await withKey(ctx, next, namespace, key);
  };
}

/** When a session saved now expires: `ttlMs` after now on the bot's clock, or never. */
function expiryOf(options: { ttlMs?: number }, ctx: Context): number | undefined {
  return options.ttlMs === undefined ? undefined : ctx.now() + options.ttlMs;
}

/** `ctx.session` of an update without a session key: every use throws. */
function noSession(ctx: object): void {
  Object.defineProperty(ctx, "session", {
    configurable: true,
    get: () => {
      throw new TypeError(`Cannot read session: this update has no session key (getKey gave undefined)`);
    },
    set: () => {
      throw new TypeError(`Cannot write session: this update has no session key (getKey gave undefined)`);
    },
  });
}

function checkSessionOptions(options: SessionOptions<unknown, never>): void {
  if (options === null || typeof options !== "object") {
    throw new TypeError("Cannot create session: pass { initial }");
  }
  checkOptionKeys(options, OPTION_KEYS, "session");
  if (typeof options.initial !== "function") {
    throw new TypeError(`Cannot create session: "initial" must be a function returning a fresh value`);
  }
  if (options.getKey !== undefined && typeof options.getKey !== "function") {
    throw new TypeError(`Cannot create session: "getKey" must be a function`);
  }
  if (
    options.namespace !== undefined && (typeof options.namespace !== "string" || options.namespace === "")
  ) {
    throw new TypeError(`Cannot create session: "namespace" must be a non-empty string`);
  }
  const ttl = options.ttlMs;
  if (ttl !== undefined && (typeof ttl !== "number" || !Number.isFinite(ttl) || ttl <= 0)) {
    throw new RangeError(`Cannot create session: "ttlMs" must be a positive number of ms`);
  }
}

/** One update's view of one session entry: what was read, what the update made of it. */
class SessionSlot<S> {
  readonly #entry: StateEntry<S> | null;
  readonly #initial: () => S;
  /** The value handed out (undefined: not read yet; null: deleted). */
  #value: S | null | undefined;
  /** JSON of the stored value: a change in place shows. */
  readonly #stored: string | undefined;
  /** JSON of the `initial()` value this update made (no entry, or read after a delete), if it did. */
  #fresh: string | undefined;

  constructor(entry: StateEntry<S> | null, initial: () => S) {
    this.#entry = entry;
    this.#initial = initial;
    this.#stored = entry === null ? undefined : JSON.stringify(entry.value);
  }

  read(): S {
    if (this.#value === undefined && this.#entry !== null) this.#value = this.#entry.value;
    if (this.#value === undefined || this.#value === null) {
      this.#value = this.#initial();
      this.#fresh = JSON.stringify(this.#value);
    }
    return this.#value;
  }

  assign(value: S | null | undefined): void {
    this.#value = value === undefined ? null : value;
    this.#fresh = undefined;
  }

  /**
   * Store what the update left: nothing when untouched or unchanged; a delete when it holds no session (set
   * to `null`, or a fresh `initial()` left as it was); else the value. Compare-and-set against the read.
   */
  async save(
    state: StateStore,
    namespace: string,
    key: string,
    expiresAt: number | undefined,
  ): Promise<void> {
    const value = this.#value;
    if (value === undefined) return; // never touched
    const json = value === null ? undefined : JSON.stringify(value);
    const version = this.#entry?.version;
    if (value === null || json === this.#fresh) {
      if (version === undefined) return;
      if (await state.delete(namespace, key, { expectedVersion: version })) return;
      if ((await state.get(namespace, key)) !== null) throw new StateConflictException("session", key);
      return;
    }
    if (json === this.#stored && expiresAt === undefined) return;
    const written = await state.set(namespace, key, value, { expectedVersion: version ?? null, expiresAt });
    if (written === null) throw new StateConflictException("session", key);
  }
}
