// Every context action, for every kind of message a person sends, goes one guarded way: keyed, paced, noted
// as the bot's own, about the context's own message. No `ctx.api` needed for any of them.
import { deepStrictEqual, strictEqual } from "node:assert/strict";
import { MemoryStore } from "../../src/backends/memory/store.ts";
import { Bot } from "../../src/bot/mod.ts";
import { BotHarness } from "../../src/testing/mod.ts";
import { ANA, fakeTime, inbound, INSTANCE, stubBot } from "../helpers/bot.ts";

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

/** One message of each kind a person sends, as Baileys writes it. */
const KINDS: readonly [string, Record<string, unknown>][] = [
  ["text", { conversation: "hi" }],
  ["image", { imageMessage: { mimetype: "image/jpeg", caption: "look" } }],
  ["audio", { audioMessage: { mimetype: "audio/ogg", ptt: true, seconds: 3 } }],
  ["document", { documentMessage: { mimetype: "application/pdf", fileName: "a.pdf" } }],
  ["sticker", { stickerMessage: { mimetype: "image/webp" } }],
  ["location", { locationMessage: { degreesLatitude: -23.5, degreesLongitude: -46.6 } }],
  ["contact", { contactMessage: { displayName: "Bia", vcard: "BEGIN:VCARD" } }],
  ["button", { buttonsResponseMessage: { selectedButtonId: "yes", selectedDisplayText: "Yes" } }],
  ["list", { listResponseMessage: { title: "Pizza", singleSelectReply: { selectedRowId: "pizza" } } }],
  ["poll", { pollCreationMessage: { name: "Lunch?", options: [{ optionName: "A" }, { optionName: "B" }] } }],
  ["reaction", { reactionMessage: { text: "❤️", key: { id: "OLD1" } } }],
];

for (const [kind, message] of KINDS) {
  Deno.test(`kinds (${kind}): reply with a quote, react and markRead are about this message, keyed`, async () => {
    const { bot, stub } = stubBot();
    bot.on("message", async (ctx) => {
      await ctx.reply("ok", { quote: true });
      await ctx.react("👍");
      await ctx.markRead();
    });
    await bot.handleUpdate(inbound(message, { id: `K-${kind}` }));
    const key = { remoteJid: ANA, id: `K-${kind}`, fromMe: false };
    deepStrictEqual(stub.requests.map((r) => [r.path, r.idempotencyKey]), [
      [`/message/sendText/${INSTANCE}`, `bot:sales:K-${kind}:0`],
      [`/message/sendReaction/${INSTANCE}`, `bot:sales:K-${kind}:react:0`],
      [`/chat/markMessageAsRead/${INSTANCE}`, null],
    ]);
    const [reply, reaction, read] = stub.requests;
    deepStrictEqual(reply.body.quoted.key, key);
    deepStrictEqual(reaction.body.key, key);
    deepStrictEqual(read.body.readMessages, [key]);
  });
}

Deno.test("kinds: every reply action sends its kind to the chat, quoted, with the update's next key", async () => {
  const { bot, stub } = stubBot();
  bot.on("message:text", async (ctx) => {
    const q = { quote: true } as const;
    await ctx.reply("text", q);
    await ctx.replyWithMedia(PNG, { type: "image", caption: "pic", ...q });
    await ctx.replyWithMedia("https://example.com/a.ogg", { type: "audio", ...q });
    await ctx.replyWithMedia("https://example.com/a.pdf", { type: "document", fileName: "a.pdf", ...q });
    await ctx.replyWithMedia("https://example.com/s.webp", { type: "sticker", ...q });
    await ctx.replyWithLocation(-23.5614, -46.6559, { name: "Shop", address: "Av. Paulista, 1000", ...q });
    await ctx.replyWithContact({ fullName: "Support", phoneNumber: "+55 11 98888-7777" }, q);
    await ctx.replyWithPoll("Lunch?", ["Pizza", "Sushi"], { selectableCount: 1, ...q });
    await ctx.replyWithList({
      title: "Menu",
      footerText: "Thanks",
      buttonText: "Open",
      sections: [{ title: "Food", rows: [{ title: "Pizza", rowId: "pizza" }] }],
    }, q);
    await ctx.replyWithButtons({
      title: "Sure?",
      buttons: [{ type: "reply", displayText: "Yes", id: "yes" }],
    }, q);
  });
  await bot.handleUpdate(inbound("go", { id: "ALL1" }));
  deepStrictEqual(stub.requests.map((r) => r.path.split("/")[2]), [
    "sendText",
    "sendMedia",
    "sendWhatsAppAudio",
    "sendMedia",
    "sendSticker",
    "sendLocation",
    "sendContact",
    "sendPoll",
    "sendList",
    "sendButtons",
  ]);
  deepStrictEqual(
    stub.requests.map((r) => r.idempotencyKey),
    stub.requests.map((_, k) => `bot:sales:ALL1:${k}`),
  );
  for (const request of stub.requests) {
    strictEqual(request.body.number, ANA);
    deepStrictEqual(request.body.quoted.key, { remoteJid: ANA, id: "ALL1", fromMe: false });
  }
  const [, image, , , , location, contact, poll] = stub.requests;
  deepStrictEqual([image.body.mediatype, image.body.caption, image.body.mimetype], [
    "image",
    "pic",
    "image/png",
  ]);
  deepStrictEqual([location.body.latitude, location.body.name, location.body.address], [
    -23.5614,
    "Shop",
    "Av. Paulista, 1000",
  ]);
  strictEqual(contact.body.contact[0].fullName, "Support");
  deepStrictEqual([poll.body.name, poll.body.values, poll.body.selectableCount], ["Lunch?", [
    "Pizza",
    "Sushi",
  ], 1]);
});

Deno.test("kinds: every reply action waits for the chat's gap, and its sent id is the bot's own", async () => {
  const time = fakeTime();
  const store = new MemoryStore({ now: time.now });
  const { bot, stub } = stubBot({ store, now: time.now, sleep: time.sleep, pacing: {} });
  const seen: string[] = [];
  bot.on("outgoing", (ctx) => void seen.push(ctx.msg.id));
  bot.on("message:text", async (ctx) => {
    await ctx.replyWithLocation(1, 2);
    await ctx.replyWithPoll("Q?", ["A", "B"]);
    await ctx.replyWithContact([{ fullName: "A", phoneNumber: "5511988887777" }]);
  });
  await bot.handleUpdate(inbound("go", { id: "G1" }));
  deepStrictEqual(time.waits, [1000, 1000]); // one message per chat per second
  for (const id of ["BOT1", "BOT2", "BOT3"]) {
    await bot.handleUpdate(inbound("echo", { id, fromMe: true }));
  }
  await bot.handleUpdate(inbound("typed on the phone", { id: "PHONE1", fromMe: true }));
  deepStrictEqual(seen, ["PHONE1"]);
  strictEqual(stub.requests.length, 3);
});

Deno.test("kinds: replies started together (Promise.all) still keep the chat's gap, and go out in call order", async () => {
  const time = fakeTime();
  const store = new MemoryStore({ now: time.now });
  const { bot, stub } = stubBot({ store, now: time.now, sleep: time.sleep, pacing: {} });
  bot.on("message:text", async (ctx) => {
    await Promise.all([
      ctx.reply("first"),
      ctx.replyWithLocation(1, 2),
      ctx.react("👍"),
    ]);
  });
  await bot.handleUpdate(inbound("go", { id: "PA1" }));
  deepStrictEqual(time.waits, [1000, 1000]);
  deepStrictEqual(stub.requests.map((r) => r.path.split("/")[2]), [
    "sendText",
    "sendLocation",
    "sendReaction",
  ]);
});

Deno.test("kinds: a bot tested with BotHarness gets every reply kind recorded, with the default pacing", async () => {
  const bot = new Bot({ store: new MemoryStore() });
  bot.on("message:text", async (ctx) => {
    await ctx.replyWithLocation(-23.5614, -46.6559, { name: "Shop", quote: true });
    await ctx.replyWithContact({ fullName: "Support", phoneNumber: "5511988887777" });
    await ctx.replyWithPoll("Lunch?", ["Pizza", "Sushi"]);
    await ctx.replyWithList({
      title: "Menu",
      footerText: "Thanks",
      buttonText: "Open",
      sections: [{ title: "Food", rows: [{ title: "Pizza", rowId: "pizza" }] }],
    });
    await ctx.replyWithButtons({
      title: "Sure?",
      buttons: [{ type: "reply", displayText: "Yes", id: "yes" }],
    });
    await ctx.replyWithMedia("https://example.com/a.ogg", { type: "audio" });
    await ctx.react("👍");
  });
  await using h = new BotHarness(bot);
  const ana = h.user("5511999999999");
  await ana.send("hi");
  deepStrictEqual(ana.replies.map((r) => [r.operation, r.text ?? null]), [
    ["sendLocation", "Shop"],
    ["sendContact", null],
    ["sendPoll", "Lunch?"],
    ["sendList", "Menu"],
    ["sendButtons", "Sure?"],
    ["sendWhatsAppAudio", null],
    ["sendReaction", "👍"],
  ]);
});
