// Actions are bound to their own context's message: in a dialogue, the context that entered it still quotes,
// reacts to and marks read its own message after later waits, with the keys of the update being handled.
import { deepStrictEqual } from "node:assert/strict";
import {
  type Context,
  type Conversation,
  type ConversationFlavor,
  createConversation,
} from "../../src/bot/mod.ts";
import { ANA, inbound, INSTANCE, stubBot } from "../helpers/bot.ts";

type C = Context & ConversationFlavor;

Deno.test("binding: after a later wait, ctx1.react, ctx1.reply(quote) and ctx1.markRead act on ctx1's message", async () => {
  const { bot, stub } = stubBot<C>();
  const ids: string[] = [];
  async function dialogue(conversation: Conversation<C>, ctx1: C) {
    await ctx1.reply("Your name?");
    const ctx2 = await conversation.waitFor("message:text");
    await ctx1.react("👍");
    await ctx1.reply("About your first message", { quote: true });
    await ctx1.markRead();
    await ctx2.reply("And this one", { quote: true });
    ids.push(ctx1.msg!.id, ctx2.msg!.id);
  }
  bot.use(createConversation(dialogue, "ask"));
  bot.command("start", (ctx) => ctx.conversation.enter("ask"));
  await bot.handleUpdate(inbound("/start", { id: "M1" }));
  await bot.handleUpdate(inbound("Ana", { id: "M2" }));
  deepStrictEqual(ids, ["M1", "M2"]);
  const key = (id: string) => ({ remoteJid: ANA, id, fromMe: false });
  deepStrictEqual(stub.requests.map((r) => [r.path, r.idempotencyKey]), [
    [`/message/sendText/${INSTANCE}`, "bot:sales:M1:0"],
    [`/message/sendReaction/${INSTANCE}`, "bot:sales:M2:react:0"],
    [`/message/sendText/${INSTANCE}`, "bot:sales:M2:0"],
    [`/chat/markMessageAsRead/${INSTANCE}`, null],
    [`/message/sendText/${INSTANCE}`, "bot:sales:M2:1"],
  ]);
  const [, reaction, aboutFirst, read, aboutSecond] = stub.requests;
  deepStrictEqual(reaction.body.key, key("M1"));
  deepStrictEqual(aboutFirst.body.quoted, { key: key("M1"), message: { conversation: "/start" } });
  deepStrictEqual(read.body, { readMessages: [key("M1")] });
  deepStrictEqual(aboutSecond.body.quoted, { key: key("M2"), message: { conversation: "Ana" } });
});

Deno.test("binding: the new actions are logged by a dialogue, so a replay never sends them again", async () => {
  const { bot, stub } = stubBot<C>();
  async function dialogue(conversation: Conversation<C>, ctx: C) {
    await ctx.replyWithLocation(-23.5614, -46.6559, { name: "Shop" });
    await ctx.replyWithPoll("Lunch?", ["Pizza", "Sushi"]);
    const answer = await conversation.waitFor("message:text");
    await answer.replyWithContact({ fullName: "Support", phoneNumber: "+55 11 98888-7777" });
    await conversation.waitFor("message:text");
  }
  bot.use(createConversation(dialogue, "shop"));
  bot.command("shop", (ctx) => ctx.conversation.enter("shop"));
  await bot.handleUpdate(inbound("/shop", { id: "S1" }));
  await bot.handleUpdate(inbound("ok", { id: "S2" }));
  await bot.handleUpdate(inbound("bye", { id: "S3" })); // replays the whole log: nothing is sent again
  deepStrictEqual(stub.requests.map((r) => r.path), [
    `/message/sendLocation/${INSTANCE}`,
    `/message/sendPoll/${INSTANCE}`,
    `/message/sendContact/${INSTANCE}`,
  ]);
});
