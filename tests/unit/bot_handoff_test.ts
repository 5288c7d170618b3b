// The human handoff of docs/bot.md ("## Human handoff"), run through the harness: /human pauses the chat,
// the bot keeps quiet while a person answers, the agents' number resumes it (or the pause ends by itself).
import { deepStrictEqual, strictEqual } from "node:assert/strict";
import { MemoryStore } from "../../mod.ts";
import { Bot } from "../../src/bot/mod.ts";
import { BotHarness } from "../../src/testing/mod.ts";

const AGENTS = "5511988887777";
const CUSTOMER = "5511999999999";

// The example of docs/bot.md, with the clock and store a test moves.
function handoffBot(clock: () => number): Bot {
  const bot = new Bot({ store: new MemoryStore({ now: clock }), now: clock });
  bot.filter((ctx) => ctx.from?.phone === AGENTS).command("resume", async (ctx) => {
    const resumed = await bot.resume(ctx.match);
    await ctx.reply(resumed ? `The bot answers ${ctx.match} again.` : `${ctx.match} was not paused.`);
  });
  bot.command("human", async (ctx) => {
    await ctx.reply("A person will answer you here shortly.");
    await bot.pause(ctx.chat.id, { untilMs: ctx.now() + 30 * 60_000 });
  });
  bot.on("message:text", (ctx) => ctx.reply(`Bot: "${ctx.text}". Send /human to talk to a person.`));
  return bot;
}

Deno.test("handoff: /human pauses the chat, the agents' /resume gives it back to the bot", async () => {
  let now = 1_800_000_000_000;
  await using h = new BotHarness(handoffBot(() => now));
  const customer = h.user(CUSTOMER, { name: "Ana" });
  const agents = h.user(AGENTS, { name: "Support" });
  await customer.send("hi");
  await customer.send("/human");
  strictEqual(await h.bot.isPaused(CUSTOMER), true);
  await customer.send("hello? anyone?");
  h.restart(); // the pause is in the store: a restarted bot keeps quiet too
  await customer.send("still there?");
  now += 5 * 60_000;
  await agents.send(`/resume ${CUSTOMER}`);
  await customer.send("back again");
  await agents.send(`/resume ${CUSTOMER}`);
  deepStrictEqual(customer.replies.map((r) => r.text), [
    'Bot: "hi". Send /human to talk to a person.',
    "A person will answer you here shortly.",
    'Bot: "back again". Send /human to talk to a person.',
  ]);
  deepStrictEqual(agents.replies.map((r) => r.text), [
    `The bot answers ${CUSTOMER} again.`,
    `${CUSTOMER} was not paused.`,
  ]);
});

Deno.test("handoff: the pause ends by itself after 30 minutes on the bot's clock", async () => {
  let now = 1_800_000_000_000;
  await using h = new BotHarness(handoffBot(() => now));
  const customer = h.user(CUSTOMER);
  await customer.send("/human");
  now += 30 * 60_000 - 1;
  await customer.send("hello?");
  now += 1;
  await customer.send("hello??");
  deepStrictEqual(customer.replies.map((r) => r.text), [
    "A person will answer you here shortly.",
    'Bot: "hello??". Send /human to talk to a person.',
  ]);
});

Deno.test("handoff: a customer who is not the agents' number cannot resume", async () => {
  const now = 1_800_000_000_000;
  await using h = new BotHarness(handoffBot(() => now));
  const customer = h.user(CUSTOMER);
  await customer.send("/human");
  await customer.send(`/resume ${CUSTOMER}`);
  strictEqual(await h.bot.isPaused(CUSTOMER), true);
  strictEqual(customer.replies.length, 1);
});

Deno.test("handoff: isPaused and pause refuse an empty chat id with a rejection, not a throw", async () => {
  const bot = new Bot({ store: new MemoryStore() });
  const asked = bot.isPaused(" ");
  strictEqual(asked instanceof Promise, true);
  const refusal = await asked.then(() => null, (error: Error) => error.message);
  strictEqual(refusal, "Cannot pause chat: the chat id is empty");
  strictEqual(await bot.isPaused("+55 11 99999-9999"), false);
  await bot.pause("5511999999999");
  strictEqual(await bot.isPaused("5511999999999@s.whatsapp.net"), true);
});
