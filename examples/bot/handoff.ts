/**
 * A human handoff: the bot answers until a customer asks for a person (`/human`); then it pauses that chat,
 * so an agent can answer from the phone or WhatsApp Web while the bot keeps quiet, until the agent sends
 * `/resume <number>` from the admin number (`HANDOFF_ADMIN`), or 30 minutes passed.
 *
 *   deno run -A examples/bot/try.ts handoff            # against the mock server, one command
 *   deno serve --allow-net --allow-env examples/bot/handoff.ts   # against your gateway server
 *
 * Pauses live in the bot's store: give it a `KvStore` (or Redis, Cloudflare) to keep them across restarts
 * and processes.
 */

import { Bot } from "@gw/gateway/bot";

const ADMIN = Deno.env.get("HANDOFF_ADMIN") ?? "5511988887777";
const HANDOFF_MS = 30 * 60_000;

const bot = new Bot();

// The agents' number manages handoffs from its own chat with the bot.
bot.filter((ctx) => ctx.from?.phone === ADMIN).command("resume", async (ctx) => {
  const resumed = await bot.resume(ctx.match);
  await ctx.reply(resumed ? `The bot answers ${ctx.match} again.` : `${ctx.match} was not paused.`);
});

bot.command("human", async (ctx) => {
  await ctx.reply("Connecting you to a person. They will answer here shortly.");
  await bot.pause(ctx.chat.id, { untilMs: ctx.now() + HANDOFF_MS });
});

bot.on("message:text", (ctx) => ctx.reply(`Bot: you said "${ctx.text}". Send /human to talk to a person.`));

export default { fetch: bot.fetch };
