// An action's key names "the k-th action of this update": a retry whose actions differ in body (an LLM answer,
// a timestamp) or in the order they were started is answered from the first run, never refused or sent twice.
import { deepStrictEqual, rejects, strictEqual } from "node:assert/strict";
import type { OutcomeUnknownException } from "../../src/errors.ts";
import { IdempotencyClaims } from "../../src/store/idempotency.ts";
import { inbound, INSTANCE, stubBot } from "../helpers/bot.ts";

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
