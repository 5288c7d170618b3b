// The inbound path under attack through the HTTP receiver and on every store: bodies that verify at different
// speeds, a redelivery while the first delivery waits its turn, a forged request among a chat's updates, and
// a chat's @lid and phone forms a few ms apart on KvStore and RedisStore.
import { deepStrictEqual } from "node:assert/strict";
import { KvStore } from "../../src/backends/kv/store.ts";
import { MemoryStore } from "../../src/backends/memory/store.ts";
import { RedisStore } from "../../src/backends/redis/store.ts";
import { signWebhook } from "../../src/webhooks/verify/sign.ts";
import type { GatewayStore, WebhookLogRecord } from "../../src/store/store.ts";
import { overriding } from "../fixtures/tasks_fixtures.ts";
import { ANA, ANA_LID, gate, inbound, INSTANCE, stubBot } from "../helpers/bot.ts";
import { startRedisServer } from "../helpers/redis_server.ts";

const URL_ = `http://bot.test/gateway/webhook/${INSTANCE}`;
const SECRET = "attack-secret-0123456789abcdef01";
const ENV = {};

async function signedPost(body: Record<string, unknown>, scheme: "hmac" | "jwt", secret = SECRET) {
  const raw = JSON.stringify(body);
  const headers = await signWebhook({ body: raw, secret, scheme });
  return new Request(URL_, { method: "POST", headers, body: raw });
}

/**
 * A signed request whose body is streamed, with `read` settling once the receiver has read all of it: its
 * arrival (the body is in). The next request is sent after that, so the order of arrival is known whatever
 * the machine's load, and what the test checks is that verifying and writing do not reorder them.
 */
async function streamedPost(body: Record<string, unknown>, scheme: "hmac" | "jwt") {
  const raw = new TextEncoder().encode(JSON.stringify(body));
  const headers = await signWebhook({ body: JSON.stringify(body), secret: SECRET, scheme });
  let done!: () => void;
  const read = new Promise<void>((resolve) => done = resolve);
  const chunk = 64 * 1024;
  let at = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (at >= raw.byteLength) {
        controller.close();
        done();
        return;
      }
      controller.enqueue(raw.slice(at, at + chunk));
      at += chunk;
    },
  });
  return { request: new Request(URL_, { method: "POST", headers, body: stream }), read };
}

Deno.test("inbound attack: a big HMAC body and a small JWT one of one chat, a few ms apart, run in arrival order", async () => {
  const { bot } = stubBot({ signature: { scheme: "auto", secret: SECRET } });
  const log: string[] = [];
  bot.on("message:text", (ctx) => void log.push(ctx.text));
  // Half a megabyte the HMAC has to go through; the JWT covers no body, so the second verifies at once.
  const big = inbound("big", { id: "B1", extra: { padding: "x".repeat(512 * 1024) } });
  const small = inbound("small", { id: "B2" });
  const first = await streamedPost(big, "hmac");
  const second = await signedPost(small, "jwt");
  const a = bot.fetch(first.request, ENV);
  await first.read;
  await new Promise((resolve) => setTimeout(resolve, 2)); // the second request comes 2 ms after its body is in
  const b = bot.fetch(second, ENV);
  const answers = await Promise.all([a, b]);
  for (const answer of answers) await answer.body?.cancel();
  deepStrictEqual(answers.map((r) => r.status), [200, 200]);
  deepStrictEqual(log, ["big", "small"]);
  await bot.close();
});

Deno.test("inbound attack (queue mode): a big HMAC body and a small JWT one of one chat, a few ms apart, run in arrival order", async () => {
  const dir = await Deno.makeTempDir({ prefix: "gw_inbound_attack_" });
  const { bot } = stubBot({
    signature: { scheme: "auto", secret: SECRET },
    queue: { mode: "kv", path: `${dir}/queue.kv` },
  });
  const log: string[] = [];
  const both = gate();
  bot.on("message:text", (ctx) => {
    log.push(ctx.text);
    if (log.length === 2) both.open();
  });
  try {
    // Near the limit: the big body's job is written in chunks and its HMAC takes longest.
    const big = inbound("big", { id: "QB1", extra: { padding: "x".repeat(900 * 1024) } });
    const first = await streamedPost(big, "hmac");
    const second = await signedPost(inbound("small", { id: "QB2" }), "jwt");
    const a = bot.fetch(first.request, ENV);
    await first.read;
    await new Promise((resolve) => setTimeout(resolve, 2)); // the second request comes 2 ms after its body is in
    const b = bot.fetch(second, ENV);
    const answers = await Promise.all([a, b]);
    for (const answer of answers) await answer.body?.cancel();
    await both.promise;
    deepStrictEqual(answers.map((r) => r.status), [202, 202]);
    deepStrictEqual(log, ["big", "small"]);
  } finally {
    await bot.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("inbound attack: a forged request (bad signature) takes no place in its chat's line, holds none", async () => {
  const { bot } = stubBot({ signature: { scheme: "hmac", secret: SECRET } });
  const log: string[] = [];
  bot.on("message:text", (ctx) => void log.push(ctx.text));
  const forged = await signedPost(
    inbound("forged", { id: "F1", extra: { padding: "x".repeat(512 * 1024) } }),
    "hmac",
    "not-the-secret-0123456789abcdef",
  );
  const unsigned = new Request(URL_, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(inbound("unsigned", { id: "F2" })),
  });
  const answers = await Promise.all([
    bot.fetch(forged, ENV),
    bot.fetch(unsigned, ENV),
    bot.fetch(await signedPost(inbound("one", { id: "F3" }), "hmac"), ENV),
  ]);
  const two = await bot.fetch(await signedPost(inbound("two", { id: "F4" }), "hmac"), ENV);
  for (const answer of [...answers, two]) await answer.body?.cancel();
  deepStrictEqual([...answers, two].map((r) => r.status), [401, 401, 200, 200]);
  deepStrictEqual(log, ["one", "two"]);
  await bot.close();
});

// It hung under load when the redelivery passed "two" on the way in (its signature checked first) and took
// the claim; it then waited behind "one" (see the overtaking case below).
Deno.test("inbound attack: a redelivery of a message still waiting for its turn is refused, and the message runs once", async () => {
  const { bot } = stubBot({ signature: { scheme: "hmac", secret: SECRET } });
  const log: string[] = [];
  const hold = gate();
  const started = gate();
  bot.on("message:text", async (ctx) => {
    log.push(`start:${ctx.text}`);
    if (ctx.text === "one") {
      started.open();
      await hold.promise;
    }
    log.push(`end:${ctx.text}`);
  });
  const one = bot.fetch(await signedPost(inbound("one", { id: "R1" }), "hmac"), ENV);
  await started.promise;
  const two = bot.fetch(await signedPost(inbound("two", { id: "R2" }), "hmac"), ENV);
  // The server's retry of "two" (a new signature, the same message) while "two" waits behind "one".
  const again = await bot.fetch(await signedPost(inbound("two", { id: "R2" }), "hmac"), ENV);
  await again.body?.cancel();
  hold.open();
  const answers = await Promise.all([one, two]);
  for (const answer of answers) await answer.body?.cancel();
  const three = await bot.fetch(await signedPost(inbound("three", { id: "R3" }), "hmac"), ENV);
  await three.body?.cancel();
  deepStrictEqual([again.status, ...answers.map((r) => r.status), three.status], [500, 200, 200, 200]);
  deepStrictEqual(log, ["start:one", "end:one", "start:two", "end:two", "start:three", "end:three"]);
  await bot.close();
});

Deno.test("inbound attack: a redelivery that overtakes its first delivery on the way in does not take its claim (and its place in the chat)", async () => {
  // The first delivery's webhook log write is slow; the redelivery, two arrivals later, passes it there.
  const inner = new MemoryStore();
  const firstWriting = gate();
  const firstWrite = gate();
  const writes: string[] = [];
  const store = overriding(inner, {
    saveWebhookLog: async (record: WebhookLogRecord) => {
      if (record.status !== "received") return await inner.saveWebhookLog(record);
      writes.push(record.id);
      const copies = writes.filter((id) => id === record.id).length;
      if (writes.length === 1) (firstWriting.open(), await firstWrite.promise);
      await inner.saveWebhookLog(record);
      // Once every step the redelivery takes right after its write has run, the first delivery goes on.
      if (copies === 2) setTimeout(firstWrite.open, 0);
    },
  });
  const { bot } = stubBot({ store, signature: { scheme: "hmac", secret: SECRET } });
  const log: string[] = [];
  bot.on("message:text", (ctx) => void log.push(ctx.text));
  const first = bot.fetch(await signedPost(inbound("a", { id: "O1" }), "hmac"), ENV);
  await firstWriting.promise;
  const other = bot.fetch(await signedPost(inbound("x", { id: "O2" }), "hmac"), ENV);
  const again = bot.fetch(await signedPost(inbound("a", { id: "O1" }), "hmac"), ENV);
  const answers = await Promise.all([first, other, again]);
  for (const answer of answers) await answer.body?.cancel();
  deepStrictEqual(answers.map((r) => r.status), [200, 200, 500]); // the redelivery is refused, not the first
  deepStrictEqual(log, ["a", "x"]); // "a" in the place it arrived at, before "x"
  await bot.close();
});

async function lidAndPhoneAreOneLine(store: GatewayStore): Promise<void> {
  const { bot } = stubBot({ store });
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
  // The first message shows both forms: the pair is learned; the next two come a few ms apart.
  const first = bot.handleUpdate(inbound("hi", {
    id: "K1",
    from: ANA_LID,
    extra: { key: { remoteJid: ANA_LID, remoteJidAlt: ANA, addressingMode: "lid", fromMe: false, id: "K1" } },
  }));
  const byLid = bot.handleUpdate(inbound("by lid", { id: "K2", from: ANA_LID }));
  await new Promise((resolve) => setTimeout(resolve, 3));
  const byPhone = bot.handleUpdate(inbound("by phone", { id: "K3", from: ANA }));
  await started.promise;
  hold.open();
  await Promise.all([first, byLid, byPhone]);
  deepStrictEqual(log, [
    `start:hi:${ANA}`,
    "end:hi",
    `start:by lid:${ANA}`,
    "end:by lid",
    `start:by phone:${ANA}`,
    "end:by phone",
  ]);
  await bot.close();
}

Deno.test("inbound attack (KvStore): a chat's @lid and phone forms a few ms apart are one line", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    await lidAndPhoneAreOneLine(new KvStore(kv));
  } finally {
    kv.close();
  }
});

Deno.test("inbound attack (RedisStore): a chat's @lid and phone forms a few ms apart are one line", async () => {
  const server = await startRedisServer();
  const store = new RedisStore({ url: server.url });
  try {
    await lidAndPhoneAreOneLine(store);
  } finally {
    await store.close();
    await server.close();
  }
});
