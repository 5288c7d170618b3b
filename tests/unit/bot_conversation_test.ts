// Conversations: a dialogue as straight-line code, kept in the store and replayed, so a restart in the
// middle resumes where it waited and nothing is sent twice; waits with filters, otherwise, timeouts.
import { deepStrictEqual, rejects, strictEqual, throws } from "node:assert/strict";
import { KvStore, MemoryStore } from "../../mod.ts";
import {
  Bot,
  type Context,
  type Conversation,
  type ConversationFlavor,
  conversations,
  createConversation,
} from "../../src/bot/mod.ts";
import { ConfigurationException } from "../../src/errors.ts";
import type { GatewayStore } from "../../src/store/store.ts";
import { BotHarness } from "../../src/testing/mod.ts";
import { createFormBot } from "../../examples/bot/form.ts";

type C = Context & ConversationFlavor;
const ANA = "5511999999999";
const ANA_KEY = `bot:${ANA}@s.whatsapp.net`;

const texts = (replies: readonly { text?: string }[]) => replies.map((r) => r.text);

Deno.test("conversation: the form example, name then a validated age", async () => {
  await using h = new BotHarness(createFormBot({ store: new MemoryStore() }));
  const ana = h.user(ANA, { name: "Ana" });
  await ana.send("hello");
  await ana.send("/form");
  await ana.sendImage({ caption: "me" });
  await ana.send("Ana");
  await ana.send("thirty");
  await ana.send("300");
  await ana.send("31");
  await ana.send("hello again");
  deepStrictEqual(texts(ana.replies), [
    "Send /form to fill in the form.",
    "What is your name?",
    "Please type your name.",
    "Nice to meet you, Ana. How old are you?",
    "Please type your age as a whole number from 1 to 120.",
    "Please type your age as a whole number from 1 to 120.",
    "Thanks, Ana! You are 31.",
    "Send /form to fill in the form.",
  ]);
});

Deno.test("conversation: /cancel before the dialogue leaves it", async () => {
  const store = new MemoryStore();
  await using h = new BotHarness(createFormBot({ store }));
  const ana = h.user(ANA);
  await ana.send("/form");
  await ana.send("/cancel");
  strictEqual(await store.state.get("conversation", ANA_KEY), null);
  await ana.send("Ana");
  await ana.send("/cancel");
  deepStrictEqual(texts(ana.replies), [
    "What is your name?",
    "Form cancelled.",
    "Send /form to fill in the form.",
    "There is no form to cancel.",
  ]);
});

for (const engine of ["MemoryStore", "KvStore"] as const) {
  Deno.test(`conversation (${engine}): a restart in the middle resumes at the wait and sends nothing twice`, async () => {
    const kv = engine === "KvStore" ? await Deno.openKv(":memory:") : undefined;
    try {
      const store: GatewayStore = kv === undefined ? new MemoryStore() : new KvStore(kv);
      await using h = new BotHarness(createFormBot({ store }));
      const ana = h.user(ANA);
      await ana.send("/form");
      h.restart();
      await ana.send("Ana");
      h.restart();
      await ana.send("31");
      deepStrictEqual(texts(ana.replies), [
        "What is your name?",
        "Nice to meet you, Ana. How old are you?",
        "Thanks, Ana! You are 31.",
      ]);
      strictEqual(await store.state.get("conversation", ANA_KEY), null); // finished: deleted
    } finally {
      kv?.close();
    }
  });
}

Deno.test("conversation: the stored record holds the name, the version and the log, and no api key", async () => {
  const store = new MemoryStore();
  await using h = new BotHarness(createFormBot({ store }));
  await h.user(ANA).send("/form");
  const record = (await store.state.get<Record<string, unknown>>("conversation", ANA_KEY))?.value;
  strictEqual(record?.name, "form");
  strictEqual(typeof record?.version, "string");
  strictEqual((record?.log as unknown[]).length, 1); // the question's reply
  strictEqual(JSON.stringify(record).includes("apikey"), false);
});

// A dialogue whose first run after the answer fails once, after replying: the retry must not reply again.
function flakyBot(store: GatewayStore, failures: { left: number }, saved: string[]): Bot<C> {
  const bot = new Bot<C>({ store });
  bot.use(createConversation(async (conversation: Conversation<C>, ctx: C) => {
    await ctx.reply("Which product?");
    const answer = await conversation.waitFor("message:text");
    await answer.reply(`Ordering ${answer.text}...`);
    await conversation.external(() => {
      if (failures.left-- > 0) throw new Error("stock service down");
      saved.push(answer.text);
    });
    await answer.reply("Ordered.");
  }, "order"));
  bot.command("order", (ctx) => ctx.conversation.enter("order"));
  return bot;
}

Deno.test("conversation: a failed step is retried by redelivery without sending its earlier replies again", async () => {
  const saved: string[] = [];
  await using h = new BotHarness(flakyBot(new MemoryStore(), { left: 1 }, saved));
  const ana = h.user(ANA);
  await ana.send("/order");
  await rejects(ana.send("pizza"), /stock service down/);
  await h.redeliver();
  deepStrictEqual(texts(ana.replies), ["Which product?", "Ordering pizza...", "Ordered."]);
  deepStrictEqual(saved, ["pizza"]);
});

Deno.test("conversation: a redelivered answer runs once", async () => {
  const saved: string[] = [];
  await using h = new BotHarness(flakyBot(new MemoryStore(), { left: 0 }, saved));
  const ana = h.user(ANA);
  await ana.send("/order");
  await ana.send("pizza");
  await h.redeliver();
  deepStrictEqual(texts(ana.replies), ["Which product?", "Ordering pizza...", "Ordered."]);
  deepStrictEqual(saved, ["pizza"]);
});

Deno.test("conversation: external, now and random run once; replays see the logged results", async () => {
  const calls: string[] = [];
  let now = 1_800_000_000_000;
  const clock = () => now;
  const bot = new Bot<C>({ store: new MemoryStore({ now: clock }), now: clock });
  bot.use(createConversation(async (conversation: Conversation<C>, ctx: C) => {
    const id = await conversation.external(() => {
      calls.push("external");
      return `T-${calls.length}`;
    });
    const started = await conversation.now();
    const roll = await conversation.random();
    await ctx.reply(`ticket ${id}`);
    for (let step = 1; step <= 3; step++) {
      const next = await conversation.waitFor("message:text");
      const at = await conversation.now();
      await next.reply(
        `${id} step ${step} after ${at - started} ms, roll ${
          roll === (await conversation.random()) ? "same" : "new"
        }`,
      );
    }
  }, "ticket"));
  bot.command("ticket", (ctx) => ctx.conversation.enter("ticket"));
  await using h = new BotHarness(bot);
  const ana = h.user(ANA);
  await ana.send("/ticket");
  now += 1000;
  await ana.send("a");
  now += 1000;
  await ana.send("b");
  deepStrictEqual(calls, ["external"]);
  deepStrictEqual(texts(ana.replies), [
    "ticket T-1",
    "T-1 step 1 after 1000 ms, roll new",
    "T-1 step 2 after 2000 ms, roll new",
  ]);
});

function waitingBot(store: GatewayStore, clock: () => number): Bot<C> {
  const bot = new Bot<C>({ store, now: clock });
  bot.use(createConversation(async (conversation: Conversation<C>, ctx: C) => {
    await ctx.reply("Type yes or no (you have 1 minute)");
    const answer = await conversation.waitForHears(/^(yes|no)$/i, {
      maxMs: 60_000,
      otherwise: (other) => other.reply("yes or no?"),
    });
    await answer.reply(`You said ${String(answer.match[1]).toLowerCase()}`);
  }, "confirm"));
  bot.command("confirm", (ctx) => ctx.conversation.enter("confirm"));
  bot.on("message:text", (ctx) => ctx.reply(`(no dialogue) ${ctx.text}`));
  return bot;
}

Deno.test("conversation: waitForHears sets ctx.match; other texts get `otherwise` and the dialogue waits on", async () => {
  let now = 1_800_000_000_000;
  const clock = () => now;
  await using h = new BotHarness(waitingBot(new MemoryStore({ now: clock }), clock));
  const ana = h.user(ANA);
  await ana.send("/confirm");
  now += 30_000;
  await ana.send("maybe");
  now += 29_000;
  await ana.send("YES");
  deepStrictEqual(texts(ana.replies), ["Type yes or no (you have 1 minute)", "yes or no?", "You said yes"]);
});

Deno.test("conversation: a wait past maxMs (bot's clock) ends the dialogue; the late update goes on", async () => {
  let now = 1_800_000_000_000;
  const clock = () => now;
  const store = new MemoryStore({ now: clock });
  await using h = new BotHarness(waitingBot(store, clock));
  const ana = h.user(ANA);
  await ana.send("/confirm");
  now += 60_000;
  await ana.send("yes");
  deepStrictEqual(texts(ana.replies), ["Type yes or no (you have 1 minute)", "(no dialogue) yes"]);
  strictEqual(await store.state.get("conversation", ANA_KEY), null);
});

Deno.test("conversation: a changed dialogue (new version) does not replay the old log", async () => {
  const store = new MemoryStore();
  const build = (version: number, question: string) => {
    const bot = new Bot<C>({ store });
    bot.use(createConversation(async (conversation: Conversation<C>, ctx: C) => {
      await ctx.reply(question);
      const answer = await conversation.waitFor("message:text");
      await answer.reply(`v${version} got ${answer.text}`);
    }, { name: "ask", version }));
    bot.command("ask", (ctx) => ctx.conversation.enter("ask"));
    bot.on("message:text", (ctx) => ctx.reply(`v${version} outside: ${ctx.text}`));
    return bot;
  };
  {
    await using h1 = new BotHarness(build(1, "Question one?"));
    await h1.user(ANA).send("/ask");
  }
  await using h2 = new BotHarness(build(2, "Question two?"));
  const ana = h2.user(ANA);
  await ana.send("answer");
  await ana.send("/ask");
  await ana.send("answer");
  deepStrictEqual(texts(ana.replies), ["v2 outside: answer", "Question two?", "v2 got answer"]);
});

Deno.test("conversation: a dialogue's own exit, ctx.conversation.active(), and enter replacing a dialogue", async () => {
  const store = new MemoryStore();
  const bot = new Bot<C>({ store });
  bot.use(conversations());
  bot.command("where", (ctx) => ctx.reply(`active: ${ctx.conversation.active() ?? "none"}`));
  bot.use(createConversation(async (conversation: Conversation<C>, ctx: C) => {
    await ctx.reply("quiz: say stop to stop");
    for (;;) {
      const answer = await conversation.waitFor("message:text");
      if (answer.text === "stop") {
        await answer.reply("stopped");
        await conversation.exit();
      }
      await answer.reply(`quiz got ${answer.text}`);
    }
  }, "quiz"));
  bot.use(createConversation(async (conversation: Conversation<C>, ctx: C) => {
    await ctx.reply("survey: first question");
    await conversation.wait();
  }, "survey"));
  bot.command("quiz", (ctx) => ctx.conversation.enter("quiz"));
  bot.command("survey", (ctx) => ctx.conversation.enter("survey"));
  bot.on("message:text", (ctx) => ctx.reply(`outside ${ctx.text}`));
  await using h = new BotHarness(bot);
  const ana = h.user(ANA);
  await ana.send("/quiz");
  await ana.send("/where");
  await ana.send("a");
  await ana.send("stop");
  await ana.send("/where");
  await ana.send("/quiz");
  await ana.send("/survey"); // taken by the quiz's wait: the quiz is active
  await ana.send("stop");
  await ana.send("/survey");
  await ana.send("/where");
  deepStrictEqual(texts(ana.replies), [
    "quiz: say stop to stop",
    "active: quiz",
    "quiz got a",
    "stopped",
    "active: none",
    "quiz: say stop to stop",
    "quiz got /survey",
    "stopped",
    "survey: first question",
    "active: survey",
  ]);
});

Deno.test("conversation: entering an unknown dialogue and bad options are refused", async () => {
  const bot = new Bot<C>({ store: new MemoryStore() });
  bot.use(createConversation(async () => {}, "known"));
  bot.command("go", (ctx) => ctx.conversation.enter("unknown"));
  await using h = new BotHarness(bot);
  await rejects(
    h.user(ANA).send("/go"),
    /Cannot enter conversation "unknown": it is not registered .*registered: known/,
  );
  throws(
    () => createConversation(async () => {}, { name: "x", verison: 2 } as never),
    (error: Error) =>
      error instanceof ConfigurationException &&
      error.message === 'createConversation: "verison" is not an option; did you mean "version"?',
  );
  throws(() => createConversation(async () => {}, ""), /the name must be a non-empty string/);
  const waits = new Bot<C>({ store: new MemoryStore() });
  const errors: string[] = [];
  waits.use(createConversation(async (conversation: Conversation<C>) => {
    await conversation.waitFor("message:text", { maxMS: 5 } as never).catch((e: Error) =>
      errors.push(e.message)
    );
    await conversation.waitFor("message:txt" as never).catch((e: Error) =>
      errors.push(e.message.split(";")[0])
    );
  }, "bad"));
  waits.command("bad", (ctx) => ctx.conversation.enter("bad"));
  await using h2 = new BotHarness(waits);
  await h2.user(ANA).send("/bad");
  deepStrictEqual(errors, [
    'conversation.wait: "maxMS" is not an option; did you mean "maxMs"?',
    'Cannot use filter query "message:txt": it is not a query',
  ]);
});

Deno.test("conversation: updates other than messages (a read receipt) pass a waiting dialogue untouched", async () => {
  const statuses: string[] = [];
  const bot = new Bot<C>({ store: new MemoryStore() });
  bot.use(createConversation(async (conversation: Conversation<C>, ctx: C) => {
    await ctx.reply("Your name?");
    const answer = await conversation.waitFor("message:text", {
      otherwise: (other) => other.reply("Text, please"),
    });
    await answer.reply(`Hi ${answer.text}`);
  }, "name"));
  bot.command("name", (ctx) => ctx.conversation.enter("name"));
  bot.on("status", (ctx) => {
    statuses.push(ctx.status);
  });
  await using h = new BotHarness(bot);
  const ana = h.user(ANA);
  await ana.send("/name");
  const question = ana.replies[0].message.key as { id: string; remoteJid: string };
  await h.deliver("messages.update", {
    keyId: question.id,
    remoteJid: question.remoteJid,
    fromMe: true,
    participant: null,
    status: "READ",
    instanceId: "bot-instance",
  });
  await ana.sendImage();
  await ana.send("Ana");
  deepStrictEqual(statuses, ["READ"]);
  deepStrictEqual(texts(ana.replies), ["Your name?", "Text, please", "Hi Ana"]);
});
