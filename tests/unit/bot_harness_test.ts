// BotHarness: a bot tested as a conversation with simulated people, on the simulator, without a network.
import { deepStrictEqual, rejects, strictEqual, throws } from "node:assert/strict";
import { MemoryStore } from "../../mod.ts";
import { Bot } from "../../src/bot/mod.ts";
import { ConfigurationException } from "../../src/errors.ts";
import { BotHarness } from "../../src/testing/mod.ts";

const ANA = "5511999999999";
const BIA = "5511988888888";

Deno.test("harness: a user's text reaches the bot, the reply is listed for that user only", async () => {
  const bot = new Bot();
  bot.on("message:text", (ctx) => ctx.reply(`Hello, ${ctx.from.name}: ${ctx.text}`));
  await using h = new BotHarness(bot);
  const ana = h.user(ANA, { name: "Ana" });
  const bia = h.user(BIA, { name: "Bia" });
  await ana.send("hi");
  strictEqual(ana.replies.at(-1)?.text, "Hello, Ana: hi");
  strictEqual(ana.replies.length, 1);
  strictEqual(bia.replies.length, 0);
  strictEqual(ana.replies[0].remoteJid, `${ANA}@s.whatsapp.net`);
  strictEqual(ana.replies[0].operation, "sendText");
});

Deno.test("harness: the webhook is the server's envelope and message shape", async () => {
  const bot = new Bot();
  await using h = new BotHarness(bot, { instance: "sales", number: "5511988887777" });
  const body = await h.user(ANA, { name: "Ana" }).send("hi");
  strictEqual(body.event, "messages.upsert");
  strictEqual(body.instance, "sales");
  strictEqual(body.sender, "5511988887777@s.whatsapp.net");
  strictEqual(body.apikey, null);
  const data = body.data as Record<string, Record<string, unknown>>;
  deepStrictEqual(Object.keys(data).sort(), [
    "contextInfo",
    "instanceId",
    "key",
    "message",
    "messageTimestamp",
    "messageType",
    "pushName",
    "source",
    "status",
  ]);
  deepStrictEqual(data.message, { conversation: "hi" });
  strictEqual(data.key.fromMe, false);
  strictEqual(data.key.remoteJid, `${ANA}@s.whatsapp.net`);
  strictEqual(h.simulator.events.at(-1)?.event, "messages.upsert"); // the simulator stored and emitted it
});

Deno.test("harness: an image with its caption", async () => {
  const bot = new Bot();
  bot.on(
    "message:image",
    (ctx) => ctx.reply(`${ctx.msg.media.mimetype}: ${ctx.msg.caption ?? "no caption"}`),
  );
  await using h = new BotHarness(bot);
  const ana = h.user(ANA);
  await ana.sendImage({ caption: "my cat" });
  await ana.sendImage({ mimetype: "image/png" });
  deepStrictEqual(ana.replies.map((r) => r.text), ["image/jpeg: my cat", "image/png: no caption"]);
});

Deno.test("harness: a reaction to one of the bot's replies, and its removal", async () => {
  const bot = new Bot();
  bot.hears("menu", (ctx) => ctx.reply("1 pizza, 2 pasta"));
  bot.on(
    "message:reaction",
    (ctx) =>
      ctx.reply(
        ctx.msg.reaction === ""
          ? `removed from ${ctx.msg.reactionTo}`
          : `${ctx.msg.reaction} on ${ctx.msg.reactionTo}`,
      ),
  );
  await using h = new BotHarness(bot);
  const ana = h.user(ANA);
  await ana.send("menu");
  const menu = ana.replies[0];
  const id = (menu.message.key as { id: string }).id;
  await ana.react(menu, "👍");
  await ana.react(menu, "");
  deepStrictEqual(ana.replies.slice(1).map((r) => r.text), [`👍 on ${id}`, `removed from ${id}`]);
});

Deno.test("harness: a button tap and a list row choice carry their ids", async () => {
  const bot = new Bot();
  bot.on("message:button", (ctx) => ctx.reply(`button ${ctx.msg.buttonId} (${ctx.text})`));
  bot.on("message:list", (ctx) => ctx.reply(`row ${ctx.msg.rowId} (${ctx.text})`));
  await using h = new BotHarness(bot);
  const ana = h.user(ANA);
  await ana.clickButton("yes", { text: "Yes, please" });
  await ana.chooseRow("pizza-2", { title: "Margherita" });
  deepStrictEqual(ana.replies.map((r) => r.text), ["button yes (Yes, please)", "row pizza-2 (Margherita)"]);
});

Deno.test("harness: a group: a member writes, a member joins; the replies go to the group", async () => {
  const bot = new Bot();
  bot.on("message:text", (ctx) => ctx.reply(`${ctx.from.name} in ${ctx.chat.isGroup ? "group" : "private"}`));
  bot.on("group:join", (ctx) => ctx.reply(`welcome ${ctx.group.participants.join(",")}`));
  await using h = new BotHarness(bot);
  const ana = h.user(ANA, { name: "Ana" });
  const bia = h.user(BIA, { name: "Bia" });
  const team = await h.group("Team", [ana]);
  await team.send(ana, "hi all");
  await team.join(bia);
  deepStrictEqual(team.replies.map((r) => r.text), ["Ana in group", `welcome ${BIA}@s.whatsapp.net`]);
  strictEqual(ana.replies.length, 0);
});

Deno.test("harness: a redelivered webhook runs the bot once", async () => {
  const bot = new Bot();
  let runs = 0;
  bot.on("message:text", (ctx) => {
    runs++;
    return ctx.reply("once");
  });
  await using h = new BotHarness(bot);
  const ana = h.user(ANA);
  const first = await ana.send("hi");
  await h.redeliver();
  await h.redeliver(first);
  strictEqual(runs, 1);
  strictEqual(ana.replies.length, 1);
  strictEqual(h.updates.length, 1);
});

Deno.test("harness: a handler that throws after replying, retried by redelivery, does not reply twice", async () => {
  const bot = new Bot();
  let runs = 0;
  bot.on("message:text", async (ctx) => {
    runs++;
    await ctx.reply("working on it");
    if (runs === 1) throw new Error("database down");
    await ctx.reply("done");
  });
  await using h = new BotHarness(bot);
  const ana = h.user(ANA);
  await rejects(ana.send("order"), /database down/);
  await h.redeliver();
  strictEqual(runs, 2);
  deepStrictEqual(ana.replies.map((r) => r.text), ["working on it", "done"]);
});

Deno.test("harness: restart gives a new bot on the same store; bot.catch is kept", async () => {
  const store = new MemoryStore();
  const bot = new Bot({ store });
  const caught: string[] = [];
  bot.hears("boom", () => {
    throw new Error("boom");
  });
  bot.catch((error) => {
    caught.push(String((error.error as Error).message));
  });
  await using h = new BotHarness(bot);
  const before = h.bot;
  const after = h.restart();
  strictEqual(after !== before, true);
  strictEqual(h.bot, after);
  strictEqual(h.bot.store, store);
  await h.user(ANA).send("boom");
  deepStrictEqual(caught, ["boom"]);
});

Deno.test("harness: a user writing as an @lid is one chat with their phone number", async () => {
  const bot = new Bot();
  bot.on("message:text", (ctx) => ctx.reply(`chat ${ctx.chat.id}`));
  await using h = new BotHarness(bot);
  const ana = h.user(ANA, { lid: "123456789012345" });
  await ana.send("hi");
  strictEqual(ana.lid, "123456789012345@lid");
  deepStrictEqual(ana.replies.map((r) => r.text), [`chat ${ANA}@s.whatsapp.net`]);
});

Deno.test("harness: deliver sends any event the server sends", async () => {
  const bot = new Bot();
  const states: string[] = [];
  bot.on("connection", (ctx) => {
    states.push(ctx.connection.state);
  });
  await using h = new BotHarness(bot);
  await h.deliver("connection.update", { instance: "bot", state: "close", statusReason: 401 });
  deepStrictEqual(states, ["close"]);
  strictEqual(h.lastUpdate?.event, "connection.update");
});

Deno.test("harness: an unknown option is refused with a suggestion", () => {
  throws(
    () => new BotHarness(new Bot(), { instanse: "x" } as never),
    (error: Error) =>
      error instanceof ConfigurationException &&
      error.message === 'new BotHarness: "instanse" is not an option; did you mean "instance"?',
  );
});

// docs/bot.md "Testing a bot": the injected clock (`Date.UTC(2027, ...)`) reaches every collaborator, so the
// service's duplicate-send records live on the same clock as the store that keeps them.
Deno.test("harness: with the docs' injected clock, a retried update's reply is not sent twice", async () => {
  let now = Date.UTC(2027, 0, 1);
  const clock = () => now;
  const bot = new Bot({ store: new MemoryStore({ now: clock }), now: clock });
  let runs = 0;
  bot.on("message:text", async (ctx) => {
    await ctx.reply("working on it");
    if (++runs === 1) throw new Error("crash after the reply");
  });
  await using h = new BotHarness(bot);
  const ana = h.user(ANA);
  await rejects(ana.send("hi"), /crash after the reply/);
  now += 60_000;
  await h.redeliver();
  strictEqual(runs, 2);
  deepStrictEqual(ana.replies.map((r) => r.text), ["working on it"]);
  strictEqual(h.sent.length, 1);
});

Deno.test("harness: GatewayFake.create gives the service the clock it is given", async () => {
  const { GatewayFake } = await import("../../src/testing/mod.ts");
  const now = Date.UTC(2027, 0, 1);
  const store = new MemoryStore({ now: () => now });
  const { service, fake } = GatewayFake.create({ config: { store }, now: () => now });
  try {
    const first = await service.messages().text(ANA, "once", { idempotencyKey: "k1" });
    const second = await service.messages().text(ANA, "once", { idempotencyKey: "k1" });
    strictEqual(first.replayed, false);
    strictEqual(second.replayed, true);
    fake.assertMessageCount(1);
  } finally {
    await fake.close();
  }
});

// Issue 28 §5: a bot shared by several tests (built once, without a store) starts each harness afresh.
Deno.test("harness: each harness of a shared bot without a store gets a fresh store", async () => {
  const bot = new Bot();
  const seen = new Map<string, number>();
  bot.on("message:text", async (ctx) => {
    const entry = await ctx.state.get<number>("hello", ctx.chat.id);
    const count = (entry?.value ?? 0) + 1;
    await ctx.state.set("hello", ctx.chat.id, count);
    seen.set(ctx.chat.id, count);
    await ctx.reply(`hello (#${count})`);
  });
  for (let test = 0; test < 2; test++) {
    await using h = new BotHarness(bot);
    const ana = h.user(ANA);
    await ana.send("hi");
    deepStrictEqual(ana.replies.map((r) => r.text), ["hello (#1)"]);
    strictEqual(h.bot.store !== bot.store, true);
  }
});

Deno.test("harness: the store given to the harness, else the bot's own, is the one it uses", async () => {
  const own = new MemoryStore();
  const given = new MemoryStore();
  await using a = new BotHarness(new Bot({ store: own }));
  strictEqual(a.bot.store, own);
  await using b = new BotHarness(new Bot({ store: own }), { store: given });
  strictEqual(b.bot.store, given);
  strictEqual(b.restart().store, given);
});
