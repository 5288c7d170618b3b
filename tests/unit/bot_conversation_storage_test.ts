// What a dialogue stores: a few hundred bytes per step, a log chunked across keys when it outgrows one
// value (1,000 waits with replies on MemoryStore and KvStore), a dialogue that cannot be stored dropped
// with a BotError (the chat is not stuck), replay exact, and the format-1 records of earlier versions read.
import { deepStrictEqual, ok, strictEqual } from "node:assert/strict";
import { KvStore, MemoryStore } from "../../mod.ts";
import {
  Bot,
  type BotError,
  type Context,
  type Conversation,
  type ConversationFlavor,
  conversations,
  createConversation,
} from "../../src/bot/mod.ts";
import type { GatewayStore } from "../../src/store/store.ts";
import type { StateStore } from "../../src/store/state.ts";
import { BotHarness } from "../../src/testing/mod.ts";
import { createFormBot } from "../../examples/bot/form.ts";

type C = Context & ConversationFlavor;
const ANA = "5511999999999";
const ANA_KEY = `bot:${ANA}@s.whatsapp.net`;
const texts = (replies: readonly { text?: string }[]) => replies.map((r) => r.text);

/** Bytes of the chat's dialogue in the store, as JSON: its record and every chunk of its log. */
async function storedBytes(state: StateStore): Promise<number> {
  const record = await state.get("conversation", ANA_KEY);
  const chunks = await state.list("conversation-log", { prefix: `${ANA_KEY}#` });
  const size = (value: unknown) => new TextEncoder().encode(JSON.stringify(value)).byteLength;
  return (record === null ? 0 : size(record.value)) + chunks.reduce((sum, c) => sum + size(c.value), 0);
}

Deno.test("conversation storage: the docs' re-ask loop stores under 700 bytes per step and never wedges", async () => {
  const store = new MemoryStore();
  await using h = new BotHarness(createFormBot({ store }));
  const ana = h.user(ANA);
  await ana.send("/form");
  await ana.send("Ana");
  const before = await storedBytes(store.state);
  for (let i = 0; i < 100; i++) await ana.send("thirty");
  const perStep = ((await storedBytes(store.state)) - before) / 100;
  ok(perStep < 700, `${perStep} bytes per step`);
  await ana.send("31");
  strictEqual(ana.replies.length, 103);
  strictEqual(ana.replies[101].text, "Please type your age as a whole number from 1 to 120.");
  strictEqual(ana.replies[102].text, "Thanks, Ana! You are 31.");
  strictEqual(await store.state.get("conversation", ANA_KEY), null);
  deepStrictEqual(await store.state.list("conversation-log"), []); // the finished dialogue's chunks are gone
});

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

for (const engine of ["MemoryStore", "KvStore"] as const) {
  Deno.test(`conversation storage (${engine}): 1,000 waits with replies, over a restart`, async () => {
    const kv = engine === "KvStore" ? await Deno.openKv(":memory:") : undefined;
    try {
      const store: GatewayStore = kv === undefined ? new MemoryStore() : new KvStore(kv);
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
    } finally {
      kv?.close();
    }
  });
}

Deno.test("conversation storage: a dialogue that cannot be stored ends with a BotError; the next message is handled", async () => {
  const store = new MemoryStore();
  const bot = new Bot<C>({ store });
  const caught: unknown[] = [];
  bot.catch((error: BotError<C>) => void caught.push(error.error));
  bot.use(createConversation(async (conversation: Conversation<C>, ctx: C) => {
    await ctx.reply("Send anything");
    await conversation.waitFor("message:text");
    await conversation.external(() => "x".repeat(60_000)); // one step larger than a stored value
    await conversation.waitFor("message:text");
  }, "big"));
  bot.command("big", (ctx) => ctx.conversation.enter("big"));
  bot.on("message:text", (ctx) => ctx.reply(`outside: ${ctx.text}`));
  await using h = new BotHarness(bot);
  const ana = h.user(ANA);
  await ana.send("/big");
  await ana.send("go");
  strictEqual(caught.length, 1);
  ok(caught[0] instanceof RangeError);
  strictEqual(
    (caught[0] as Error).message,
    `Cannot store conversation "big" of ${ANA_KEY}: one of its steps is 60030 bytes as JSON, over 40960; ` +
      `the dialogue is dropped`,
  );
  strictEqual(await store.state.get("conversation", ANA_KEY), null);
  await ana.send("hello");
  deepStrictEqual(texts(ana.replies), ["Send anything", "outside: hello"]);
});

Deno.test("conversation storage: replay is exact: waits and replies show the same on the first run and on replay", async () => {
  const seen: string[] = [];
  const bot = new Bot<C>({ store: new MemoryStore() });
  bot.use(createConversation(async (conversation: Conversation<C>, ctx: C) => {
    const question = await ctx.reply("Your name?");
    const answer = await conversation.waitFor("message:text");
    const thanks = await answer.reply(`Thanks, ${answer.text}`);
    seen.push(JSON.stringify({
      enter: [ctx.payload.raw, ctx.update, ctx.msg, ctx.from, ctx.chat, ctx.messages],
      answer: [answer.payload.raw, answer.payload.receivedAt, answer.payload.deliveryId, answer.update],
      fields: [
        answer.msg,
        answer.from,
        answer.chat,
        answer.text,
        answer.messages,
        answer.has("message:text"),
      ],
      replies: [
        question.status,
        question.json("key.id"),
        thanks.status,
        thanks.json("key.id"),
        thanks.replayed,
      ],
      external: await conversation.external(() => ({ at: new Date(0) })),
    }));
    await conversation.waitFor("message:text");
  }, "exact"));
  bot.command("exact", (ctx) => ctx.conversation.enter("exact"));
  await using h = new BotHarness(bot);
  const ana = h.user(ANA, { name: "Ana" });
  await ana.send("/exact");
  await ana.send("Ana");
  h.restart();
  await ana.send("again"); // replays the first steps
  strictEqual(seen.length, 2);
  strictEqual(seen[1], seen[0]);
  const first = JSON.parse(seen[0]);
  strictEqual(first.replies[1], (ana.replies[0].message.key as { id: string }).id);
  strictEqual(first.external.at, "1970-01-01T00:00:00.000Z"); // JSON on the first run too
  strictEqual(first.answer[0].apikey, undefined);
});

Deno.test("conversation storage: a format-1 record (stored by an earlier version) is migrated and continues", async () => {
  const store = new MemoryStore();
  const bot = new Bot<C>({ store });
  bot.use(createConversation(async (conversation: Conversation<C>, ctx: C) => {
    await ctx.reply("Your name?");
    const name = await conversation.waitFor("message:text");
    const sent = await name.reply(`Age, ${name.text}?`);
    const age = await conversation.waitFor("message:text");
    await age.reply(`${name.text} is ${age.text} (asked in ${sent.json("key.id")})`);
  }, { name: "form1", version: 1 }));
  bot.on("message:text", (ctx) => ctx.reply(`outside: ${ctx.text}`));
  const raw = (id: string, text: string) => ({
    event: "messages.upsert",
    instance: "bot",
    data: {
      key: { remoteJid: `${ANA}@s.whatsapp.net`, fromMe: false, id },
      pushName: "Ana",
      message: { conversation: text },
      messageType: "conversation",
      messageTimestamp: 1_800_000_000,
      instanceId: "i-1",
      source: "android",
    },
    destination: "http://bot.test/webhook",
    date_time: "2027-01-15T08:00:00.000Z",
    server_url: "http://gateway.test",
  });
  const update = (id: string, text: string) => ({
    id,
    kind: "message",
    queries: ["message", "message:text"],
    own: false,
    instance: "bot",
    msg: { id, type: "conversation", fromMe: false, text, mentions: [], timestamp: 1_800_000_000_000 },
    chat: { id: `${ANA}@s.whatsapp.net`, isGroup: false },
    from: { id: `${ANA}@s.whatsapp.net`, phone: ANA, name: "Ana" },
  });
  const response = (id: string) => ({
    status: 201,
    headers: {},
    data: { key: { remoteJid: `${ANA}@s.whatsapp.net`, fromMe: true, id }, status: "PENDING", source: "web" },
    durationMs: 3,
    attempts: 1,
    replayed: false,
  });
  await store.state.set("conversation", ANA_KEY, {
    name: "form1",
    version: "1",
    enter: { raw: raw("IN-1", "/form1"), update: update("IN-1", "/form1"), receivedAt: 1_800_000_000_000 },
    log: [
      { call: "reply", value: response("OUT-1") },
      { wait: { raw: raw("IN-2", "Ana"), update: update("IN-2", "Ana"), receivedAt: 1_800_000_001_000 } },
      { call: "reply", value: response("OUT-2") },
    ],
  });
  await using h = new BotHarness(bot);
  const ana = h.user(ANA);
  await ana.send("31");
  deepStrictEqual(texts(ana.replies), ["Ana is 31 (asked in OUT-2)"]);
  strictEqual(await store.state.get("conversation", ANA_KEY), null);
});

Deno.test("conversation storage: a record of an unknown format is dropped; the message goes on", async () => {
  const store = new MemoryStore();
  await using h = new BotHarness(createFormBot({ store }));
  await store.state.set("conversation", ANA_KEY, { v: 99, name: "form" });
  const ana = h.user(ANA);
  await ana.send("Ana");
  deepStrictEqual(texts(ana.replies), ["Send /form to fill in the form."]);
  strictEqual(await store.state.get("conversation", ANA_KEY), null);
});

// Two runs that continue one dialogue from the same read (two processes, a key shared without chat order):
// each seals its steps into chunks of its own; the record's compare-and-set lets one win, and the other's
// chunks are not the dialogue's.
Deno.test("conversation storage: two saves from one read: the first wins, the other conflicts, the log is the winner's", async () => {
  const { DialogueRecords } = await import("../../src/bot/conversation/record_store.ts");
  const { StateConflictException } = await import("../../src/bot/state_conflict.ts");
  const store = new MemoryStore();
  const records = new DialogueRecords(store.state, ANA_KEY);
  const enter = { r: { event: "messages.upsert", instance: "bot", data: {} }, t: 1 };
  const steps = (label: string, n: number) =>
    Array.from({ length: n }, (_, i) => ({ call: "external", value: `${label}-${i}-${"x".repeat(200)}` }));
  const state = { continues: false, name: "d", version: "1", enter };
  await records.save(null, { ...state, log: steps("base", 10) });
  const read = (await records.load())!;
  const winner = await records.save(read, {
    ...state,
    continues: true,
    log: [...read.log, ...steps("a", 200)],
  });
  let conflict: unknown;
  try {
    await records.save(read, { ...state, continues: true, log: [...read.log, ...steps("b", 200)] });
  } catch (error) {
    conflict = error;
  }
  ok(conflict instanceof StateConflictException);
  const again = (await records.load())!;
  strictEqual(again.version, winner.version);
  deepStrictEqual(
    again.log.map((e) => (e as { value: string }).value.split("-")[0]).filter((v) => v === "b"),
    [],
  );
  strictEqual(again.log.length, 210);
  ok((again.record.chunks ?? []).length >= 2);
  const chunkKeys = (await store.state.list("conversation-log")).map((c) => c.key).sort();
  deepStrictEqual(chunkKeys, again.record.chunks!.map((c) => `${ANA_KEY}#${c.id}`).sort());
  // A chunk left by a writer killed before its record (no record names it) goes when the dialogue ends.
  await store.state.set("conversation-log", `${ANA_KEY}#orphan`, [{ call: "external" }]);
  await records.drop(again);
  deepStrictEqual(await store.state.list("conversation-log"), []);
  strictEqual(await store.state.get("conversation", ANA_KEY), null);
});

Deno.test("conversation storage: the live update stays writable for the middleware after a dialogue that passes it on", async () => {
  const bot = new Bot<C>({ store: new MemoryStore() });
  bot.use(createConversation(async (conversation: Conversation<C>, ctx: C) => {
    await ctx.reply("A photo, please");
    await conversation.waitFor("message:image");
  }, "photo"));
  bot.use(async (ctx, next) => {
    if (ctx.text === "/photo") await ctx.conversation.enter("photo"); // stores this update, then passes it on
    await next();
  });
  bot.on("message:text", async (ctx) => {
    const key = (ctx.payload.raw.data as { key: Record<string, unknown> }).key;
    key.seen = true; // the webhook the dialogue stored is a copy
    await ctx.reply(`outside: ${ctx.text} ${Object.isFrozen(ctx.msg)}`);
  });
  await using h = new BotHarness(bot);
  const ana = h.user(ANA);
  await ana.send("/photo");
  deepStrictEqual(texts(ana.replies), ["A photo, please", "outside: /photo false"]);
});

Deno.test("conversation storage: leaving a dialogue, or entering another over it, deletes its chunks", async () => {
  const store = new MemoryStore();
  const bot = new Bot<C>({ store });
  bot.use(conversations());
  bot.command("cancel", (ctx) => ctx.conversation.exit());
  bot.use(createConversation(async (conversation: Conversation<C>, ctx: C) => {
    await ctx.reply("Count with me");
    for (let i = 1; i <= 100; i++) {
      const answer = await conversation.waitForHears(/^n\d+$/);
      await answer.reply(`#${i}`);
    }
  }, "long"));
  bot.command("long", (ctx) => ctx.conversation.enter("long"));
  await using h = new BotHarness(bot);
  const ana = h.user(ANA);
  const chunks = async () => (await store.state.list("conversation-log")).length;
  for (const leave of ["/cancel", "/long"]) {
    await ana.send("/long");
    for (let i = 1; i <= 60; i++) await ana.send(`n${i}`);
    ok((await chunks()) > 0);
    await ana.send(leave);
    strictEqual(await chunks(), 0, `after ${leave}`);
  }
  strictEqual((await store.state.get<{ log: unknown[] }>("conversation", ANA_KEY))?.value.log.length, 1);
});

Deno.test("conversation storage: chunks live as long as their dialogue, and go by themselves a week after it timed out", async () => {
  const DAY = 24 * 60 * 60_000;
  let now = Date.UTC(2027, 0, 1);
  const clock = () => now;
  const store = new MemoryStore({ now: clock });
  const bot = new Bot<C>({ store, now: clock });
  bot.use(createConversation(async (conversation: Conversation<C>, ctx: C) => {
    await ctx.reply("Count with me, one a day");
    for (let i = 1; i <= 100; i++) {
      const answer = await conversation.waitFor("message:text", { maxMs: 2 * DAY });
      await answer.reply(`#${i}`);
    }
  }, "daily"));
  bot.command("daily", (ctx) => ctx.conversation.enter("daily"));
  bot.on("message:text", (ctx) => ctx.reply(`outside: ${ctx.text}`));
  await using h = new BotHarness(bot);
  const ana = h.user(ANA);
  await ana.send("/daily");
  for (let i = 1; i <= 60; i++) {
    now += DAY; // 60 days: far past the first chunks' first expiry, which each step pushes on
    await ana.send(`n${i}`);
  }
  strictEqual(ana.replies.at(-1)?.text, "#60");
  const chunks = (await store.state.list("conversation-log")).length; // in the store, for every process
  const record = await store.state.get<{ chunks: unknown[] }>("conversation", ANA_KEY);
  ok(chunks > 0);
  strictEqual(chunks, record?.value.chunks.length);
  now += 2 * DAY; // the wait timed out: the record is gone, its chunks stay a while
  strictEqual(await store.state.get("conversation", ANA_KEY), null);
  strictEqual((await store.state.list("conversation-log")).length, chunks);
  now += 7 * DAY;
  deepStrictEqual(await store.state.list("conversation-log"), []);
});
