/**
 * A form as a dialogue: `/form` asks for a name, then an age (a whole number from 1 to 120, asked again
 * until it is one), then confirms. The dialogue is kept in the bot's store, so a restart in the middle
 * resumes at the question it was waiting on, and nothing is sent twice. `/cancel` leaves it.
 *
 *   deno serve --allow-net --allow-env --allow-read --allow-write examples/bot/form.ts
 *
 * Configured like any bot from the environment: GATEWAY_API_URL, GATEWAY_API_KEY (the server the replies
 * go to), GATEWAY_WEBHOOK_SECRET / GATEWAY_WEBHOOK_SCHEME (what the receiver checks), and GATEWAY_KV_PATH
 * for the store (default `form.kv`: dialogues survive restarts). examples/bot/try_form.ts runs it against
 * the mock server in one command.
 */

import { KvStore } from "../../src/store/kv.ts";
import {
  Bot,
  type BotOptions,
  type Context,
  type Conversation,
  type ConversationFlavor,
  conversations,
  createConversation,
} from "../../src/bot/mod.ts";
import type { GatewayStore } from "../../src/store/store.ts";

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

async function kvStore(): Promise<GatewayStore> {
  const kv = await Deno.openKv(Deno.env.get("GATEWAY_KV_PATH") ?? "form.kv");
  return new KvStore(kv);
}

// Under `deno serve` this module is the main one: it opens the KV file. Imported (by the tests), it does not.
const bot = createFormBot(import.meta.main ? { store: await kvStore() } : {});

/** The `deno serve` entry. */
export default { fetch: bot.fetch };
