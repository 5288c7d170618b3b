// session(): per-chat data in the bot's store, read before and written after the downstream middleware,
// only when changed, with compare-and-set; on MemoryState (MemoryStore), KvState (KvStore) and RedisState
// (RedisStore on a throwaway redis-server).
import { deepStrictEqual, rejects, strictEqual, throws } from "node:assert/strict";
import { MemoryStore } from "../../mod.ts";
import {
  Bot,
  type Context,
  lazySession,
  type LazySessionFlavor,
  session,
  type SessionFlavor,
  StateConflictException,
} from "../../src/bot/mod.ts";
import { ConfigurationException } from "../../src/errors.ts";
import type { GatewayStore } from "../../src/store/store.ts";
import { withStoreEngine } from "../helpers/store_engines.ts";
import { BotHarness } from "../../src/testing/mod.ts";

type Counter = { count: number };
type CounterContext = Context & SessionFlavor<Counter>;
const ANA = "5511999999999";
const BIA = "5511988888888";
const ANA_KEY = `bot:${ANA}@s.whatsapp.net`;

function counterBot(store: GatewayStore): Bot<CounterContext> {
  const bot = new Bot<CounterContext>({ store });
  bot.use(session({ initial: (): Counter => ({ count: 0 }) }));
  bot.hears("reset", (ctx) => {
    ctx.session = null;
    return ctx.reply("reset");
  });
  bot.hears("peek", (ctx) => ctx.reply(`at ${ctx.session.count}`));
  bot.hears("quiet", () => {});
  bot.hears("fail", (ctx) => {
    ctx.session.count = 1000;
    throw new Error("handler failed");
  });
  bot.catch(() => {});
  bot.on("message:text", (ctx) => ctx.reply(`count ${++ctx.session.count}`));
  return bot;
}

for (const engine of ["MemoryState", "KvState", "RedisState"] as const) {
  const kind =
    ({ MemoryState: "MemoryStore", KvState: "KvStore", RedisState: "RedisStore" } as const)[engine];
  const withStore = (fn: (store: GatewayStore) => Promise<void>) => withStoreEngine(kind, fn);

  Deno.test(`session (${engine}): one counter per chat, kept in the store`, () =>
    withStore(async (store) => {
      await using h = new BotHarness(counterBot(store));
      const ana = h.user(ANA);
      const bia = h.user(BIA);
      await ana.send("a");
      await ana.send("b");
      await bia.send("c");
      await ana.send("d");
      deepStrictEqual(ana.replies.map((r) => r.text), ["count 1", "count 2", "count 3"]);
      deepStrictEqual(bia.replies.map((r) => r.text), ["count 1"]);
      strictEqual((await store.state.get<Counter>("session", ANA_KEY))?.value.count, 3);
    }));

  Deno.test(`session (${engine}): written only when changed; a read or no use leaves the entry as it was`, () =>
    withStore(async (store) => {
      await using h = new BotHarness(counterBot(store));
      const ana = h.user(ANA);
      await ana.send("quiet");
      strictEqual(await store.state.get("session", ANA_KEY), null); // untouched: nothing written
      await ana.send("peek");
      strictEqual(await store.state.get("session", ANA_KEY), null); // read of the initial value: nothing written
      await ana.send("x");
      const version = (await store.state.get("session", ANA_KEY))?.version;
      await ana.send("peek");
      strictEqual((await store.state.get("session", ANA_KEY))?.version, version);
      deepStrictEqual(ana.replies.map((r) => r.text), ["at 0", "count 1", "at 1"]);
    }));

  Deno.test(`session (${engine}): ctx.session = null deletes; the next read starts from initial`, () =>
    withStore(async (store) => {
      await using h = new BotHarness(counterBot(store));
      const ana = h.user(ANA);
      await ana.send("x");
      await ana.send("x");
      await ana.send("reset");
      strictEqual(await store.state.get("session", ANA_KEY), null);
      await ana.send("x");
      deepStrictEqual(ana.replies.map((r) => r.text), ["count 1", "count 2", "reset", "count 1"]);
    }));

  Deno.test(`session (${engine}): a handler that throws saves nothing`, () =>
    withStore(async (store) => {
      await using h = new BotHarness(counterBot(store));
      const ana = h.user(ANA);
      await ana.send("x");
      await ana.send("fail");
      await ana.send("peek");
      deepStrictEqual(ana.replies.map((r) => r.text), ["count 1", "at 1"]);
    }));

  Deno.test(`session (${engine}): two runs of one key at once: the first save wins, the second is refused`, () =>
    withStore(async (store) => {
      const middleware = session<Counter, CounterContext>({ initial: () => ({ count: 0 }) });
      const ctx = () =>
        ({
          instance: "bot",
          chat: { id: "c@s.whatsapp.net", isGroup: false },
          state: store.state,
          now: Date.now,
        }) as unknown as CounterContext;
      const [a, b] = [ctx(), ctx()];
      let release!: () => void;
      const gate = new Promise<void>((resolve) => release = resolve);
      const first = middleware(a, async () => {
        a.session.count += 1;
        await gate; // b reads the same version, then a saves first
      });
      const second = Promise.resolve(middleware(b, async () => {
        b.session.count += 10;
        release();
        await first;
      }));
      await rejects(
        second,
        (error: Error) =>
          error instanceof StateConflictException &&
          error.message ===
            'Cannot save session "bot:c@s.whatsapp.net": another update changed it while this one ran',
      );
      strictEqual((await store.state.get<Counter>("session", "bot:c@s.whatsapp.net"))?.value.count, 1);
    }));
}

Deno.test("session: the session survives a restart (same store, a new bot)", async () => {
  await using h = new BotHarness(counterBot(new MemoryStore()));
  const ana = h.user(ANA);
  await ana.send("x");
  h.restart();
  await ana.send("x");
  deepStrictEqual(ana.replies.map((r) => r.text), ["count 1", "count 2"]);
});

Deno.test("session: getKey chooses the key (per person across chats); no key makes ctx.session throw", async () => {
  const bot = new Bot<CounterContext>({ store: new MemoryStore() });
  bot.use(session({ initial: () => ({ count: 0 }), getKey: (ctx) => ctx.from?.id, namespace: "per_person" }));
  bot.on("message:text", (ctx) => ctx.reply(`seen ${++ctx.session.count}`));
  bot.on("connection", (ctx) => {
    throws(() => ctx.session.count, /Cannot read session: this update has no session key/);
  });
  await using h = new BotHarness(bot);
  const ana = h.user(ANA, { name: "Ana" });
  const team = await h.group("Team", [ana]);
  await ana.send("hi");
  await team.send(ana, "hi all");
  await h.deliver("connection.update", { instance: "bot", state: "open", statusReason: 200 });
  deepStrictEqual(ana.replies.map((r) => r.text), ["seen 1"]);
  deepStrictEqual(team.replies.map((r) => r.text), ["seen 2"]);
});

Deno.test("session: ttlMs deletes a session that long after the last update that used it (bot's clock)", async () => {
  let now = 1_800_000_000_000;
  const clock = () => now;
  const bot = new Bot<CounterContext>({ store: new MemoryStore({ now: clock }), now: clock });
  bot.use(session({ initial: () => ({ count: 0 }), ttlMs: 60_000 }));
  bot.on("message:text", (ctx) => ctx.reply(`count ${++ctx.session.count}`));
  await using h = new BotHarness(bot);
  const ana = h.user(ANA);
  await ana.send("a");
  now += 59_000;
  await ana.send("b");
  now += 59_000;
  await ana.send("c");
  now += 60_000;
  await ana.send("d");
  deepStrictEqual(ana.replies.map((r) => r.text), ["count 1", "count 2", "count 3", "count 1"]);
});

Deno.test("session: options are checked when the middleware is built", () => {
  throws(
    () => session({ initial: () => 0, getkey: () => "x" } as never),
    (error: Error) =>
      error instanceof ConfigurationException &&
      error.message === 'session: "getkey" is not an option; did you mean "getKey"?',
  );
  throws(() => session({} as never), /"initial" must be a function/);
  throws(() => session({ initial: () => 0, ttlMs: -1 }), /"ttlMs" must be a positive number/);
  throws(() => session({ initial: () => 0, namespace: "" }), /"namespace" must be a non-empty string/);
});

Deno.test("session: a value over the store's size limit fails the update loudly", async () => {
  const bot = new Bot<Context & SessionFlavor<{ big: string }>>({ store: new MemoryStore() });
  bot.use(session({ initial: () => ({ big: "" }) }));
  bot.on("message:text", (ctx) => {
    ctx.session.big = "x".repeat(60_000);
  });
  await using h = new BotHarness(bot);
  await rejects(h.user(ANA).send("hi"), /over 49152/);
});

Deno.test("lazySession: an update that never asks reads and writes nothing; one that asks reads once", async () => {
  const store = new MemoryStore();
  const gets: string[] = [];
  const get = store.state.get.bind(store.state);
  store.state.get = <T>(namespace: string, key: string) => {
    if (namespace === "session") gets.push(key);
    return get<T>(namespace, key);
  };
  const bot = new Bot<Context & LazySessionFlavor<Counter>>({ store });
  bot.use(lazySession({ initial: (): Counter => ({ count: 0 }) }));
  bot.hears("count", async (ctx) => {
    const session = await ctx.session;
    await ctx.reply(`count ${++session.count}, again ${(await ctx.session).count}`);
  });
  bot.hears("reset", async (ctx) => {
    ctx.session = null;
    await ctx.reply(`after reset ${(await ctx.session).count}`);
  });
  bot.hears("set", async (ctx) => {
    ctx.session = { count: 41 };
    await ctx.reply("set");
  });
  bot.on("message:text", (ctx) => ctx.reply("no session used"));
  await using h = new BotHarness(bot);
  const ana = h.user(ANA);
  await ana.send("hello");
  deepStrictEqual(gets, []);
  strictEqual(await get("session", ANA_KEY), null);
  await ana.send("count");
  await ana.send("count");
  deepStrictEqual(gets, [ANA_KEY, ANA_KEY]);
  await ana.send("reset");
  strictEqual(await get("session", ANA_KEY), null);
  await ana.send("set");
  await ana.send("count");
  deepStrictEqual(ana.replies.map((r) => r.text), [
    "no session used",
    "count 1, again 1",
    "count 2, again 2",
    "after reset 0",
    "set",
    "count 42, again 42",
  ]);
});

Deno.test("lazySession: a session assigned while the store cannot be read fails the update, with no stray rejection", async () => {
  const store = new MemoryStore();
  const get = store.state.get.bind(store.state);
  store.state.get = <T>(namespace: string, key: string) =>
    namespace === "session" ? Promise.reject(new Error("store down")) : get<T>(namespace, key);
  const bot = new Bot<Context & LazySessionFlavor<Counter>>({ store });
  const caught: string[] = [];
  bot.catch((error) => void caught.push((error.error as Error).message));
  bot.use(lazySession({ initial: (): Counter => ({ count: 0 }) }));
  bot.on("message:text", (ctx) => {
    ctx.session = { count: 1 }; // assigned, never read: the save reads the entry first
  });
  await using h = new BotHarness(bot);
  await h.user(ANA).send("hi");
  deepStrictEqual(caught, ["store down"]);
  strictEqual(await get("session", ANA_KEY), null);
});

// The limit docs/bot.md states: a save is not undone when the update fails after it.
Deno.test("session: an update that fails after its save runs again on the saved value", async () => {
  const store = new MemoryStore();
  const bot = new Bot<CounterContext>({ store });
  let failures = 1;
  bot.use(async (_ctx, next) => {
    await next();
    if (failures-- > 0) throw new Error("failed after the session was saved");
  });
  bot.use(session({ initial: (): Counter => ({ count: 0 }) }));
  bot.on("message:text", (ctx) => void ctx.session.count++);
  await using h = new BotHarness(bot);
  await rejects(h.user(ANA).send("hi"), /failed after the session was saved/);
  await h.redeliver();
  strictEqual((await store.state.get<Counter>("session", ANA_KEY))?.value.count, 2);
});
