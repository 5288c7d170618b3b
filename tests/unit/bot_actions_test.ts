// Context actions: bound to the instance and chat, idempotent per inbound message and position, paced.
import { deepStrictEqual, ok, rejects, strictEqual } from "node:assert/strict";
import { MemoryStore } from "../../src/backends/memory/store.ts";
import { ConfigurationException } from "../../src/errors.ts";
import { Bot } from "../../src/bot/mod.ts";
import {
  ANA,
  fakeTime,
  GatewayStub,
  inbound,
  INSTANCE,
  sharedLikeStore,
  stubBot,
  stubService,
} from "../helpers/bot.ts";

const PNG = new Uint8Array([
  0x89,
  0x50,
  0x4e,
  0x47,
  0x0d,
  0x0a,
  0x1a,
  0x0a,
  0,
  0,
  0,
  0x0d,
  0x49,
  0x48,
  0x44,
  0x52,
]);

Deno.test("reply (quoted), replyWithMedia, react, markRead and typing go to the instance and chat", async () => {
  const { bot, stub } = stubBot();
  bot.on("message:text", async (ctx) => {
    await ctx.reply("plain");
    await ctx.reply("quoted", { quote: true });
    await ctx.replyWithMedia(PNG, { type: "image", caption: "pic" });
    await ctx.react("👍");
    await ctx.markRead();
    await ctx.typing(1200);
  });
  await bot.handleUpdate(inbound("hello", { id: "A1" }));
  deepStrictEqual(stub.requests.map((r) => r.path), [
    `/message/sendText/${INSTANCE}`,
    `/message/sendText/${INSTANCE}`,
    `/message/sendMedia/${INSTANCE}`,
    `/message/sendReaction/${INSTANCE}`,
    `/chat/markMessageAsRead/${INSTANCE}`,
    `/chat/sendPresence/${INSTANCE}`,
  ]);
  const [plain, quoted, media, reaction, read, presence] = stub.requests;
  deepStrictEqual([plain.body.number, plain.body.text, plain.body.quoted], [ANA, "plain", undefined]);
  deepStrictEqual(quoted.body.quoted, {
    key: { remoteJid: ANA, id: "A1", fromMe: false },
    message: { conversation: "hello" },
  });
  deepStrictEqual([media.body.mediatype, media.body.caption, media.body.mimetype], [
    "image",
    "pic",
    "image/png",
  ]);
  deepStrictEqual(reaction.body, { key: { remoteJid: ANA, id: "A1", fromMe: false }, reaction: "👍" });
  deepStrictEqual(read.body, { readMessages: [{ remoteJid: ANA, id: "A1", fromMe: false }] });
  deepStrictEqual(presence.body, { number: ANA, presence: "composing", delay: 1200 });
  // Sends carry a key made of the inbound message id and the action's position (reactions counted apart).
  deepStrictEqual(stub.requests.slice(0, 4).map((r) => r.idempotencyKey), [
    "bot:sales:A1:0",
    "bot:sales:A1:1",
    "bot:sales:A1:2",
    "bot:sales:A1:react:0",
  ]);
});

Deno.test("a re-run after a throw that followed a reply sends nothing again", async () => {
  const { bot, stub } = stubBot();
  let runs = 0;
  const replayed: boolean[] = [];
  bot.on("message:text", async (ctx) => {
    runs++;
    const res = await ctx.reply(`echo ${ctx.text}`);
    replayed.push(res.replayed);
    if (runs === 1) throw new Error("crashed after replying");
    await ctx.reply("second step");
  });
  const update = inbound("once", { id: "R1" });
  await rejects(bot.handleUpdate(update), /crashed after replying/);
  await bot.handleUpdate(update); // the server's retry: the claim was given back
  await bot.handleUpdate(update); // a redelivery after success: nothing runs
  strictEqual(runs, 2);
  deepStrictEqual(replayed, [false, true]);
  deepStrictEqual(stub.texts(), ["echo once", "second step"]);
});

Deno.test("replies wait for the chat's gap (the pacer), with the bot's clock and sleep", async () => {
  let clock = 1_000_000;
  const waits: number[] = [];
  const now = () => clock;
  const { bot, stub } = stubBot({
    store: new MemoryStore({ now }),
    now,
    sleep: (ms, signal) => {
      // The chat's turn renews itself on sleeps with a signal: they last until the turn ends.
      if (signal !== undefined) {
        return new Promise((_, reject) => signal.addEventListener("abort", () => reject(signal.reason)));
      }
      waits.push(ms);
      clock += ms;
      return Promise.resolve();
    },
    pacing: { recipientIntervalMs: 1500 },
  });
  bot.on("message:text", async (ctx) => {
    await ctx.reply("one");
    clock += 200;
    await ctx.reply("two");
  });
  await bot.handleUpdate(inbound("go", { id: "P1" }));
  deepStrictEqual(stub.texts(), ["one", "two"]);
  deepStrictEqual(waits, [1300]);
});

Deno.test("replies with an instance-wide gap wait for it across chats; per-chat pacing keeps one entry per chat", async () => {
  const time = fakeTime();
  const { now, sleep, waits } = time;
  const store = new MemoryStore({ now });
  const { bot, stub } = stubBot({ store, now, sleep, pacing: { minGapMs: 1000, recipientIntervalMs: 0 } });
  bot.on("message:text", (ctx) => ctx.reply(`to ${ctx.text}`));
  await bot.handleUpdate(inbound("ana", { id: "G1" }));
  time.clock += 300;
  await bot.handleUpdate(inbound("bia", { id: "G2", from: "5511988887777@s.whatsapp.net" }));
  deepStrictEqual(stub.texts(), ["to ana", "to bia"]);
  deepStrictEqual(waits, [700]); // the instance's gap, though the chats differ
  strictEqual((await store.state.list("pacing")).length, 1); // the instance's record

  // The default (one reply per chat per second) on a shared store keeps no instance record: only each
  // chat's last reply, which the bot's other processes read.
  const shared = sharedLikeStore(now);
  const second = stubBot({ store: shared, now, sleep, pacing: {} }).bot;
  second.on("message:text", (ctx) => ctx.reply("ok"));
  await second.handleUpdate(inbound("ana", { id: "G3" }));
  deepStrictEqual(await shared.state.list("pacing"), []);
  deepStrictEqual((await shared.state.list("pacing-recipient")).map((e) => e.value), [time.clock]);
  const other = stubBot({ store: shared, now, sleep, pacing: {} }).bot; // another process
  other.on("message:text", (ctx) => ctx.reply("ok"));
  time.clock += 400;
  waits.length = 0;
  await other.handleUpdate(inbound("again", { id: "G4" }));
  deepStrictEqual(waits, [600]);
});

Deno.test("on a memory store the chat's gap is kept in memory, shared by a restarted bot and bots on the store", async () => {
  const time = fakeTime();
  const { now, sleep, waits } = time;
  const store = new MemoryStore({ now });
  const { bot, stub } = stubBot({ store, now, sleep, pacing: {} });
  bot.on("message:text", (ctx) => ctx.reply(`re: ${ctx.text}`));
  await bot.handleUpdate(inbound("one", { id: "L1" }));
  time.clock += 250;
  await bot.restart().handleUpdate(inbound("two", { id: "L2" }));
  time.clock += 100;
  const neighbour = stubBot({ store, now, sleep, pacing: {} }).bot;
  neighbour.on("message:text", (ctx) => ctx.reply(`re: ${ctx.text}`));
  await neighbour.handleUpdate(inbound("three", { id: "L3" }));
  await bot.handleUpdate(inbound("other chat", { id: "L4", from: "5511988887777@s.whatsapp.net" }));
  time.clock += 5000;
  await bot.handleUpdate(inbound("much later", { id: "L5" }));
  deepStrictEqual(waits, [750, 900]); // one reply per chat per second; another chat or a second later: none
  deepStrictEqual(stub.texts(), ["re: one", "re: two", "re: other chat", "re: much later"]);
  deepStrictEqual(await store.state.list("pacing-recipient"), []); // nothing in the store
});

Deno.test("ctx.api is the service bound to the update's instance", async () => {
  const { bot, stub } = stubBot();
  bot.on("message", async (ctx) => {
    await ctx.api.messages().text(ctx.chat.id, "direct");
  });
  await bot.handleUpdate({ ...inbound("x", { id: "I1" }), instance: "support" });
  deepStrictEqual(stub.requests.map((r) => r.path), ["/message/sendText/support"]);
});

Deno.test("actions on an update without a chat or message throw a clear TypeError", async () => {
  const { bot } = stubBot();
  const errors: string[] = [];
  bot.on("connection", async (ctx) => {
    await ctx.reply("hi").catch((e: Error) => errors.push(`${e.name}: ${e.message}`));
  });
  await bot.handleUpdate({ event: "connection.update", instance: INSTANCE, data: { state: "open" } });
  deepStrictEqual(errors, ["TypeError: Cannot reply: this update (connection.update) has no chat"]);
});

Deno.test("quote on an update without a message is refused, not dropped", async () => {
  const { bot, stub } = stubBot();
  const errors: string[] = [];
  bot.on("group:join", async (ctx) => {
    await ctx.reply("Welcome", { quote: true }).catch((e: Error) => errors.push(`${e.name}: ${e.message}`));
  });
  await bot.handleUpdate({
    event: "group-participants.update",
    instance: INSTANCE,
    date_time: "2026-11-28T03:00:00.000Z",
    data: { id: "120363000000000000@g.us", action: "add", participants: [ANA] },
  });
  deepStrictEqual(errors, [
    "TypeError: Cannot quote: this update (group-participants.update) has no message",
  ]);
  deepStrictEqual(stub.requests, []);
});

Deno.test("without a service, the first action builds one from GATEWAY_API_URL / GATEWAY_API_KEY", async () => {
  const bot = new Bot({ signature: { scheme: "none" }, store: new MemoryStore(), pacing: false });
  const seen: unknown[] = [];
  bot.on("message", (ctx) => {
    try {
      void ctx.api;
    } catch (error) {
      seen.push(error);
    }
  });
  const saved = [Deno.env.get("GATEWAY_API_URL"), Deno.env.get("GATEWAY_API_KEY")];
  Deno.env.delete("GATEWAY_API_URL");
  Deno.env.delete("GATEWAY_API_KEY");
  try {
    await bot.handleUpdate(inbound("x", { id: "S1" }));
  } finally {
    if (saved[0] !== undefined) Deno.env.set("GATEWAY_API_URL", saved[0]);
    if (saved[1] !== undefined) Deno.env.set("GATEWAY_API_KEY", saved[1]);
  }
  strictEqual(seen.length, 1);
  ok(seen[0] instanceof ConfigurationException);
  strictEqual(
    (seen[0] as Error).message,
    "Cannot build the bot's service: GATEWAY_API_URL and GATEWAY_API_KEY must be set (or pass `service`)",
  );
});

Deno.test("with an outgoing query, the bot's own replies are remembered in the store", async () => {
  const store = new MemoryStore();
  const stub = new GatewayStub();
  const bot = new Bot({
    signature: { scheme: "none" },
    store,
    pacing: false,
    service: stubService(stub, store),
  });
  bot.on("message:text", (ctx) => ctx.reply("ok"));
  bot.on("outgoing", () => {}); // only then must the bot tell its own messages from others
  await bot.handleUpdate(inbound("x", { id: "M1" }));
  ok((await store.state.get("bot_sent", `${INSTANCE}/BOT1`)) !== null);
});

Deno.test("replies go through the breaker: after the server reports a logout, a reply is refused unsent", async () => {
  const { bot, stub } = stubBot();
  const errors: string[] = [];
  bot.on("message:text", async (ctx) => {
    await ctx.reply("hello").catch((e: Error) => errors.push(e.constructor.name));
  });
  await bot.handleUpdate(inbound("before", { id: "BR1" }));
  // The server says the instance was logged out (the processor records it in the shared health).
  await bot.handleUpdate({
    event: "connection.update",
    instance: INSTANCE,
    data: { instance: INSTANCE, state: "close", statusReason: 401 },
  });
  await bot.handleUpdate(inbound("after", { id: "BR2" }));
  deepStrictEqual(stub.texts(), ["hello"]);
  deepStrictEqual(errors, ["InstanceDisconnectedException"]);
});
