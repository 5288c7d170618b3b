// Echo safety for every send through the bot's service: `ctx.api`, the service object itself, the actions.
// Their echoes never match `outgoing`, so the handoff pattern ("pause when an agent answers from the phone")
// does not pause itself.
import { deepStrictEqual, strictEqual } from "node:assert/strict";
import { MemoryStore } from "../../src/backends/memory/store.ts";
import { Bot, type Context } from "../../src/bot/mod.ts";
import type { GatewayService } from "../../src/service.ts";
import type { StateSetOptions } from "../../src/store/state.ts";
import {
  ANA,
  gate,
  GatewayStub,
  inbound,
  ORDER_STORES,
  SharedLikeState,
  sharedLikeStore,
  stubBot,
  stubService,
} from "../helpers/bot.ts";

const MENU = {
  title: "Menu",
  footerText: "Thanks",
  buttonText: "Open",
  sections: [{ title: "Food", rows: [{ title: "Pizza", rowId: "pizza" }] }],
};

/** The handoff pattern: the instance's own messages typed by a person pause the chat. */
function handoffBot(bot: Bot<Context>, paused: string[]): void {
  bot.on("outgoing", async (ctx) => {
    paused.push(ctx.msg.id);
    await bot.pause(ctx.chat.id);
  });
  bot.command("menu", async (ctx) => {
    await ctx.api.messages().list(ctx.chat.id, MENU);
  });
  bot.on("message:text", (ctx) => ctx.reply(`echo ${ctx.text}`));
}

for (const [kind, makeStore] of ORDER_STORES) {
  Deno.test(`own sends (${kind}): the echo of a list sent with ctx.api does not pause the chat; an agent's message does`, async () => {
    const { bot, stub } = stubBot({ store: makeStore() });
    const paused: string[] = [];
    handoffBot(bot, paused);
    await bot.handleUpdate(inbound("/menu", { id: "H1" }));
    deepStrictEqual(stub.to("/message/sendList").length, 1);
    await bot.handleUpdate({ ...inbound("Menu", { id: "BOT1" }), event: "send.message" });
    await bot.handleUpdate(inbound("Menu", { id: "BOT1", fromMe: true }));
    await bot.handleUpdate(inbound("hello", { id: "H2" }));
    strictEqual(await bot.isPaused(ANA), false);
    deepStrictEqual(stub.texts(), ["echo hello"]);
    await bot.handleUpdate(inbound("an agent here", { id: "AG1", fromMe: true }));
    deepStrictEqual(paused, ["AG1"]);
    strictEqual(await bot.isPaused(ANA), true);
  });
}

Deno.test("own sends: a send through the bot's service object (any view of it), outside any handler, is the bot's own", async () => {
  const { bot } = stubBot({ store: sharedLikeStore() });
  const paused: string[] = [];
  handoffBot(bot, paused);
  const service = bot.options.service as GatewayService;
  const sent = await service.messages().text(ANA, "Our sale starts today");
  strictEqual(sent.json("key.id"), "BOT1");
  const support = await service.instance("support").messages().text(ANA, "Until Sunday");
  strictEqual(support.json("key.id"), "BOT2");
  await bot.handleUpdate(inbound("Our sale starts today", { id: "BOT1", fromMe: true }));
  await bot.restart().handleUpdate(inbound("Our sale starts today", { id: "BOT1", fromMe: true }));
  await bot.handleUpdate({ ...inbound("Until Sunday", { id: "BOT2", fromMe: true }), instance: "support" });
  deepStrictEqual(paused, []);
  strictEqual(await bot.isPaused(ANA), false);
});

Deno.test("own sends: another process on the store drops the echo of a ctx.api send; the handler ends after the note", async () => {
  const noteStarted = gate();
  const noteHeld = gate();
  class SlowNotes extends SharedLikeState {
    override async set<T>(namespace: string, key: string, value: T, options?: StateSetOptions) {
      if (namespace === "bot_sent") {
        noteStarted.open();
        await noteHeld.promise;
      }
      return await super.set(namespace, key, value, options);
    }
  }
  const state = new SlowNotes();
  const store = new Proxy(new MemoryStore(), {
    get: (target, name) => {
      if (name === "state") return state;
      const value = Reflect.get(target, name, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  const stub = new GatewayStub();
  const make = () =>
    new Bot({ signature: { scheme: "none" }, pacing: false, store, service: stubService(stub, store) });
  const first = make();
  const pausedFirst: string[] = [];
  handoffBot(first, pausedFirst);
  let finished = false;
  const handled = first.handleUpdate(inbound("/menu", { id: "X1" })).then(() => finished = true);
  await noteStarted.promise;
  for (let tick = 0; tick < 200; tick++) await Promise.resolve(); // everything else the update does, done
  strictEqual(finished, false); // the chat's turn is still held: the note is being written
  noteHeld.open();
  await handled;
  const second = make(); // another process on the same store
  const pausedSecond: string[] = [];
  handoffBot(second, pausedSecond);
  await second.handleUpdate(inbound("Menu", { id: "BOT1", fromMe: true }));
  deepStrictEqual([pausedFirst, pausedSecond], [[], []]);
  strictEqual(await second.isPaused(ANA), false);
});

// A ctx.api send to another chat than the update's (a notice to an agent): its echo, arriving in that other
// chat after the server's answer, is the bot's own in this process and in another on the store.
Deno.test("own sends: the echo of a ctx.api send to another chat is the bot's own, in every process on the store", async () => {
  const BIA = "5511988888888@s.whatsapp.net";
  const store = sharedLikeStore();
  const stub = new GatewayStub();
  const make = () =>
    new Bot({ signature: { scheme: "none" }, pacing: false, store, service: stubService(stub, store) });
  const paused: string[] = [];
  const bots = [make(), make()];
  for (const bot of bots) {
    bot.command("notify", async (ctx) => {
      await ctx.api.messages().text(BIA, `Ana needs help (${ctx.msg.id})`);
    });
    handoffBot(bot, paused);
  }
  await bots[0].handleUpdate(inbound("/notify", { id: "N1" }));
  await bots[0].handleUpdate(inbound("/notify", { id: "N2" }));
  deepStrictEqual(stub.texts(), ["Ana needs help (N1)", "Ana needs help (N2)"]);
  await bots[0].handleUpdate(inbound("Ana needs help (N1)", { id: "BOT1", from: BIA, fromMe: true }));
  await bots[1].handleUpdate(inbound("Ana needs help (N2)", { id: "BOT2", from: BIA, fromMe: true }));
  deepStrictEqual(paused, []);
  strictEqual(await bots[1].isPaused(BIA), false);
});

Deno.test("own sends: a bot that reads no sent ids stops listening to the service; another bot on it still notes its sends", async () => {
  const stub = new GatewayStub();
  const service = stubService(stub, new MemoryStore());
  const plain = new Bot({ signature: { scheme: "none" }, pacing: false, service, store: new MemoryStore() });
  plain.on("message:text", (ctx) => ctx.reply(`echo ${ctx.text}`));
  await plain.handleUpdate(inbound("hi", { id: "P1" }));
  deepStrictEqual(stub.texts(), ["echo hi"]);
  const events = service.events as EventTarget & { listenerCount(type: string): number };
  strictEqual(events.listenerCount("MessageSent"), 0); // nothing reads its ids: no announcement is built
  // A bot built later on the same service listens again, and its sends' echoes are its own.
  const handoffStore = new MemoryStore();
  const handoff = new Bot({ signature: { scheme: "none" }, pacing: false, service, store: handoffStore });
  const paused: string[] = [];
  handoffBot(handoff, paused);
  strictEqual(events.listenerCount("MessageSent"), 1);
  const sent = await service.messages().text(ANA, "Our sale starts today");
  await handoff.handleUpdate(
    inbound("Our sale starts today", { id: sent.json<string>("key.id")!, fromMe: true }),
  );
  await plain.handleUpdate(inbound("again", { id: "P2" }));
  await handoff.handleUpdate(inbound("an agent here", { id: "AG1", fromMe: true }));
  deepStrictEqual(paused, ["AG1"]);
  strictEqual(events.listenerCount("MessageSent"), 1);
});
