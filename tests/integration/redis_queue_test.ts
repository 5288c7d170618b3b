/**
 * Queue mode on Redis, in one process with a fake clock: the handler answers 202 after the job is in
 * Redis; runNext runs due jobs; failures are retried after their backoff delay and dead-lettered; a claim
 * that runs out is taken over; a worker that lost its claim cannot settle the job.
 */

import { deepStrictEqual, rejects, strictEqual, throws } from "node:assert/strict";
import { RedisWebhookQueue } from "../../src/backends/redis/queue.ts";
import { MemoryStore } from "../../src/backends/memory/store.ts";
import { createWebhookHandler } from "../../src/webhooks/handler.ts";
import { WebhookProcessor } from "../../src/webhooks/processor.ts";
import type { ProcessWebhookJob } from "../../src/webhooks/queue.ts";
import { signWebhook } from "../../src/webhooks/signature.ts";
import { withRedisServer } from "../helpers/redis_server.ts";

const SECRET = "redis-queue-secret";
const T0 = 1_760_000_000_000;

const message = (id: string, text = "hi") =>
  JSON.stringify({
    event: "messages.upsert",
    instance: "sales",
    data: {
      key: { id, remoteJid: "5511999999999@s.whatsapp.net", fromMe: false },
      message: { conversation: text },
    },
  });

function job(id: string, body = message(id)): ProcessWebhookJob {
  return {
    type: "gateway.webhook.process",
    id,
    deliveryId: `d-${id}`,
    instance: "sales",
    attempt: 0,
    receivedAt: T0,
    body: new TextEncoder().encode(body),
  };
}

async function withQueue(
  options: { maxAttempts?: number; backoffMs?: number[]; visibilityTimeoutMs?: number },
  body: (queue: RedisWebhookQueue, clock: { t: number }, url: string) => Promise<void>,
): Promise<void> {
  await withRedisServer(async (server) => {
    const clock = { t: T0 };
    const queue = new RedisWebhookQueue({ url: server.url, now: () => clock.t, ...options });
    try {
      await body(queue, clock, server.url);
    } finally {
      await queue.close();
    }
  });
}

Deno.test("RedisWebhookQueue: the handler answers 202 once the job is in Redis; runNext runs it and logs it processed", async () => {
  await withQueue({}, async (queue, clock) => {
    const seen: string[] = [];
    const processor = new WebhookProcessor({ log: false }).on("messages.upsert", (payload) => {
      seen.push(payload.text ?? "");
    });
    const store = new MemoryStore();
    const handler = createWebhookHandler({
      signature: { secret: SECRET },
      processor,
      store,
      metrics: false,
      now: () => clock.t,
      queue: { enabled: true, backend: queue },
    });
    const body = message("M1", "hello redis");
    const headers = await signWebhook({ body, secret: SECRET, timestamp: Math.floor(clock.t / 1000) });
    const response = await handler(
      new Request("http://127.0.0.1/gateway/webhook/sales", { method: "POST", headers, body }),
    );
    deepStrictEqual([response.status, await response.json()], [202, { ok: true, queued: true }]);
    deepStrictEqual(seen, []);
    deepStrictEqual(await queue.counts(), { waiting: 1, running: 0, deadLettered: 0 });
    strictEqual(await queue.runNext(processor, { store }), "processed");
    deepStrictEqual(seen, ["hello redis"]);
    strictEqual(await queue.runNext(processor, { store }), null);
    deepStrictEqual(await queue.counts(), { waiting: 0, running: 0, deadLettered: 0 });
    const logs = await store.listWebhookLogs({ status: "processed" });
    strictEqual(logs.length, 1);
  });
});

Deno.test("RedisWebhookQueue: a failing job is retried after each backoff delay, then dead-lettered and requeued once", async () => {
  await withQueue({ maxAttempts: 3, backoffMs: [1_000, 5_000] }, async (queue, clock) => {
    let runs = 0;
    let fail = true;
    const processor = new WebhookProcessor({ log: false }).on("messages.upsert", () => {
      runs++;
      if (fail) throw new Error("handler down");
    });
    const store = new MemoryStore();
    await queue.enqueue(job("J1"));
    strictEqual(await queue.runNext(processor, { store }), "retried");
    // Not due before its delay.
    clock.t += 999;
    strictEqual(await queue.runNext(processor, { store }), null);
    clock.t += 1;
    strictEqual(await queue.runNext(processor, { store }), "retried");
    clock.t += 4_999;
    strictEqual(await queue.runNext(processor, { store }), null);
    clock.t += 1;
    strictEqual(await queue.runNext(processor, { store }), "dead_lettered");
    strictEqual(runs, 3);
    strictEqual((await store.getWebhookLog("d-J1"))?.status, "failed");
    const dead = await queue.listDeadLetters();
    strictEqual(dead.length, 1);
    deepStrictEqual(
      [dead[0].job.id, dead[0].job.attempt, dead[0].attempts, dead[0].error, dead[0].failedAt],
      [
        "J1",
        2,
        3,
        'WebhookProcessingException: Cannot process webhook "MESSAGES_UPSERT": handler down',
        clock.t,
      ],
    );
    deepStrictEqual(new TextDecoder().decode(dead[0].job.body), message("J1"));
    // Requeued with a fresh attempt count, once.
    fail = false;
    strictEqual(await queue.requeueDeadLetter("J1"), true);
    strictEqual(await queue.requeueDeadLetter("J1"), false);
    deepStrictEqual(await queue.listDeadLetters(), []);
    strictEqual(await queue.runNext(processor, { store }), "processed");
    strictEqual(runs, 4);
    deepStrictEqual(await queue.counts(), { waiting: 0, running: 0, deadLettered: 0 });
  });
});

Deno.test("RedisWebhookQueue: jobs run in due order; a delayed job waits for its time", async () => {
  await withQueue({}, async (queue, clock) => {
    const order: string[] = [];
    const processor = new WebhookProcessor({ log: false }).on("messages.upsert", (payload) => {
      order.push(payload.text ?? "");
    });
    await queue.enqueue(job("late", message("late", "late")), { delay: 10_000 });
    await queue.enqueue(job("a", message("a", "a")));
    clock.t += 1;
    await queue.enqueue(job("b", message("b", "b")));
    while (await queue.runNext(processor) !== null) { /* drain what is due */ }
    deepStrictEqual(order, ["a", "b"]);
    clock.t += 10_000;
    strictEqual(await queue.runNext(processor), "processed");
    deepStrictEqual(order, ["a", "b", "late"]);
  });
});

Deno.test("RedisWebhookQueue: a claim that runs out is taken over; the first worker can no longer settle the job", async () => {
  await withQueue({ visibilityTimeoutMs: 30_000 }, async (queue, clock, url) => {
    const other = new RedisWebhookQueue({ url, now: () => clock.t, visibilityTimeoutMs: 30_000 });
    try {
      let release!: () => void;
      const parked = new Promise<void>((resolve) => release = resolve);
      let started!: () => void;
      const running = new Promise<void>((resolve) => started = resolve);
      const runs: string[] = [];
      const slow = new WebhookProcessor({ log: false }).on("messages.upsert", async () => {
        runs.push("first");
        started();
        await parked;
        throw new Error("failed after losing its claim");
      });
      const fast = new WebhookProcessor({ log: false }).on("messages.upsert", () => {
        runs.push("second");
      });
      await queue.enqueue(job("J"));
      const first = queue.runNext(slow);
      await running;
      // Still claimed: nobody else gets it.
      strictEqual(await other.runNext(fast), null);
      deepStrictEqual(await queue.counts(), { waiting: 0, running: 1, deadLettered: 0 });
      // The first worker stops renewing (as if it died): the claim runs out and the job is taken over.
      clock.t += 30_000;
      strictEqual(await other.runNext(fast), "processed");
      release();
      // Its failure would schedule a retry, but the claim is no longer its own: nothing is put back.
      strictEqual(await first, "retried");
      deepStrictEqual(runs, ["first", "second"]);
      deepStrictEqual(await queue.counts(), { waiting: 0, running: 0, deadLettered: 0 });
      clock.t += 600_000;
      strictEqual(await queue.runNext(fast), null);
    } finally {
      await other.close();
    }
  });
});

Deno.test("RedisWebhookQueue: a started worker runs due jobs until stopped; close stops it", async () => {
  await withRedisServer(async (server) => {
    const queue = new RedisWebhookQueue({ url: server.url, pollIntervalMs: 20 });
    let done!: (id: string) => void;
    const processed = new Promise<string>((resolve) => done = resolve);
    const processor = new WebhookProcessor({ log: false });
    queue.startWorker(processor, { onJobDone: (job, outcome) => outcome === "processed" && done(job.id) });
    await queue.enqueue(job("W1"));
    strictEqual(await processed, "W1");
    await queue.close();
  });
});

Deno.test("RedisWebhookQueue: settings are validated; an unreachable Redis makes the handler answer 503", async () => {
  throws(() => new RedisWebhookQueue({ url: "redis://127.0.0.1:1", maxAttempts: 0 }), /maxAttempts/);
  throws(
    () => new RedisWebhookQueue({ url: "redis://127.0.0.1:1", visibilityTimeoutMs: 0 }),
    /visibilityTimeoutMs/,
  );
  const queue = new RedisWebhookQueue({ url: "redis://127.0.0.1:1", connectTimeoutMs: 200 });
  try {
    await rejects(queue.enqueue(job("x")), { name: "ConnectionException" });
    const handler = createWebhookHandler({
      signature: { secret: SECRET },
      metrics: false,
      queue: { enabled: true, backend: queue },
    });
    const body = message("M2");
    const headers = await signWebhook({ body, secret: SECRET });
    const response = await handler(
      new Request("http://127.0.0.1/gateway/webhook/sales", { method: "POST", headers, body }),
    );
    strictEqual(response.status, 503);
    await response.body?.cancel();
  } finally {
    await queue.close();
  }
});

Deno.test("RedisWebhookQueue: a live worker renews its claim, so a slow job is not taken over", async () => {
  await withRedisServer(async (server) => {
    // deno-lint-ignore no-import-prefix -- only ./redis users install the client (not in the import map)
    const { createClient } = await import("npm:@redis/client@6.3.1");
    const client = createClient({ url: server.url });
    await client.connect();
    let renewed!: () => void;
    const renewal = new Promise<void>((resolve) => renewed = resolve);
    // The application's own client, watched for the worker's renewal.
    const watched = {
      sendCommand: async (args: string[]) => {
        const reply = await client.sendCommand(args);
        // A renewal sent after the clock moved: its new deadline is the moved time + 30 ms.
        if (args.includes("renew") && args.includes(String(T0 + 1_030))) renewed();
        return reply;
      },
    };
    const clock = { t: T0 };
    const queue = new RedisWebhookQueue({ client: watched, now: () => clock.t, visibilityTimeoutMs: 30 });
    const other = new RedisWebhookQueue({ url: server.url, now: () => clock.t, visibilityTimeoutMs: 30 });
    try {
      let release!: () => void;
      const parked = new Promise<void>((resolve) => release = resolve);
      let started!: () => void;
      const running = new Promise<void>((resolve) => started = resolve);
      const runs: string[] = [];
      const slow = new WebhookProcessor({ log: false }).on("messages.upsert", async () => {
        runs.push("first");
        started();
        await parked;
      });
      const fast = new WebhookProcessor({ log: false }).on("messages.upsert", () => {
        runs.push("second");
      });
      await queue.enqueue(job("J"));
      const first = queue.runNext(slow);
      await running;
      clock.t += 1_000; // far past the first claim's deadline
      await renewal; // the worker renewed it from the new time
      strictEqual(await other.runNext(fast), null);
      release();
      strictEqual(await first, "processed");
      deepStrictEqual(runs, ["first"]);
      deepStrictEqual(await other.counts(), { waiting: 0, running: 0, deadLettered: 0 });
      strictEqual(client.isOpen, true);
    } finally {
      await queue.close();
      await other.close();
      await client.close();
    }
  });
});
