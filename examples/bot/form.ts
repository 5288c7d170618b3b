/**
 * A form as a dialogue: `/form` asks for a name, then an age (a whole number from 1 to 120, asked again
 * until it is one), then confirms. The dialogue is kept in the bot's store, so a restart in the middle
 * resumes at the question it was waiting on, and nothing is sent twice. `/cancel` leaves it.
 *
 *   deno run -A examples/bot/try.ts form         # against the mock server, one command
 *   GATEWAY_KV_PATH=form.kv deno serve --allow-net --allow-env --allow-read --allow-write examples/bot/form.ts
 *
 * Configured like any bot from the environment: GATEWAY_API_URL, GATEWAY_API_KEY and GATEWAY_INSTANCE (the
 * server the replies go to), GATEWAY_WEBHOOK_SECRET / GATEWAY_WEBHOOK_SIGNATURE_SCHEME (what the receiver checks),
 * and GATEWAY_KV_PATH: the KV file that keeps the dialogues over restarts (without it they live in memory).
 */

import { type GatewayStore, KvStore } from "@gw/gateway";
import {
  Bot,
  type BotOptions,
  type Context,
  type Conversation,
  type ConversationFlavor,
  conversations,
  createConversation,
} from "@gw/gateway/bot";

type FormContext = Context & ConversationFlavor;

/** How long each question waits for its answer. */
const ANSWER_WITHIN_MS = 10 * 60_000;

/** The dialogue: straight-line code; every wait may span a restart. */
export async function form(conversation: Conversation<FormContext>, ctx: FormContext): Promise<void> {
  await ctx.reply("What is your name?");
  const name = (await conversation.waitFor("message:text", {
    maxMs: ANSWER_WITHIN_MS,
    otherwise: (other) => other.reply("Please type your name."),
  })).text.trim();
  await ctx.reply(`Nice to meet you, ${name}. How old are you?`);
  let age = NaN;
  while (!(Number.isInteger(age) && age >= 1 && age <= 120)) {
    const answer = await conversation.waitFor("message:text", { maxMs: ANSWER_WITHIN_MS });
    age = Number(answer.text.trim());
    if (!(Number.isInteger(age) && age >= 1 && age <= 120)) {
      await answer.reply("Please type your age as a whole number from 1 to 120.");
    }
  }
  await ctx.reply(`Thanks, ${name}! You are ${age}.`);
}

/** The form bot (tests pass their own store and service). */
export function createFormBot(options: BotOptions = {}): Bot<FormContext> {
  const bot = new Bot<FormContext>(options);
  bot.use(conversations());
  bot.command("cancel", async (ctx) => {
    await ctx.reply((await ctx.conversation.exit()) ? "Form cancelled." : "There is no form to cancel.");
  });
  bot.use(createConversation(form, "form"));
  bot.command("form", (ctx) => ctx.conversation.enter("form"));
  bot.on("message:text", (ctx) => ctx.reply("Send /form to fill in the form."));
  return bot;
}

/** A `KvStore` on `GATEWAY_KV_PATH` when it is set (dialogues survive restarts), else the bot's memory. */
async function storeFromEnv(): Promise<GatewayStore | undefined> {
  const path = Deno.env.get("GATEWAY_KV_PATH");
  return path === undefined ? undefined : new KvStore(await Deno.openKv(path));
}

// Under `deno serve` this module is the main one and reads its store from the environment; imported (by the
// tests), it builds nothing from it.
const store = import.meta.main ? await storeFromEnv() : undefined;
const bot = createFormBot(store === undefined ? {} : { store });

/** The `deno serve` entry. */
export default { fetch: bot.fetch };
