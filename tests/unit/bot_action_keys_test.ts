// An action's key names "the k-th action of this update": a retry whose actions differ in body (an LLM answer,
// a timestamp) or in the order they were started is answered from the first run, never refused or sent twice.
import { deepStrictEqual, ok, rejects, strictEqual, throws } from "node:assert/strict";
import { GatewayService, KvStore, MemoryStore } from "../../mod.ts";
import { Bot, type Context } from "../../src/bot/mod.ts";
import type { OutcomeUnknownException } from "../../src/errors.ts";
import { IdempotencyClaims } from "../../src/store/idempotency.ts";
import type { StateStore } from "../../src/store/state.ts";
import type { GatewayStore } from "../../src/store/store.ts";
import { GatewayStub, inbound, INSTANCE, stubBot, stubService } from "../helpers/bot.ts";

Deno.test("keys: a retry whose reply text differs sends nothing, fails nothing and reports the reply replayed", async () => {
  const { bot, stub } = stubBot();
  let runs = 0;
  const seen: [boolean, unknown][] = [];
  bot.on("message:text", async (ctx) => {
    runs++;
    const res = await ctx.reply(`It is ${runs === 1 ? "10:00" : "10:01"} now`);
    seen.push([res.replayed, res.data.key.id]);
    if (runs === 1) throw new Error("crashed after replying");
  });
  const update = inbound("time?", { id: "K1" });
  await rejects(bot.handleUpdate(update), /crashed after replying/);
  await bot.handleUpdate(update); // the server's retry
  strictEqual(runs, 2);
  deepStrictEqual(seen, [[false, "BOT1"], [true, "BOT1"]]); // the first run's answer, replayed
  deepStrictEqual(stub.texts(), ["It is 10:00 now"]);
});

Deno.test("keys: a retry that answers with another kind of message at that step sends nothing either", async () => {
  const { bot, stub } = stubBot();
  let runs = 0;
  bot.on("message:text", async (ctx) => {
    runs++;
    if (runs === 1) {
      await ctx.reply("Here is the menu");
      throw new Error("crashed");
    }
    const res = await ctx.replyWithLocation(-23.5505, -46.6333, { name: "Shop" });
    strictEqual(res.replayed, true);
  });
  const update = inbound("menu", { id: "K2" });
  await rejects(bot.handleUpdate(update), /crashed/);
  await bot.handleUpdate(update);
  deepStrictEqual(stub.requests.map((r) => r.path), ["/message/sendText/sales"]);
});

Deno.test("keys: Promise.all of two replies started in the other order on the retry sends nothing again", async () => {
  const { bot, stub } = stubBot();
  let runs = 0;
  const replayed: boolean[][] = [];
  bot.on("message:text", async (ctx) => {
    runs++;
    const texts = runs === 1 ? ["a", "b"] : ["b", "a"];
    const answers = await Promise.all(texts.map((text) => ctx.reply(text)));
    replayed.push(answers.map((res) => res.replayed));
    if (runs === 1) throw new Error("crashed after both");
  });
  const update = inbound("two", { id: "K3" });
  await rejects(bot.handleUpdate(update), /crashed after both/);
  await bot.handleUpdate(update);
  deepStrictEqual(replayed, [[false, false], [true, true]]);
  deepStrictEqual(stub.texts(), ["a", "b"]);
  // Positions are given when the actions are called, not when they finish.
  deepStrictEqual(stub.requests.map((r) => r.idempotencyKey), ["bot:sales:K3:0", "bot:sales:K3:1"]);
});

Deno.test("keys: reactions count apart from messages, so a retry that reacts first still sends its reply once", async () => {
  const { bot, stub } = stubBot();
  let runs = 0;
  bot.on("message:text", async (ctx) => {
    runs++;
    if (runs === 1) {
      await ctx.reply("On it");
      throw new Error("crashed before reacting");
    }
    await ctx.react("👀");
    await ctx.reply("On it");
  });
  const update = inbound("go", { id: "K4" });
  await rejects(bot.handleUpdate(update), /crashed before reacting/);
  await bot.handleUpdate(update);
  deepStrictEqual(stub.requests.map((r) => [r.path, r.idempotencyKey]), [
    ["/message/sendText/sales", "bot:sales:K4:0"],
    ["/message/sendReaction/sales", "bot:sales:K4:react:0"],
  ]);
});

Deno.test("keys: a step whose first send failed (nothing went out) sends the retry's different text", async () => {
  const { bot, stub } = stubBot();
  let runs = 0;
  const errors: string[] = [];
  bot.on("message:text", async (ctx) => {
    runs++;
    await ctx.reply(`attempt ${runs}`).catch((error: Error) => {
      errors.push(error.constructor.name);
      throw error;
    });
  });
  const update = inbound("hi", { id: "K5" });
  stub.failNext = { status: 400, count: 1 }; // refused by the server: the key is given back
  await rejects(bot.handleUpdate(update));
  await bot.handleUpdate(update);
  deepStrictEqual(errors, ["GatewayApiException"]);
  deepStrictEqual(stub.texts(), ["attempt 2"]);
});

Deno.test("keys: an explicit idempotencyKey is the action's key as given, and takes no position", async () => {
  const { bot, stub } = stubBot();
  bot.on("message:text", async (ctx) => {
    await ctx.reply(`Welcome, ${ctx.text}!`, { idempotencyKey: `welcome-${ctx.chat.id}` });
    await ctx.reply(`You said ${ctx.text}`);
  });
  await bot.handleUpdate(inbound("one", { id: "K6" }));
  await bot.handleUpdate(inbound("two", { id: "K7" })); // the welcome went out already: replayed
  deepStrictEqual(stub.texts(), ["Welcome, one!", "You said one", "You said two"]);
  deepStrictEqual(stub.requests.map((r) => r.idempotencyKey), [
    "welcome-5511999999999@s.whatsapp.net",
    "bot:sales:K6:0",
    "bot:sales:K7:0",
  ]);
});

Deno.test("keys: a bad action option is refused before any request, with a suggestion", async () => {
  const { bot, stub } = stubBot();
  const errors: string[] = [];
  bot.on("message:text", async (ctx) => {
    // deno-lint-ignore no-explicit-any
    await ctx.reply("x", { idempotency_key: "k" } as any).catch((e: Error) => errors.push(e.message));
    await ctx.reply("x", { idempotencyKey: "" }).catch((e: Error) => errors.push(e.message));
  });
  await bot.handleUpdate(inbound("hi", { id: "K8" }));
  deepStrictEqual(errors, [
    'ctx.reply: "idempotency_key" is not an option; did you mean "idempotencyKey"?',
    "Invalid idempotencyKey: expected a non-empty string of at most 255 characters",
  ]);
  deepStrictEqual(stub.requests, []);
});

Deno.test("keys: while the step's first send is in flight elsewhere, the retry's different text is not sent", async () => {
  const { bot, stub, store } = stubBot();
  // Another process holds the key of the update's first message, sending another text.
  const claims = new IdempotencyClaims(store.state);
  const scope = { connection: "default", instance: INSTANCE, key: "bot:sales:K9:0" };
  const held = await claims.acquire(scope, {
    fingerprint: "other",
    recordId: "r1",
    claimedUntil: Date.now() + 60_000,
  });
  strictEqual(held.kind, "owner");
  const errors: string[] = [];
  bot.on("message:text", async (ctx) => {
    await ctx.reply("another text").catch((e: Error) => {
      errors.push(`${e.constructor.name} ${(e as OutcomeUnknownException).inFlight}`);
      throw e;
    });
  });
  await rejects(bot.handleUpdate(inbound("hi", { id: "K9" })));
  deepStrictEqual(errors, ["OutcomeUnknownException true"]);
  deepStrictEqual(stub.requests, []);
});

Deno.test("keys: a fork whose reply comes first on one run and last on the retry sends nothing again", async () => {
  const { bot, stub } = stubBot();
  let runs = 0;
  const replayed: boolean[] = [];
  bot.fork(async (ctx) => {
    if (runs === 2) { for (let i = 0; i < 5; i++) await Promise.resolve(); // the retry's fork is slower
     }
    replayed.push((await ctx.reply(`audit ${runs}`)).replayed);
  });
  bot.on("message:text", async (ctx) => {
    runs++;
    await Promise.resolve();
    replayed.push((await ctx.reply(`answer ${runs}`)).replayed);
    if (runs === 1) throw new Error("crashed after both");
  });
  const update = inbound("hi", { id: "K10" });
  await rejects(bot.handleUpdate(update), /crashed after both/);
  await bot.handleUpdate(update);
  deepStrictEqual(replayed, [false, false, true, true]);
  strictEqual(stub.texts().length, 2);
});

// A process killed mid-handler, at each of its steps in turn (every store write and every send; nothing it
// writes or sends happens from the killed step on), then the update redelivered to another process on the
// store once every lease has passed: no text goes out twice. A kill after a key was taken and before it was
// settled leaves that step's outcome unknown: the retry answers the steps before it, throws
// OutcomeUnknownException at it and sends nothing more (within the key's window).
Deno.test("keys: a process killed at any step between a send and its key settling never makes a retry send twice", async () => {
  const seen = new Set<string>();
  for (let stopAt = 0; stopAt <= 14; stopAt++) {
    let t = Date.UTC(2027, 0, 15, 8);
    const now = () => t;
    const sleep = (ms: number) => (t += ms, Promise.resolve());
    const store = new MemoryStore({ now });
    const stub = new GatewayStub();
    const steps: string[] = [];
    const step = (what: string) => {
      if (steps.length >= stopAt) throw new Error(`killed before ${what}`);
      steps.push(what);
    };
    const inner = store.state;
    const dying: StateStore = {
      get: (n, k) => steps.length >= stopAt ? Promise.reject(new Error("killed")) : inner.get(n, k),
      set: async (n, k, v, o) => (step(`set ${n}`), await inner.set(n, k, v, o)),
      delete: async (n, k, o) => (step(`delete ${n}`), await inner.delete(n, k, o)),
      list: (n, o) => inner.list(n, o),
    };
    const dyingStore = withState(store, dying);
    let mono = 0;
    const claims = { monotonic: () => mono };
    const build = (s: GatewayStore, fetch: typeof stub.fetch) => {
      const options = { server_url: "http://gateway.test", api_key: "k", instance: INSTANCE, store: s };
      const service = new GatewayService({ ...options, retry: { max_retries: 0 } }, { fetch, now, sleep });
      const bot = new Bot({
        signature: { scheme: "none" },
        pacing: false,
        service,
        store: s,
        now,
        sleep,
        claims,
      });
      bot.on("message:text", async (ctx) => {
        await ctx.reply("a");
        await ctx.reply("b");
      });
      return bot;
    };
    const update = inbound("go", { id: `KILL${stopAt}` });
    const killed = build(dyingStore, (input, init) => (step("send"), stub.fetch(input, init)));
    await killed.handleUpdate(update).catch(() => {});
    // The retrying process sees the killed one's claim first (refused), then every lease passes: the claim's
    // on its monotonic clock, the others' on the wall clock.
    const retrier = build(store, stub.fetch);
    await retrier.handleUpdate(update).catch(() => {});
    t += 10 * 60_000;
    mono += 10 * 60_000;
    const outcomes: string[] = [];
    for (let retry = 0; retry < 2; retry++) {
      await (retry === 0 ? retrier : build(store, stub.fetch)).handleUpdate(update).then(
        () => outcomes.push("ok"),
        (error) => outcomes.push(error.error?.name ?? error.name),
      );
    }
    const sent = stub.texts();
    const label = `killed at step ${stopAt} after ${JSON.stringify(steps)}: ${outcomes} ${sent}`;
    strictEqual(new Set(sent).size, sent.length, label); // nothing twice
    const unknown = outcomes.every((o) => o === "OutcomeUnknownException");
    ok(unknown || (outcomes.every((o) => o === "ok") && sent.join() === "a,b"), label);
    ok(["", "a", "a,b"].includes(sent.join()), label); // in order, nothing past an unknown step
    seen.add(`${unknown ? "unknown" : "done"}:${sent.join()}`);
  }
  // Both ends were reached: kills before any key or after every one, and kills between a key and its settling.
  deepStrictEqual([...seen].sort(), ["done:a,b", "unknown:", "unknown:a", "unknown:a,b"]);
});

function withState(store: GatewayStore, state: StateStore): GatewayStore {
  return new Proxy(store, {
    get: (target, name) => {
      if (name === "state") return state;
      const value = Reflect.get(target, name, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

// The key's window is a limit, not a promise past it: a retry 25 h after the first send (a key's window is 24 h
// by default) runs the handler again and its reply goes out again; 23 h after, it is replayed.
Deno.test("keys: a retry within the key's window is replayed; 25 h later its reply goes out again", async () => {
  let t = Date.UTC(2027, 0, 15, 8);
  const now = () => t;
  const { bot, stub } = stubBot({ now, store: new MemoryStore({ now }) });
  const replayed: boolean[] = [];
  bot.on("message:text", async (ctx) => {
    replayed.push((await ctx.reply("Paid")).replayed);
    throw new Error("crashed after replying");
  });
  const update = inbound("pay", { id: "K25" });
  await rejects(bot.handleUpdate(update), /crashed after replying/);
  t += 23 * 3_600_000;
  await rejects(bot.handleUpdate(update), /crashed after replying/);
  t += 2 * 3_600_000;
  await rejects(bot.handleUpdate(update), /crashed after replying/);
  deepStrictEqual(replayed, [false, true, false]);
  deepStrictEqual(stub.texts(), ["Paid", "Paid"]);
});

// The documented limit of positions: actions called after different awaits in concurrent branches take their
// positions in the order the awaits end. A retry whose branches end in the other order, after a first run
// where only one of them sent, skips the message at the sent position and sends the one at the free position
// (here "a" goes out twice and "b" never); actions with their own idempotencyKey are each sent once.
Deno.test("keys: branches that reply after different awaits may swap positions on a retry; their own keys do not", async () => {
  for (const keyed of [false, true]) {
    const { bot, stub } = stubBot();
    let runs = 0;
    const replayed: [string, boolean][] = [];
    const ticks = (n: number) =>
      Array.from({ length: n }).reduce<Promise<void>>((p) => p.then(() => {}), Promise.resolve());
    const say = async (ctx: Context, text: string) => {
      const options = keyed ? { idempotencyKey: `order-7-${text}` } : undefined;
      replayed.push([text, (await ctx.reply(text, options)).replayed]);
    };
    bot.on("message:text", async (ctx) => {
      runs++;
      await Promise.all([
        ticks(runs === 1 ? 1 : 20).then(() => say(ctx, "a")),
        ticks(runs === 1 ? 20 : 1).then(() =>
          runs === 1 ? Promise.reject(new Error("crashed")) : say(ctx, "b")
        ),
      ]);
    });
    const update = inbound("two", { id: keyed ? "KB2" : "KB1" });
    await rejects(bot.handleUpdate(update), /crashed/);
    await bot.handleUpdate(update);
    if (keyed) {
      deepStrictEqual(replayed.sort(), [["a", false], ["a", true], ["b", false]]);
      deepStrictEqual(stub.texts(), ["a", "b"]);
    } else {
      deepStrictEqual(replayed.sort(), [["a", false], ["a", false], ["b", true]]);
      deepStrictEqual(stub.texts(), ["a", "a"]);
    }
  }
});

// A service built without a store keeps its keys in its own memory, where the bot cannot read the first send
// of a key: a retry whose reply differs failed every time ("idempotency key used for a different request"),
// the wedge of issue 27. Such a service is refused when the bot is built, with what to do.
Deno.test("keys: a service built without a store is refused by new Bot, before any update", () => {
  const stub = new GatewayStub();
  const config = { server_url: "http://gateway.test", api_key: "k", instance: INSTANCE };
  const service = new GatewayService(config, { fetch: stub.fetch });
  throws(
    () => new Bot({ signature: { scheme: "none" }, service, store: new MemoryStore() }),
    (error: Error) =>
      error.name === "ConfigurationException" &&
      error.message ===
        'Invalid bot option "service": built without a store, its idempotency keys live in its own memory and a retry whose reply differs could not be answered from the first send; build it with the bot\'s store (new GatewayService({ ..., store }))',
  );
  const store = new MemoryStore();
  new Bot({ signature: { scheme: "none" }, service: new GatewayService({ ...config, store }), store });
});

// ctx.api is the service itself: its sends are the bot's own (echo-safe) but carry no key of the update, so a
// retried handler sends them again; with an idempotencyKey of their own (a call option) they go out once.
Deno.test("keys: a ctx.api send is not keyed by the update: a retry sends it again, unless it has its own key", async () => {
  for (const keyed of [false, true]) {
    const { bot, stub } = stubBot();
    let runs = 0;
    bot.on("message:text", async (ctx) => {
      runs++;
      const options = keyed ? { idempotencyKey: `notice-${ctx.msg.id}` } : undefined;
      await ctx.api.messages().text(ctx.chat.id, "Your order is in", undefined, options);
      if (runs === 1) throw new Error("crashed after the notice");
    });
    const update = inbound("order", { id: keyed ? "KA2" : "KA1" });
    await rejects(bot.handleUpdate(update), /crashed after the notice/);
    await bot.handleUpdate(update);
    deepStrictEqual(stub.texts(), keyed ? ["Your order is in"] : ["Your order is in", "Your order is in"]);
  }
});

// Two processes on one KV file (two handles of it, as two processes open it): the first replies and dies
// before finishing its update; the second runs the server's redelivery, whose reply differs. Nothing is sent
// again; the reply is answered from the first send.
Deno.test("keys: on one KV file, another process's retry with a different reply sends nothing again", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/bot.kv`;
  const kvs = [await Deno.openKv(path), await Deno.openKv(path)];
  try {
    const stub = new GatewayStub();
    const replayed: boolean[] = [];
    const bots = kvs.map((kv, index) => {
      const store = new KvStore(kv);
      const bot = new Bot({
        signature: { scheme: "none" },
        pacing: false,
        store,
        service: stubService(stub, store),
      });
      bot.on("message:text", async (ctx) => {
        replayed.push((await ctx.reply(`Your code is ${index === 0 ? "1234" : "9876"}`)).replayed);
        if (index === 0) throw new Error("died after replying");
      });
      return bot;
    });
    const update = inbound("code?", { id: "KV1" });
    await rejects(bots[0].handleUpdate(update), /died after replying/);
    await bots[1].handleUpdate(update);
    deepStrictEqual(replayed, [false, true]);
    deepStrictEqual(stub.texts(), ["Your code is 1234"]);
  } finally {
    for (const kv of kvs) kv.close();
    await Deno.remove(dir, { recursive: true });
  }
});
