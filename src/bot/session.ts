import type { StateEntry, StateStore } from "../store/state.ts";
import { checkOptionKeys, type OptionKeys } from "../option_keys.ts";
import { StateConflictException } from "./state_conflict.ts";
import type { Context } from "./context.ts";
import type { MiddlewareFn } from "./middleware.ts";

/** The context of a bot that uses {@link session}: `ctx.session`; assigning `null` deletes it. */
export type SessionFlavor<S> = {
  /** The session of this update's key (the `initial` value when none is stored). */
  get session(): S;
  /** Assign a new value, or `null` to delete the session. */
  set session(value: S | null);
};

/** Options of {@link session}. */
export interface SessionOptions<S, C extends Context = Context> {
  /** A fresh value for a key with no stored session (called each time one is needed). */
  initial: () => S;
  /** An update's key, or `undefined` (then `ctx.session` throws); default `"<instance>:<chat id>"`. */
  getKey?: (ctx: C) => string | undefined;
  /** The store namespace (default `"session"`); two `session()` middlewares need different ones. */
  namespace?: string;
  /** Delete a session this many ms after the last update using it (each one rewrites it); default never. */
  ttlMs?: number;
}

const OPTION_KEYS: OptionKeys = { initial: true, getKey: true, namespace: true, ttlMs: true };

/**
 * The default session key: instance and canonical chat id (none without a chat, e.g. `connection`).
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
 * Session middleware: one read before the downstream middleware, one compare-and-set write after it when
 * `ctx.session` changed (nothing when it throws). Two updates of one key at once (a key shared by chats,
 * or per-chat order off): the first save wins, the other throws `StateConflictException` and is retried.
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

/** The context of a bot that uses {@link lazySession}: `await ctx.session` reads at first access. */
export type LazySessionFlavor<S> = {
  /** The session of this update's key, read from the store at the first access. */
  get session(): Promise<S>;
  /** Assign a new value, or `null` to delete the session. */
  set session(value: S | null);
};

/**
 * {@link session} that reads only when asked (`await ctx.session`): an update that never touches it costs
 * nothing. Same options, writes and conflict rule.
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
      // Applied once read (the save compares its version); a failed read fails the save below, not lost.
      set: (value: S | null | undefined) => void load().then((slot) => slot.assign(value), () => {}),
    });
    await next();
    if (loaded === undefined) return; // never touched: no read, no write
    await (await loaded).save(ctx.state, namespace, key, expiryOf(options, ctx));
  });
}

/** What {@link session} and {@link lazySession} share; `withKey` runs for an update with a key. */
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

  /** Store what the update left (compare-and-set); delete for `null` or an untouched `initial()`. */
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
