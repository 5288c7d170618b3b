import { deepStrictEqual, ok, rejects, strictEqual, throws } from "node:assert/strict";
import { GatewayService, MemoryStore, ValidationException } from "../../mod.ts";
import { type SendManyItem, type SendManyProgress, SendPacer } from "../../src/resources/mod.ts";
import { KEY, newSim } from "../helpers/simulator.ts";

const START = Date.UTC(2026, 10, 23, 9, 0, 0);
const SALES = { connection: "default", instance: "sales" };

/** A seeded random source, so jitters are the same every run. */
function seeded(seed = 42): () => number {
  let x = seed;
  return () => {
    x = (x * 1103515245 + 12345) % 2147483648;
    return x / 2147483648;
  };
}

interface Sent {
  at: number;
  number: string;
  text: string;
  delay?: number;
}

/** A simulator and a service on one fake clock; sleeps advance it. Every send is logged with its time. */
function setup() {
  let t = START;
  const now = () => t;
  const store = new MemoryStore({ now });
  const sim = newSim({ now });
  sim.addInstance("sales", { open: true });
  const sent: Sent[] = [];
  const sleeps: number[] = [];
  const fetch: typeof globalThis.fetch = async (input, init) => {
    const request = new Request(input, init);
    const response = await sim.handle(request.clone());
    if (request.url.includes("/message/sendText/") && response.status === 201) {
      const body = await request.json();
      sent.push({ at: t, number: body.number, text: body.text, delay: body.delay });
    }
    return response;
  };
  const gw = new GatewayService(
    { server_url: "http://gateway.test", api_key: KEY, instance: "sales", store, retry: { max_retries: 0 } },
    {
      fetch,
      now,
      sleep: (ms) => {
        sleeps.push(ms);
        t += ms;
        return Promise.resolve();
      },
    },
  );
  // The pacer the tests read and resume runs on the same fake clock as the service (its day counts by it).
  const pacer = new SendPacer(store.state, {}, { now });
  return { sim, gw, sent, sleeps, store, now, pacer, advance: (ms: number) => (t += ms) };
}

function items(count: number, recipients: number, prefix = "item"): SendManyItem[] {
  return Array.from({ length: count }, (_, i) => ({
    idempotencyKey: `${prefix}-${i}`,
    to: `55119000000${String(i % recipients).padStart(2, "0")}`,
    text: `message ${i} ${"x".repeat(i % 7 * 10)}`,
  }));
}

Deno.test("sendMany: 100 items to 10 recipients keep every gap and every recipient interval, and wait no longer", async () => {
  const { sim, gw, sent, pacer } = setup();
  const options = { minGapMs: 4_000, jitterMs: 3_000, recipientIntervalMs: 60_000, random: seeded() };
  const report = await gw.messages().sendMany(items(100, 10), options);
  deepStrictEqual(
    [report.total, report.sent, report.failed, report.skipped, report.paused, report.unknown, report.pause],
    [100, 100, 0, 0, 0, 0, null],
  );
  strictEqual(sent.length, 100);
  strictEqual(new Set(sent.map((s) => s.text)).size, 100);
  const lastTo = new Map<string, number>();
  for (let i = 0; i < sent.length; i++) {
    const { at, number } = sent[i];
    if (i > 0) {
      const gap = at - sent[i - 1].at;
      ok(gap >= 4_000, `gap ${gap} before send ${i}`);
      const previous = lastTo.get(number);
      // Either the gap (at most minGap + jitter) or the recipient's interval decided the wait.
      ok(gap < 7_000 || (previous !== undefined && at - previous === 60_000), `send ${i} waited ${gap} ms`);
    }
    const previous = lastTo.get(number);
    if (previous !== undefined) ok(at - previous >= 60_000, `recipient ${number}: ${at - previous} ms`);
    lastTo.set(number, at);
  }
  // A recipient's own messages keep their order.
  for (let r = 0; r < 10; r++) {
    const to = `55119000000${String(r).padStart(2, "0")}`;
    const order = sent.filter((s) => s.number === to).map((s) => Number(s.text.split(" ")[1]));
    deepStrictEqual(order, [...order].sort((a, b) => a - b));
  }
  // Typing time from the text's length: 40 ms per character, between 800 and 6000.
  for (const s of sent) strictEqual(s.delay, Math.min(6_000, Math.max(800, s.text.length * 40)));
  strictEqual((await pacer.status(SALES)).sentToday, 100);
  await sim.close();
});

Deno.test("sendMany: progress events after each item, a rerun skips what was sent", async () => {
  const { sim, gw, sent } = setup();
  const progress: SendManyProgress[] = [];
  const list = items(4, 2);
  const options = {
    minGapMs: 10,
    jitterMs: 0,
    recipientIntervalMs: 0,
    onProgress: (p: SendManyProgress) => void progress.push(p),
  };
  await gw.messages().sendMany(list, options);
  deepStrictEqual(progress.map((p) => [p.done, p.total, p.sent, p.item.idempotencyKey, p.item.status]), [
    [1, 4, 1, "item-0", "sent"],
    [2, 4, 2, "item-1", "sent"],
    [3, 4, 3, "item-2", "sent"],
    [4, 4, 4, "item-3", "sent"],
  ]);
  const again = await gw.messages().sendMany(list, options);
  deepStrictEqual([again.sent, again.skipped, again.batchId.length], [0, 4, 24]);
  strictEqual(sent.length, 4);
  await sim.close();
});

Deno.test("sendMany: a daily cap with warm-up pauses until the next UTC day", async () => {
  const { sim, gw, sent, advance } = setup();
  const list = items(5, 5);
  const options = { minGapMs: 1_000, jitterMs: 0, recipientIntervalMs: 0, warmup: [3], dailyCap: 1_000 };
  const first = await gw.messages().sendMany(list, options);
  deepStrictEqual([first.sent, first.paused, first.pause?.reason], [3, 2, "daily_cap"]);
  strictEqual(first.pause?.until, Date.UTC(2026, 10, 24));
  strictEqual(
    first.pause?.message,
    "the daily cap of 3 sends is reached (warm-up); sending resumes tomorrow (UTC)",
  );
  advance(86_400_000);
  const second = await gw.messages().sendMany(list, options);
  deepStrictEqual([second.sent, second.skipped, second.paused], [2, 3, 0]);
  strictEqual(sent.length, 5);
  await sim.close();
});

Deno.test("sendMany: a ban signal (connection.update 403) pauses the queue until resumed", async () => {
  const { sim, gw, sent, pacer } = setup();
  const list = items(10, 10);
  const options = {
    minGapMs: 1_000,
    jitterMs: 0,
    recipientIntervalMs: 0,
    onProgress: async (p: SendManyProgress) => {
      if (p.sent === 3) {
        await gw.health().recordConnectionUpdate(SALES, { state: "close", statusReason: 403 });
      }
    },
  };
  const report = await gw.messages().sendMany(list, options);
  deepStrictEqual([report.sent, report.paused, report.pause?.reason], [3, 7, "restricted"]);
  strictEqual(
    report.pause?.message,
    'instance "sales" is banned: WhatsApp restricted or banned the number; stop sending and check the phone',
  );
  strictEqual(sent.length, 3);
  // Paused in the shared state: still paused after the instance is back, until someone resumes.
  await gw.health().recordConnectionUpdate(SALES, { state: "open" });
  const still = await gw.messages().sendMany(list, { ...options, onProgress: undefined });
  deepStrictEqual([still.sent, still.skipped, still.paused, still.pause?.reason], [0, 3, 7, "restricted"]);
  await pacer.resume(SALES);
  const resumed = await gw.messages().sendMany(list, { ...options, onProgress: undefined });
  deepStrictEqual([resumed.sent, resumed.skipped, resumed.pause], [7, 3, null]);
  strictEqual(sent.length, 10);
  await sim.close();
});

Deno.test("sendMany: an instance that lost its socket stops the run at that item, which the next run sends", async () => {
  const { sim, gw, sent } = setup();
  const list = items(4, 4);
  sim.failNext({ route: "POST /message/sendText", status: 500, body: connectionClosed() });
  const options = { minGapMs: 1_000, jitterMs: 0, recipientIntervalMs: 0 };
  const first = await gw.messages().sendMany(list, options);
  deepStrictEqual([first.sent, first.paused, first.pause?.reason], [0, 4, "disconnected"]);
  strictEqual(
    first.pause?.message,
    'Cannot send: instance "sales" is not connected: Connection Closed (pair it: deno run -A jsr:@gw/gateway/cli connect sales)',
  );
  strictEqual(first.items[0].status, "paused");
  const second = await gw.messages().sendMany(list, options);
  deepStrictEqual([second.sent, second.pause], [4, null]);
  deepStrictEqual(sent.map((s) => s.text.split(" ")[1]), ["0", "1", "2", "3"]);
  await sim.close();
});

Deno.test("sendMany: repeated failures pause the instance", async () => {
  const { sim, gw, pacer } = setup();
  const list = items(8, 8);
  for (const item of list.slice(0, 5)) sim.setNotOnWhatsApp(item.to);
  const report = await gw.messages().sendMany(list, { minGapMs: 1_000, jitterMs: 0, pauseAfterFailures: 5 });
  deepStrictEqual([report.failed, report.sent, report.paused, report.pause?.reason], [
    5,
    0,
    3,
    "repeated_failures",
  ]);
  ok(
    report.pause?.message.startsWith(
      '5 sends failed in a row (last: "Cannot send: recipient is not on WhatsApp',
    ),
  );
  // Permanent failures are not retried by a rerun.
  await pacer.resume(SALES);
  const rerun = await gw.messages().sendMany(list, { minGapMs: 1_000, jitterMs: 0 });
  deepStrictEqual([rerun.failed, rerun.sent, rerun.paused], [5, 3, 0]);
  strictEqual(sim.sentMessages.length, 3);
  await sim.close();
});

Deno.test("sendMany: an unknown outcome is never resent; an item a killed run was sending is settled by the record store", async () => {
  const { sim, gw, sent, store, now } = setup();
  const list = items(4, 4);
  const options = { batchId: "b1", minGapMs: 0, jitterMs: 0, recipientIntervalMs: 0, typing: false };
  // A killed run left items 1 and 2 "sending": the record store says item 1 went out, item 2 is unknown.
  for (const key of ["item-1", "item-2"]) {
    await store.state.set("send-many", `b1/${key}`, { status: "sending" });
  }
  const record = (id: string, status: "sent" | "pending", messageId?: string) => ({
    id,
    connection: "default",
    instance: "sales",
    recipient: "x",
    type: "text",
    route: "/message/sendText/{instance}",
    body: {},
    status,
    outcomeUnknown: false,
    retryCount: 0,
    createdAt: now(),
    updatedAt: now(),
    ...(messageId ? { messageId } : {}),
  });
  await store.saveOutbound(record("item-1", "sent", "3EB0SENT"));
  await store.saveOutbound(record("item-2", "pending"));
  // Item 0 (the first one sent) gets a 500 from the server: it may have gone out.
  sim.failNext({ route: "POST /message/sendText", status: 500, body: "boom", times: 1 });
  const first = await gw.messages().sendMany(list, options);
  deepStrictEqual(first.items.map((i) => i.status), ["unknown", "skipped", "unknown", "sent"]);
  deepStrictEqual(
    [first.sent, first.skipped, first.unknown, first.items[1].messageId],
    [1, 1, 2, "3EB0SENT"],
  );
  const second = await gw.messages().sendMany(list, options);
  deepStrictEqual(second.items.map((i) => i.status), ["unknown", "skipped", "unknown", "skipped"]);
  strictEqual(sent.length, 1);
  await sim.close();
});

Deno.test("sendMany: bad items are refused before any request", async () => {
  const { sim, gw } = setup();
  await rejects(
    gw.messages().sendMany([
      { idempotencyKey: "a", to: "5511999999999", text: "x" },
      { idempotencyKey: "a", to: "5511999999999", text: "y" },
      { idempotencyKey: "", to: "", text: "" },
    ]),
    (e: unknown) => {
      ok(e instanceof ValidationException);
      deepStrictEqual(e.messages, [
        'items[1].idempotencyKey "a" is used twice',
        "items[2].idempotencyKey is required",
        "items[2].to is required",
        "items[2] needs a text or a file",
      ]);
      return true;
    },
  );
  await rejects(
    gw.messages().sendMany(items(1, 1), { minGapMs: -1 }),
    {
      name: "ConfigurationException",
      message: 'Invalid pacing: "minGapMs" must be a number from 0 to 2147483647 (ms), got "-1"',
    },
  );
  strictEqual(sim.requests.length, 0);
  await sim.close();
});

Deno.test("sendMany: an item's field it does not have is refused before any request, with the field meant", async () => {
  // A `delay` or a misspelt `txt` on an item was dropped silently: the message went out without it.
  const { sim, gw } = setup();
  await rejects(
    gw.messages().sendMany([
      { idempotencyKey: "a", to: "5511999999999", text: "x", delay: 1e12 },
      { idempotencyKey: "b", to: "5511999999999", txt: "y", text: "y" },
      {
        idempotencyKey: "c",
        to: "5511999999999",
        file: { source: "https://e.com/a.pdf", type: "document", name: "a" },
      },
    ] as never),
    (e: unknown) => {
      ok(e instanceof ValidationException);
      deepStrictEqual(e.messages, [
        "items[0].delay is not a field",
        'items[1].txt is not a field; did you mean "text"?',
        'items[2].file.name is not a field; did you mean "fileName"?',
      ]);
      return true;
    },
  );
  strictEqual(sim.requests.length, 0);
  await sim.close();
});

Deno.test("sendMany and SendPacer: an unknown option key is refused with a suggestion before any request", async () => {
  const { sim, gw, store } = setup();
  await rejects(
    gw.messages().sendMany(items(1, 1), { minGapMs: 10, jiter: 5 } as never),
    {
      name: "ConfigurationException",
      message: 'messages().sendMany: "jiter" is not an option; did you mean "jitterMs"?',
    },
  );
  strictEqual(sim.requests.length, 0);
  throws(() => new SendPacer(store.state, { dailyCaps: 5 } as never), {
    name: "ConfigurationException",
    message: 'new SendPacer: "dailyCaps" is not an option; did you mean "dailyCap"?',
  });
  // sendMany's own settings are not pacing rules, yet are accepted next to them.
  const report = await gw.messages().sendMany(items(1, 1), { minGapMs: 0, jitterMs: 0, batchId: "b1" });
  strictEqual(report.batchId, "b1");
  await sim.close();
});

Deno.test("sendMany: one runner per instance: another runner's lease is waited out, the same runner's taken over", async () => {
  const { sim, gw, sleeps, store, now } = setup();
  // A runner "w1" holds the instance (say it was killed 20 s into its 60 s lease).
  await store.state.set("send-many-lease", "default/sales", { owner: "w1" }, { expiresAt: now() + 40_000 });
  const options = { minGapMs: 0, jitterMs: 0, recipientIntervalMs: 0, typing: false };
  const other = await gw.messages().sendMany(items(2, 2, "a"), { ...options, workerId: "w2" });
  strictEqual(other.sent, 2);
  deepStrictEqual(sleeps, [40_000]);
  await store.state.set("send-many-lease", "default/sales", { owner: "w1" }, { expiresAt: now() + 40_000 });
  const same = await gw.messages().sendMany(items(2, 2, "b"), { ...options, workerId: "w1" });
  strictEqual(same.sent, 2);
  deepStrictEqual(sleeps, [40_000]);
  strictEqual(await store.state.get("send-many-lease", "default/sales"), null);
  await sim.close();
});

Deno.test("sendMany: files go through sendFile with the item's key", async () => {
  const { sim, gw } = setup();
  const pdf = new Uint8Array([0x25, 0x50, 0x44, 0x46, 0x2d, 0x31]);
  const report = await gw.messages().sendMany([
    {
      idempotencyKey: "f1",
      to: "5511999999999",
      text: "Invoice",
      file: { source: pdf, type: "document", fileName: "a.pdf" },
    },
  ], { minGapMs: 0, jitterMs: 0 });
  strictEqual(report.sent, 1);
  const request = sim.requests.at(-1)!;
  deepStrictEqual([
    request.route,
    request.headers["idempotency-key"],
    (request.body as { caption: string }).caption,
  ], [
    "POST /message/sendMedia",
    "f1",
    "Invoice",
  ]);
  await sim.close();
});

function connectionClosed() {
  return { status: 500, error: "Internal Server Error", response: { message: "Connection Closed" } };
}
