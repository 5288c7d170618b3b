// A long dialogue's log chunked across keys: 1,000 waits with replies, over a restart, on MemoryStore, KvStore
// and RedisStore. Each update replays every step, so these cost seconds of CPU each: they run in
// `deno task test:slow` (docs/testing.md, "What the suite costs"); what a dialogue stores per step, its chunks'
// lifetime and the conflicts are in tests/unit/bot_conversation_storage_test.ts.
import { deepStrictEqual, ok, strictEqual } from "node:assert/strict";
import {
  Bot,
  type Context,
  type Conversation,
  type ConversationFlavor,
  createConversation,
} from "../../src/bot/mod.ts";
import type { GatewayStore } from "../../src/store/store.ts";
import { BotHarness } from "../../src/testing/mod.ts";
import { withStoreEngine } from "../helpers/store_engines.ts";

type C = Context & ConversationFlavor;
const ANA = "5511999999999";
const ANA_KEY = `bot:${ANA}@s.whatsapp.net`;
const texts = (replies: readonly { text?: string }[]) => replies.map((r) => r.text);

/** A dialogue of `steps` waits, each answered by a reply. */
function longBot(store: GatewayStore, steps: number): Bot<C> {
  const bot = new Bot<C>({ store });
  bot.use(createConversation(async (conversation: Conversation<C>, ctx: C) => {
    await ctx.reply("Count with me");
    for (let i = 1; i <= steps; i++) {
      const answer = await conversation.waitFor("message:text");
      await answer.reply(`#${i}: ${answer.text}`);
    }
    await ctx.reply("done");
  }, "long"));
  bot.command("long", (ctx) => ctx.conversation.enter("long"));
  bot.on("message:text", (ctx) => ctx.reply(`outside: ${ctx.text}`));
  return bot;
}

for (const engine of ["MemoryStore", "KvStore", "RedisStore"] as const) {
  Deno.test(`conversation storage (${engine}): 1,000 waits with replies, over a restart`, async () => {
    await withStoreEngine(engine, async (store) => {
      await using h = new BotHarness(longBot(store, 1000));
      const ana = h.user(ANA);
      await ana.send("/long");
      for (let i = 1; i <= 1000; i++) {
        if (i === 500) {
          h.restart();
          const chunks = await store.state.list("conversation-log", { prefix: `${ANA_KEY}#` });
          ok(chunks.length >= 5, `${chunks.length} chunks`);
        }
        await ana.send(`n${i}`);
      }
      await ana.send("after");
      strictEqual(ana.replies.length, 1003);
      deepStrictEqual(texts(ana.replies.slice(-4)), ["#999: n999", "#1000: n1000", "done", "outside: after"]);
      strictEqual(h.sent.length, 1003); // nothing sent twice
      strictEqual(await store.state.get("conversation", ANA_KEY), null);
      deepStrictEqual(await store.state.list("conversation-log"), []);
    });
  });
}
