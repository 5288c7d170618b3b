// One record of each recipient's last send for every pacer on a state: a bot's replies, `sendMany` and a
// user's own `SendPacer` keep one chat's interval together, on a memory store and on a shared store.
import { deepStrictEqual, strictEqual } from "node:assert/strict";
import { MemoryState } from "../../src/backends/memory/state.ts";
import { MemoryStore } from "../../src/backends/memory/store.ts";
import { SendPacer } from "../../src/pacing/pacer.ts";
import {
  fakeTime,
  inbound,
  INSTANCE,
  SharedLikeState,
  sharedLikeStore,
  stubBot,
  stubService,
} from "../helpers/bot.ts";
import type { StateSetOptions } from "../../src/store/state.ts";

const NUMBER = "5511999999999"; // ANA's number: the bot replies to her JID
const SALES = { connection: "default", instance: INSTANCE };
const PER_CHAT = { minGapMs: 0, jitterMs: 0, recipientIntervalMs: 1000 };

for (const kind of ["memory", "shared"] as const) {
  Deno.test(`a bot's reply is seen by a user's SendPacer on the same state (${kind} store)`, async () => {
    const time = fakeTime();
    const store = kind === "memory" ? new MemoryStore({ now: time.now }) : sharedLikeStore(time.now);
    const { bot } = stubBot({ store, now: time.now, sleep: time.sleep, pacing: {} });
    bot.on("message:text", (ctx) => ctx.reply("hi"));
    await bot.handleUpdate(inbound("hello", { id: `S-${kind}` }));
    const repliedAt = time.clock;
    time.clock += 250;

    const pacer = new SendPacer(store.state, { ...PER_CHAT, recipientIntervalMs: 60_000 }, { now: time.now });
    strictEqual(await pacer.recipientLastSent(SALES, NUMBER), repliedAt);
    strictEqual(await pacer.waitFor(SALES, NUMBER), 59_750); // its own interval, from the bot's reply
    strictEqual(await pacer.waitFor(SALES, `${NUMBER}@s.whatsapp.net`), 59_750); // the JID: one recipient
    strictEqual(await pacer.waitFor(SALES, "5511988887777"), 0); // another chat
    strictEqual(await pacer.waitFor({ connection: "default", instance: "support" }, NUMBER), 0); // another instance
  });

  Deno.test(`a user's SendPacer send makes the bot's next reply to that chat wait (${kind} store)`, async () => {
    const time = fakeTime();
    const store = kind === "memory" ? new MemoryStore({ now: time.now }) : sharedLikeStore(time.now);
    const pacer = new SendPacer(store.state, { minGapMs: 0, jitterMs: 0 }, { now: time.now });
    await pacer.recordSent(SALES, NUMBER);
    time.clock += 300;
    const { bot, stub } = stubBot({ store, now: time.now, sleep: time.sleep, pacing: {} });
    bot.on("message:text", (ctx) => ctx.reply("hi"));
    await bot.handleUpdate(inbound("hello", { id: `U-${kind}` }));
    deepStrictEqual(time.waits, [700]); // the bot's second per chat, from the user's send
    deepStrictEqual(stub.texts(), ["hi"]);
  });
}

Deno.test("a sendMany run makes the bot's next reply to that chat wait, and the bot's reply paces sendMany", async () => {
  const time = fakeTime();
  const store = new MemoryStore({ now: time.now });
  const { bot, stub } = stubBot({ store, now: time.now, sleep: time.sleep, pacing: {} });
  bot.on("message:text", (ctx) => ctx.reply("hi"));
  const gw = stubService(stub, store, time.now);
  const report = await gw.messages().sendMany(
    [{ idempotencyKey: "promo-1", to: NUMBER, text: "sale today" }],
    { ...PER_CHAT, typing: false },
  );
  strictEqual(report.sent, 1);
  time.clock += 400;
  await bot.handleUpdate(inbound("hello", { id: "M1" }));
  deepStrictEqual(time.waits, [600]);
  deepStrictEqual(stub.texts(), ["sale today", "hi"]);

  // The bot replied at this clock: a user pacer with a 5 s interval waits 5 s less what went by (the
  // record lives for the writer's interval, the bot's second, as in a shared store).
  time.clock += 500;
  strictEqual(
    await new SendPacer(store.state, { ...PER_CHAT, recipientIntervalMs: 5_000 }, { now: time.now })
      .waitFor(SALES, NUMBER),
    4_500,
  );
});

Deno.test("on a MemoryState the interval is judged on the pacer's clock, kept in memory", async () => {
  let clock = 1_700_000_000_000;
  const state = new MemoryState({ now: () => 0 }); // the state's own clock never moves
  const pacer = new SendPacer(state, PER_CHAT, { now: () => clock });
  strictEqual(await pacer.waitMs(SALES, NUMBER), 0);
  await pacer.recordRecipientSent(SALES, NUMBER);
  clock += 400;
  strictEqual(await pacer.waitMs(SALES, NUMBER), 600);
  strictEqual(await pacer.waitFor(SALES, NUMBER), 600);
  clock += 600;
  strictEqual(await pacer.waitMs(SALES, NUMBER), 0);
  // Remembered for an hour on the pacer's clock, for pacers with longer intervals sharing the record.
  strictEqual(await pacer.recipientLastSent(SALES, NUMBER), 1_700_000_000_000);
  clock += 3_600_000 - 1000;
  strictEqual(await pacer.recipientLastSent(SALES, NUMBER), null);
  deepStrictEqual(await state.list("pacing-recipient"), []); // nothing in the store

  // A pacer with an instance gap answers through the store, as before.
  const gapped = new SendPacer(state, { minGapMs: 1000, jitterMs: 0 }, { now: () => clock });
  await gapped.recordSent(SALES, NUMBER);
  clock += 100;
  strictEqual(await gapped.waitMs(SALES, NUMBER), 59_900); // its 60 s recipient interval outlasts the 1 s gap
  strictEqual(await pacer.waitMs(SALES, NUMBER), 900); // the per-chat pacer sees that send too
});

Deno.test("on a shared store the bot's reply is noted for the service's connection, as sendMany names it", async () => {
  const time = fakeTime();
  const store = sharedLikeStore(time.now);
  const { bot } = stubBot({ store, now: time.now, sleep: time.sleep, pacing: {} });
  bot.on("message:text", (ctx) => ctx.reply("hi"));
  await bot.handleUpdate(inbound("hello", { id: "C1" }));
  deepStrictEqual((await store.state.list("pacing-recipient")).map((e) => e.key), [
    `default/${INSTANCE}/${NUMBER}`,
  ]);
});

Deno.test("on a shared store waitMs reads the chat's record once and recordRecipientSent writes it once", async () => {
  let clock = 1_700_000_000_000;
  const calls: string[] = [];
  class CountingState extends SharedLikeState {
    override get<T>(namespace: string, key: string) {
      calls.push(`get ${namespace}`);
      return super.get<T>(namespace, key);
    }
    override set<T>(namespace: string, key: string, value: T, options?: StateSetOptions) {
      calls.push(`set ${namespace}`);
      return super.set(namespace, key, value, options);
    }
  }
  const pacer = new SendPacer(new CountingState(() => clock), PER_CHAT, { now: () => clock });
  strictEqual(await pacer.waitMs(SALES, NUMBER), 0);
  await pacer.recordRecipientSent(SALES, `${NUMBER}@s.whatsapp.net`);
  clock += 250;
  strictEqual(await pacer.waitMs(SALES, NUMBER), 750);
  deepStrictEqual(calls, ["get pacing-recipient", "set pacing-recipient", "get pacing-recipient"]);
});

Deno.test("a send under a shorter interval keeps a longer interval's record alive (memory store)", async () => {
  const time = fakeTime();
  const state = new MemoryState({ now: time.now });
  const bulk = new SendPacer(state, { ...PER_CHAT, recipientIntervalMs: 60_000 }, { now: time.now });
  const replies = new SendPacer(state, PER_CHAT, { now: time.now });
  await bulk.recordSent(SALES, NUMBER);
  time.clock += 10_000;
  const repliedAt = time.clock;
  await replies.recordRecipientSent(SALES, `${NUMBER}@s.whatsapp.net`); // a bot's reply: 1 s interval
  time.clock += 5_000;
  strictEqual(await bulk.recipientLastSent(SALES, NUMBER), repliedAt);
  strictEqual(await bulk.waitFor(SALES, NUMBER), 55_000); // 60 s from the reply, not 0 once its second ended
  strictEqual(await replies.waitMs(SALES, NUMBER), 0);
});

for (const kind of ["memory", "shared"] as const) {
  Deno.test(`a longer interval waits for a send made under a shorter one, after the shorter ran out (${kind} state)`, async () => {
    let clock = 1_700_000_000_000;
    const now = () => clock;
    const state = kind === "memory" ? new MemoryState({ now }) : new SharedLikeState(now);
    const bulk = new SendPacer(state, { minGapMs: 0, jitterMs: 0, recipientIntervalMs: 60_000 }, { now });
    const replies = new SendPacer(state, PER_CHAT, { now }); // a bot's: one second per chat
    await replies.recordRecipientSent(SALES, NUMBER);
    clock += 5_000; // the reply's own second is long over
    strictEqual(await replies.waitFor(SALES, NUMBER), 0);
    strictEqual(await bulk.waitFor(SALES, NUMBER), 55_000);
    await bulk.recordRecipientSent(SALES, NUMBER);
    clock += 10_000;
    await replies.recordRecipientSent(SALES, NUMBER); // a reply 10 s into the bulk interval
    clock += 5_000;
    strictEqual(await bulk.waitFor(SALES, NUMBER), 55_000); // from the latest send, whoever made it
  });
}
