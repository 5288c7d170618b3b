// What a dialogue stores: a few hundred bytes per step, a log chunked across keys when it outgrows one
// value (1,000 waits with replies: tests/integration/bot_conversation_long_test.ts), a dialogue that cannot be
// stored dropped with a BotError (the chat is not stuck), replay exact, and the format-1 records of earlier
// versions read.
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
import type { StateStore } from "../../src/store/state.ts";
import { BotHarness } from "../../src/testing/mod.ts";
import { createFormBot } from "../../examples/bot/form.ts";
import { RedisStore } from "../../src/backends/redis/store.ts";
import { withRedisServer } from "../helpers/redis_server.ts";
import { SharedLikeState } from "../helpers/bot.ts";

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

// A record of the current format that is damaged (written by hand, a partial write, a crafted value) must not
// fail every message of its chat: it is dropped like a record of an unknown format.
Deno.test("conversation storage: a damaged record of the current format is dropped; the message goes on", async () => {
  const damaged: Record<string, unknown>[] = [
    { v: 2, name: "form" },
    { v: 2, name: "form", version: "1", enter: { r: {}, t: 1 }, log: "x" },
    { v: 2, name: "form", version: "1", enter: { t: 1 }, log: [] },
    { v: 2, name: "form", version: "1", enter: { r: {}, t: 1 }, log: [{ wait: 1 }] },
    { v: 2, name: "form", version: "1", enter: { r: {}, t: 1 }, log: [], chunks: [{ id: 7 }] },
  ];
  // Of the right version, so the dialogue would replay them: a stored update that is not a webhook.
  const { version } = await versionOfForm();
  const webhook = { event: "messages.upsert", instance: "bot", data: { key: { id: "IN-1" } } };
  damaged.push(
    { v: 2, name: "form", version, enter: { r: {}, t: 1 }, log: [] },
    {
      v: 2,
      name: "form",
      version,
      enter: { r: webhook, t: 1 },
      log: [{ call: "reply" }, { wait: { r: {}, t: 1 } }],
    },
  );
  for (const value of damaged) {
    const store = new MemoryStore();
    await using h = new BotHarness(createFormBot({ store }));
    await store.state.set("conversation", ANA_KEY, value);
    const ana = h.user(ANA);
    await ana.send("Ana");
    deepStrictEqual(texts(ana.replies), ["Send /form to fill in the form."], JSON.stringify(value));
    strictEqual(await store.state.get("conversation", ANA_KEY), null);
  }
});

/** The version the form bot gives its dialogue (a stored record of it is replayed, not dropped as stale). */
async function versionOfForm(): Promise<{ version: string }> {
  const store = new MemoryStore();
  await using h = new BotHarness(createFormBot({ store }));
  await h.user(ANA).send("/form");
  const record = await store.state.get<{ version: string }>("conversation", ANA_KEY);
  return { version: record!.value.version };
}

// A chunk deleted or expired in the store while its record lives: the next process to read the dialogue (no
// copy of the chunk in its memory) drops it, and the chat's message is handled as if none were active.
Deno.test("conversation storage: a dialogue whose chunk is missing on read is dropped; the chat goes on", async () => {
  const store = new MemoryStore();
  const bot = new Bot<C>({ store });
  bot.use(createConversation(async (conversation: Conversation<C>, ctx: C) => {
    await ctx.reply("Count with me");
    for (let i = 1; i <= 100; i++) await (await conversation.waitForHears(/^n\d+$/)).reply(`#${i}`);
  }, "long"));
  bot.command("long", (ctx) => ctx.conversation.enter("long"));
  bot.on("message:text", (ctx) => ctx.reply(`outside: ${ctx.text}`));
  {
    await using h = new BotHarness(bot);
    await h.user(ANA).send("/long");
    for (let i = 1; i <= 40; i++) await h.user(ANA).send(`n${i}`);
  }
  const chunks = await store.state.list("conversation-log");
  ok(chunks.length > 0);
  await store.state.delete("conversation-log", chunks[0].key);
  // Another process: the same stored data behind another state object (no chunk in its memory).
  const other = new SharedLikeState();
  for (const entry of await store.state.list("conversation")) {
    await other.set("conversation", entry.key, entry.value);
  }
  for (const entry of await store.state.list("conversation-log")) {
    await other.set("conversation-log", entry.key, entry.value);
  }
  const otherStore = new Proxy(store, {
    get: (target, name) => {
      if (name === "state") return other;
      const value = Reflect.get(target, name, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  await using h2 = new BotHarness(bot, { store: otherStore });
  const ana = h2.user(ANA);
  await ana.send("n41");
  await ana.send("n42");
  deepStrictEqual(texts(ana.replies), ["outside: n41", "outside: n42"]);
  strictEqual(await other.get("conversation", ANA_KEY), null);
  deepStrictEqual(await other.list("conversation-log"), []);
});

// A crafted format-1 record (`__proto__` keys at every level, as JSON.parse keeps them): nothing outside the
// record changes (no prototype polluted), the crafted keys give the dialogue nothing, and it continues.
Deno.test("conversation storage: a format-1 record with __proto__ keys pollutes nothing and continues", async () => {
  const store = new MemoryStore();
  const bot = new Bot<C>({ store });
  const seen: unknown[] = [];
  bot.use(createConversation(async (conversation: Conversation<C>, ctx: C) => {
    await ctx.reply("Your name?");
    const name = await conversation.waitFor("message:text");
    const inherited = name as unknown as { polluted?: string };
    seen.push(inherited.polluted, name.msg.id, Object.getPrototypeOf(name.update) === Object.prototype);
    await name.reply(`Hi ${name.text}`);
  }, { name: "form1", version: 1 }));
  const record = JSON.parse(`{"name":"form1","version":"1","__proto__":{"polluted":"record"},
    "enter":{"receivedAt":1800000000000,
      "raw":{"event":"messages.upsert","instance":"bot","__proto__":{"polluted":"raw"},
        "data":{"__proto__":{"polluted":"data"},"key":{"remoteJid":"${ANA}@s.whatsapp.net","fromMe":false,"id":"IN-1"},
          "message":{"conversation":"/form1","__proto__":{"polluted":"message"}},"messageType":"conversation",
          "messageTimestamp":1800000000}},
      "update":{"__proto__":{"polluted":"update","msg":{"id":"EVIL"}},"id":"IN-1","kind":"message",
        "constructor":{"prototype":{"polluted":"constructor"}}}},
    "log":[{"call":"reply","value":{"status":201,"data":{"key":{"id":"OUT-1"},"__proto__":{"polluted":"v"}}}}]}`);
  await store.state.set("conversation", ANA_KEY, record);
  await using h = new BotHarness(bot);
  const ana = h.user(ANA);
  await ana.send("Ana");
  deepStrictEqual(texts(ana.replies), ["Hi Ana"]);
  strictEqual(seen[0], undefined);
  ok(seen[1] !== "EVIL");
  strictEqual(seen[2], true);
  strictEqual(({} as { polluted?: string }).polluted, undefined);
  strictEqual(Object.getOwnPropertyNames(Object.prototype).includes("polluted"), false);
});

// Two processes (two handles of one KV file, two clients of one Redis) continue one dialogue at once from the
// same read, each sealing its own chunks: exactly one record wins, the other gets StateConflictException, and
// what is read after is the winner's whole log.
for (const engine of ["KvStore", "RedisStore"] as const) {
  Deno.test(`conversation storage (${engine}): two processes saving one dialogue at once: one wins, the other conflicts`, async () => {
    const { DialogueRecords } = await import("../../src/bot/conversation/record_store.ts");
    const { StateConflictException } = await import("../../src/bot/state_conflict.ts");
    const run = async (states: [StateStore, StateStore]) => {
      const [a, b] = states.map((state) => new DialogueRecords(state, ANA_KEY));
      const enter = { r: { event: "messages.upsert", instance: "bot", data: {} }, t: 1 };
      const steps = (label: string, n: number) =>
        Array.from(
          { length: n },
          (_, i) => ({ call: "external", value: `${label}-${i}-${"x".repeat(200)}` }),
        );
      const state = { continues: true, name: "d", version: "1", enter };
      await a.save(null, { ...state, continues: false, log: steps("base", 10) });
      const [readA, readB] = [(await a.load())!, (await b.load())!];
      const results = await Promise.allSettled([
        a.save(readA, { ...state, log: [...readA.log, ...steps("a", 200)] }),
        b.save(readB, { ...state, log: [...readB.log, ...steps("b", 200)] }),
      ]);
      const won = results.filter((r) => r.status === "fulfilled");
      const lost = results.filter((r) => r.status === "rejected") as PromiseRejectedResult[];
      strictEqual(won.length, 1);
      ok(lost[0].reason instanceof StateConflictException);
      const winner = results[0].status === "fulfilled" ? "a" : "b";
      const after = (await b.load())!;
      strictEqual(after.log.length, 210);
      deepStrictEqual(
        new Set(after.log.slice(10).map((e) => (e as { value: string }).value[0])),
        new Set([winner]),
      );
      await a.drop((await a.load())!);
      deepStrictEqual(await states[1].list("conversation-log"), []);
    };
    if (engine === "RedisStore") {
      await withRedisServer(async (server) => {
        const stores = [new RedisStore({ url: server.url }), new RedisStore({ url: server.url })];
        try {
          await run([stores[0].state, stores[1].state]);
        } finally {
          for (const store of stores) await store.close();
        }
      });
      return;
    }
    const dir = await Deno.makeTempDir();
    const kvs = [await Deno.openKv(`${dir}/bot.kv`), await Deno.openKv(`${dir}/bot.kv`)];
    try {
      await run([new KvStore(kvs[0]).state, new KvStore(kvs[1]).state]);
    } finally {
      for (const kv of kvs) kv.close();
      await Deno.remove(dir, { recursive: true });
    }
  });
}
