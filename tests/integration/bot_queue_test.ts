// Fast answers: with a queue (Deno KV) or waitUntil (Workers) the receiver answers at once and the bot runs
// after, with the same guarantees (claims, idempotent replies).
import { deepStrictEqual, strictEqual } from "node:assert/strict";
import { signedWebhookRequest } from "../../src/testing/mod.ts";
import { gate, inbound, INSTANCE, stubBot } from "../helpers/bot.ts";

const URL_ = `http://bot.test/gateway/webhook/${INSTANCE}`;
const SECRET = "bot-queue-secret-7";

Deno.test("queue mode (Deno KV): 202 before a long handler runs; the handler runs once, later", async () => {
  const dir = await Deno.makeTempDir({ prefix: "gw_bot_queue_" });
  const { bot, stub } = stubBot({
    signature: { scheme: "hmac", secret: SECRET },
    queue: { mode: "kv", path: `${dir}/queue.kv` },
    dedupe: true,
  });
  const started = gate();
  const hold = gate();
  const replied = gate();
  let runs = 0;
  bot.on("message:text", async (ctx) => {
    runs++;
    started.open();
    await hold.promise; // a handler far slower than the server's 30 s budget
    await ctx.reply(`done: ${ctx.text}`);
    replied.open();
  });
  try {
    const body = inbound("slow job", { id: "QK1" });
    const res = await bot.fetch(await signedWebhookRequest(URL_, body, { secret: SECRET }));
    strictEqual(res.status, 202);
    await res.body?.cancel();
    await started.promise; // the worker runs it after the answer
    const again = await bot.fetch(await signedWebhookRequest(URL_, body, { secret: SECRET }));
    strictEqual(again.status, 200); // a redelivery while it runs: already queued
    await again.body?.cancel();
    hold.open();
    await replied.promise;
    strictEqual(runs, 1);
    deepStrictEqual(stub.texts(), ["done: slow job"]);
  } finally {
    hold.open();
    await bot.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("waitUntil (Workers): 202 at once, the bot runs inside waitUntil with its claims", async () => {
  const { bot, stub } = stubBot({
    signature: { scheme: "hmac", secret: SECRET },
    queue: { mode: "wait_until" },
  });
  const hold = gate();
  let runs = 0;
  bot.on("message:text", async (ctx) => {
    runs++;
    await hold.promise;
    await ctx.reply("after the answer");
  });
  const pending: Promise<unknown>[] = [];
  const ctx = { waitUntil: (promise: Promise<unknown>) => void pending.push(promise) };
  const body = inbound("hi", { id: "QW1" });
  for (let i = 0; i < 2; i++) {
    const res = await bot.fetch(await signedWebhookRequest(URL_, body, { secret: SECRET }), {}, ctx);
    strictEqual(res.status, 202);
    await res.body?.cancel();
  }
  hold.open();
  await Promise.all(pending);
  strictEqual(runs, 1); // the second delivery found the message claimed
  deepStrictEqual(stub.texts(), ["after the answer"]);
  await bot.close();
});
