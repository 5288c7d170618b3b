// The inbound path's order: an update takes its place in its chat's line when it arrives (a webhook when its
// body is in, `handleUpdate` when called), under the chat's one canonical id, before any store operation.
// Deterministic interleavings: store writes held by gates and released in the order the test chooses.
import { deepStrictEqual, rejects } from "node:assert/strict";
import { ChatOrder, type ChatTurn } from "../../src/bot/chat_order.ts";
import { Arrivals } from "../../src/inbound/arrivals.ts";
import type { InboundLines } from "../../src/inbound/lines.ts";
import { WebhookPayloadDto } from "../../src/webhooks/payload.ts";
import { WebhookProcessor } from "../../src/webhooks/processor.ts";
import { MemoryStore } from "../../src/backends/memory/store.ts";
import type { GatewayStore, WebhookLogRecord } from "../../src/store/store.ts";
import { overriding } from "../fixtures/tasks_fixtures.ts";
import {
  ANA,
  ANA_LID,
  gate,
  inbound,
  INSTANCE,
  ORDER_STORES,
  sharedLikeStore,
  stubBot,
} from "../helpers/bot.ts";

const URL_ = `http://bot.test/gateway/webhook/${INSTANCE}`;
const ENV = { GATEWAY_WEBHOOK_SCHEME: "none" };
const BIA = "5511988887777@s.whatsapp.net";

function post(body: Record<string, unknown>): Request {
  return new Request(URL_, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
}

/** A store whose `received` webhook log writes wait until the test lets each one go (by message text). */
function heldLogStore(inner: GatewayStore) {
  const held = new Map<string, { written: ReturnType<typeof gate>; release: ReturnType<typeof gate> }>();
  const hold = (text: string) => {
    const entry = { written: gate(), release: gate() };
    held.set(text, entry);
    return entry;
  };
  const texts = new Map<string, string>(); // delivery id → text, filled by the bodies the test posts
  const store = overriding(inner, {
    saveWebhookLog: async (record: WebhookLogRecord) => {
      const entry = record.status === "received" ? held.get(texts.get(record.id) ?? "") : undefined;
      if (entry !== undefined) {
        entry.written.open();
        await entry.release.promise;
      }
      await inner.saveWebhookLog(record);
    },
  });
  return { store, hold, texts };
}

for (const [kind, makeStore] of ORDER_STORES) {
  Deno.test(`inbound order (${kind}): a webhook's place is taken when its body is in, not after the store writes`, async () => {
    const { store, hold, texts } = heldLogStore(makeStore());
    const { bot } = stubBot({ store });
    const log: string[] = [];
    bot.on("message:text", (ctx) => void log.push(ctx.text));
    const one = inbound("one", { id: "O1" });
    const two = inbound("two", { id: "O2" });
    // The delivery id of a webhook without a signed one is its body's digest.
    for (const [body, text] of [[one, "one"], [two, "two"]] as const) {
      const bytes = new TextEncoder().encode(JSON.stringify(body));
      const digest = await crypto.subtle.digest("SHA-256", bytes);
      texts.set([...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join(""), text);
    }
    const first = hold("one");
    const second = hold("two");
    const a = bot.fetch(post(one), ENV);
    await first.written.promise; // the first request is inside its received-log write
    const b = bot.fetch(post(two), ENV);
    await second.written.promise;
    second.release.open(); // the second's write ends first
    await Promise.resolve();
    first.release.open();
    const answers = await Promise.all([a, b]);
    for (const answer of answers) await answer.body?.cancel();
    deepStrictEqual(answers.map((r) => r.status), [200, 200]);
    deepStrictEqual(log, ["one", "two"]);
    await bot.close();
  });
}

Deno.test("inbound order: handleUpdate takes its place when called, before the claim's store round trip", async () => {
  const inner = new MemoryStore();
  const claims: ReturnType<typeof gate>[] = [];
  const bothAsked = gate();
  const state = overriding(inner.state, {
    set: async (namespace: string, key: string, value: unknown, options?: object) => {
      if (namespace === "inbound_message" && (value as { state?: string }).state === "processing") {
        const held = gate();
        claims.push(held);
        if (claims.length === 2) bothAsked.open();
        await held.promise;
      }
      return await inner.state.set(namespace, key, value, options);
    },
  });
  const store = overriding(inner, { state });
  const { bot } = stubBot({ store });
  const log: string[] = [];
  bot.on("message:text", (ctx) => void log.push(ctx.text));
  const a = bot.handleUpdate(inbound("one", { id: "H1" }));
  const b = bot.handleUpdate(inbound("two", { id: "H2" }));
  await bothAsked.promise;
  claims[1].open(); // the second claim answers first
  claims[0].open();
  await Promise.all([a, b]);
  deepStrictEqual(log, ["one", "two"]);
});

Deno.test("inbound order (memory store): a chat's @lid and phone forms are one line", async () => {
  const { bot } = stubBot({ store: new MemoryStore() });
  const log: string[] = [];
  const hold = gate();
  const started = gate();
  bot.on("message:text", async (ctx) => {
    log.push(`start:${ctx.text}:${ctx.chat.id}`);
    if (ctx.text === "by lid") {
      started.open();
      await hold.promise;
    }
    log.push(`end:${ctx.text}`);
  });
  // The first message shows both forms: the pair is learned.
  await bot.handleUpdate(inbound("hi", {
    id: "L1",
    from: ANA_LID,
    extra: { key: { remoteJid: ANA_LID, remoteJidAlt: ANA, addressingMode: "lid", fromMe: false, id: "L1" } },
  }));
  const byLid = bot.handleUpdate(inbound("by lid", { id: "L2", from: ANA_LID }));
  await started.promise;
  const byPhone = bot.handleUpdate(inbound("by phone", { id: "L3", from: ANA }));
  const other = bot.handleUpdate(inbound("bia", { id: "L4", from: BIA })); // another chat runs meanwhile
  await other;
  hold.open();
  await Promise.all([byLid, byPhone]);
  deepStrictEqual(log, [
    `start:hi:${ANA}`,
    "end:hi",
    `start:by lid:${ANA}`,
    `start:bia:${BIA}`,
    "end:bia",
    "end:by lid",
    `start:by phone:${ANA}`,
    "end:by phone",
  ]);
});

Deno.test("inbound order (memory store): an @lid message arriving right behind the one that teaches its pair waits for it", async () => {
  const { bot } = stubBot({ store: new MemoryStore() });
  const log: string[] = [];
  const hold = gate();
  bot.on("message:text", async (ctx) => {
    log.push(`start:${ctx.text}:${ctx.chat.id}`);
    if (ctx.text === "hi") await hold.promise;
    log.push(`end:${ctx.text}`);
  });
  const first = bot.handleUpdate(inbound("hi", {
    id: "P1",
    from: ANA_LID,
    extra: { key: { remoteJid: ANA_LID, remoteJidAlt: ANA, addressingMode: "lid", fromMe: false, id: "P1" } },
  }));
  const second = bot.handleUpdate(inbound("by lid", { id: "P2", from: ANA_LID }));
  hold.open();
  await Promise.all([first, second]);
  deepStrictEqual(log, [`start:hi:${ANA}`, "end:hi", `start:by lid:${ANA}`, "end:by lid"]);
});

Deno.test("Arrivals: numbers are placed in the order they were taken, whatever order they ask in", async () => {
  const arrivals = new Arrivals();
  const placed: number[] = [];
  const [a, b, c, d] = [arrivals.take(), arrivals.take(), arrivals.take(), arrivals.take()];
  const late = arrivals.place(d, () => placed.push(d));
  const middle = arrivals.place(b, () => placed.push(b));
  arrivals.drop(c); // refused: the ones after it do not wait for it
  deepStrictEqual(placed.length, 0); // a has not been placed yet
  const head: unknown = arrivals.place(a, () => placed.push(a)); // the head is placed at once
  deepStrictEqual(head, 1);
  await Promise.all([middle, late]);
  deepStrictEqual(placed, [a, b, d]);
  const next: unknown = arrivals.place(arrivals.take(), () => "now");
  deepStrictEqual(next, "now");
});

Deno.test("inbound order (shared store): a clock jump past orderLeaseMs never lets a waiter pass a live holder of its own process", async () => {
  let clock = 1_000_000;
  const now = () => clock;
  const { bot } = stubBot({
    store: sharedLikeStore(now),
    now,
    orderLeaseMs: 5000,
    // Each look at the line moves the clock on by the poll interval, and yields to the other tasks.
    sleep: (ms) => {
      clock += ms;
      return new Promise((resolve) => setTimeout(resolve, 0));
    },
  });
  const log: string[] = [];
  const hold = gate();
  const started = gate();
  const polled = gate();
  bot.on("message:text", async (ctx) => {
    log.push(`start:${ctx.text}`);
    if (ctx.text === "long") {
      started.open();
      await hold.promise;
    }
    log.push(`end:${ctx.text}`);
  });
  const first = bot.handleUpdate(inbound("long", { id: "J1" }));
  await started.promise;
  const second = bot.handleUpdate(inbound("next", { id: "J2" }));
  const jumped = clock + 3 * 5000;
  const watch = setInterval(() => clock >= jumped && polled.open(), 0);
  // The waiter looked at the line for three leases by the clock (or, wrongly, skipped the holder and ran).
  await Promise.race([polled.promise, second]);
  clearInterval(watch);
  deepStrictEqual(log, ["start:long"]);
  hold.open();
  await Promise.all([first, second]);
  deepStrictEqual(log, ["start:long", "end:long", "start:next", "end:next"]);
});

Deno.test("processor lines: events are read once and placed in arrival order, whatever their reading took", async () => {
  const held = gate();
  const placed: string[] = [];
  const reads: string[] = [];
  const lines: InboundLines<string> = {
    read: (payload) => {
      const text = payload.text ?? "";
      reads.push(text);
      const read = { value: text, line: payload.chatJid };
      return text === "slow" ? held.promise.then(() => read) : read; // its chat is looked up in the store
    },
    arrive: (read) => {
      placed.push(read.value);
      return { release: () => placed.push(`left ${read.value}`) };
    },
  };
  const processor = new WebhookProcessor({ lines, log: false });
  const seen: string[] = [];
  processor.on("messages.upsert", async (payload) => {
    seen.push((await processor.placed<string>(payload)).value);
  });
  const slow = processor.process(WebhookPayloadDto.from(inbound("slow", { id: "PL1" }))!);
  const fast = processor.process(WebhookPayloadDto.from(inbound("fast", { id: "PL2" }))!);
  deepStrictEqual(reads, ["slow", "fast"]); // both read at once; "fast" is ready first
  deepStrictEqual(placed.length, 0); // but is not placed before "slow"
  held.open();
  await Promise.all([slow, fast]);
  deepStrictEqual(placed.slice(0, 2), ["slow", "fast"]);
  deepStrictEqual(placed.slice(2).sort(), ["left fast", "left slow"]);
  deepStrictEqual(reads, ["slow", "fast"]);
  deepStrictEqual(seen.sort(), ["fast", "slow"]);
});

Deno.test("inbound order (shared store): a waiting update whose turn was skipped (its process stalled past the lease) fails for a retry instead of running beside the holder", async () => {
  const shared = sharedLikeStore();
  const secondTicket = gate(); // the line was written with two tickets taken
  const state = overriding(shared.state, {
    set: async (namespace: string, key: string, value: unknown, options?: object) => {
      const version = await shared.state.set(namespace, key, value, options);
      if (namespace === "bot_chat_order" && (value as { next: number }).next === 2) secondTicket.open();
      return version;
    },
  });
  const store = overriding(shared, { state });
  const { bot } = stubBot({ store });
  const log: string[] = [];
  const hold = gate();
  const started = gate();
  bot.on("message:text", async (ctx) => {
    log.push(`start:${ctx.text}`);
    if (ctx.text === "first") {
      started.open();
      await hold.promise;
    }
    log.push(`end:${ctx.text}`);
  });
  const first = bot.handleUpdate(inbound("first", { id: "K1" }));
  await started.promise;
  const second = bot.handleUpdate(inbound("second", { id: "K2" })); // ticket 1, waiting
  await secondTicket.promise;
  // Another process found the line stuck and skipped ticket 1 (its holder looked dead): serving is past it.
  const key = `${INSTANCE}/${ANA}`;
  const entry = await store.state.get<{ next: number; serving: number; since: number }>(
    "bot_chat_order",
    key,
  );
  await store.state.set("bot_chat_order", key, { ...entry!.value, serving: 2 });
  await rejects(second, (e: unknown) => e instanceof Error && /skipped/.test(String((e as Error).message)));
  deepStrictEqual(log, ["start:first"]); // never beside the holder
  hold.open();
  await first;
  await bot.handleUpdate(inbound("second", { id: "K2" })); // the server's retry runs it
  deepStrictEqual(log, ["start:first", "end:first", "start:second", "end:second"]);
});

Deno.test("inbound order (shared store): a hundred redeliveries refused at once give their places up, and the chat goes on", async () => {
  const state = sharedLikeStore(() => 1_000).state;
  // The waiter's looks at the line: each sleep ends at the next macrotask; after many looks it stays asleep
  // and the test sees the line stuck (no real time is waited on).
  const stuck = gate();
  let looks = 0;
  const sleep = (_ms: number) => {
    if (++looks > 500) return (stuck.open(), new Promise<void>(() => {}));
    return new Promise<void>((resolve) => setTimeout(resolve, 0));
  };
  const order = new ChatOrder(state, { now: () => 1_000, sleep, leaseMs: 60_000, pollMs: 50 });
  const holder = await order.enter(INSTANCE, ANA); // ticket 0: its turn
  // A burst of redeliveries arrives while the holder runs (their tickets taken together), then one new message.
  const refused = Array.from({ length: 100 }, () => order.arrive(INSTANCE, ANA));
  const next = order.arrive(INSTANCE, ANA);
  const last = await (next as unknown as { taken: Promise<number> }).taken; // every ticket taken
  for (const slot of refused) slot.release(); // each copy answered "busy": its place given up at once
  await holder.leave();
  const turn = await Promise.race([order.enter(INSTANCE, ANA, next), stuck.promise.then(() => "stuck")]);
  deepStrictEqual(turn === "stuck" ? "stuck" : "entered", "entered");
  deepStrictEqual(
    (await state.get<{ serving: number }>("bot_chat_order", `${INSTANCE}/${ANA}`))?.value.serving,
    last,
  );
  await (turn as ChatTurn).leave();
  deepStrictEqual(await state.get("bot_chat_order", `${INSTANCE}/${ANA}`), null);
});
