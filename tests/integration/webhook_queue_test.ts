/**
 * Queue mode with a Deno KV file in a temporary directory: the handler answers 202 after the job is written,
 * the worker processes it, failures are retried on the backoff schedule and a job that keeps failing is
 * dead-lettered (its webhook log marked failed). Every test closes its KV and awaits the listener.
 */

import { deepStrictEqual, ok, strictEqual } from "node:assert/strict";
import { MetricsCollector } from "../../src/metrics.ts";
import { MemoryStore } from "../../src/backends/memory/store.ts";
import { createWebhookHandler } from "../../src/webhooks/handler.ts";
import type { WebhookPayloadDto } from "../../src/webhooks/payload.ts";
import { WebhookProcessor } from "../../src/webhooks/processor.ts";
import {
  type DeadLetter,
  enqueueWebhookJob,
  listDeadLetters,
  requeueDeadLetter,
  startWebhookWorker,
  type WebhookWorkerOptions,
} from "../../src/webhooks/queue.ts";
import { signWebhook } from "../../src/webhooks/signature.ts";

const SECRET = "queue-secret-5";

interface Fixture {
  kv: Deno.Kv;
  path: string;
}

async function withKv(fn: (fixture: Fixture) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "gw_queue_" });
  const path = `${dir}/queue.sqlite3`;
  const kv = await Deno.openKv(path);
  try {
    await fn({ kv, path });
  } finally {
    try {
      kv.close();
    } catch {
      // Already closed by the test (to stop its worker).
    }
    await Deno.remove(dir, { recursive: true });
  }
}

/** A promise with its resolver, to wait for the worker without sleeping. */
function signal<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => resolve = r);
  return { promise, resolve };
}

async function post(handler: (request: Request) => Promise<Response>, body: string, path = "/sales") {
  const headers = await signWebhook({ body, secret: SECRET });
  const response = await handler(
    new Request(`http://127.0.0.1/gateway/webhook${path}`, { method: "POST", headers, body }),
  );
  return { status: response.status, body: await response.json() };
}

const message = (id: string, text = "hi") =>
  JSON.stringify({
    event: "messages.upsert",
    instance: "sales",
    data: {
      key: { id, remoteJid: "5511999999999@s.whatsapp.net", fromMe: false },
      message: { conversation: text },
    },
  });

Deno.test("queue: 202 after the job is written; the worker runs the handlers and marks the log processed", async () => {
  await withKv(async ({ kv }) => {
    const done = signal<WebhookPayloadDto>();
    const processor = new WebhookProcessor({ log: false }).on(
      "messages.upsert",
      (payload) => done.resolve(payload),
    );
    const store = new MemoryStore();
    const metrics = new MetricsCollector();
    const finished = signal<string>();
    const worker = startWebhookWorker(kv, processor, {
      store,
      metrics,
      onJobDone: (_job, outcome) => finished.resolve(outcome),
    });
    const handler = createWebhookHandler({
      signature: { secret: SECRET },
      processor,
      queue: { enabled: true, kv },
      store,
      metrics,
    });
    deepStrictEqual(await post(handler, message("Q1", "olá 👋")), {
      status: 202,
      body: { ok: true, queued: true },
    });
    const payload = await done.promise;
    strictEqual(payload.messageId, "Q1");
    strictEqual(payload.text, "olá 👋");
    strictEqual(payload.instance, "sales");
    strictEqual(await finished.promise, "processed");
    const logs = await store.listWebhookLogs();
    deepStrictEqual(logs.map((log) => [log.status, log.event, log.instance]), [[
      "processed",
      "MESSAGES_UPSERT",
      "sales",
    ]]);
    strictEqual((await store.getInbound("sales", "Q1"))?.text, "olá 👋");
    strictEqual(metrics.total("gateway_queue_jobs_total", { result: "enqueued" }), 1);
    strictEqual(metrics.total("gateway_webhooks_received_total", { result: "202" }), 1);
    await worker.idle();
    kv.close();
    await worker.finished;
  });
});

Deno.test("queue: failures are retried on the backoff schedule, then dead-lettered with the log marked failed", async () => {
  await withKv(async ({ kv }) => {
    const attempts: number[] = [];
    const processor = new WebhookProcessor({ log: false }).onAny(() => {
      attempts.push(attempts.length + 1);
      throw new Error(`crm down (attempt ${attempts.length})`);
    });
    const store = new MemoryStore();
    const metrics = new MetricsCollector();
    const dead = signal<DeadLetter>();
    const options: WebhookWorkerOptions = {
      store,
      metrics,
      maxAttempts: 3,
      backoffMs: [5, 10],
      onDeadLetter: (entry) => dead.resolve(entry),
    };
    const worker = startWebhookWorker(kv, processor, options);
    const handler = createWebhookHandler({
      signature: { secret: SECRET },
      processor,
      // The handler only writes jobs here (the worker above runs them): the queue's own settings only.
      queue: { enabled: true, kv, maxAttempts: options.maxAttempts, backoffMs: options.backoffMs },
      store,
    });
    strictEqual((await post(handler, message("F1"))).status, 202);
    const entry = await dead.promise;
    deepStrictEqual(attempts, [1, 2, 3]);
    strictEqual(entry.attempts, 3);
    strictEqual(entry.job.attempt, 2);
    strictEqual(
      entry.error,
      'WebhookProcessingException: Cannot process webhook "MESSAGES_UPSERT": crm down (attempt 3)',
    );
    strictEqual(metrics.total("gateway_queue_jobs_total", { result: "retried" }), 2);
    strictEqual(metrics.total("gateway_queue_jobs_total", { result: "dead_lettered" }), 1);
    const letters = await listDeadLetters(kv);
    strictEqual(letters.length, 1);
    strictEqual(letters[0].job.id, entry.job.id);
    const logs = await store.listWebhookLogs({ status: "failed" });
    strictEqual(logs.length, 1);
    ok(logs[0].error?.includes("crm down (attempt 3)"));
    await worker.idle();
    kv.close();
    await worker.finished;
  });
});

Deno.test("queue: a job that fails once is retried and then processed; nothing is dead-lettered", async () => {
  await withKv(async ({ kv }) => {
    let calls = 0;
    const done = signal();
    const processor = new WebhookProcessor({ log: false }).onAny(() => {
      calls++;
      if (calls === 1) throw new Error("flaky");
      done.resolve();
    });
    const store = new MemoryStore();
    const worker = startWebhookWorker(kv, processor, { store, backoffMs: [1] });
    const handler = createWebhookHandler({
      signature: { secret: SECRET },
      processor,
      queue: { enabled: true, kv },
      store,
    });
    strictEqual((await post(handler, message("R1"))).status, 202);
    await done.promise;
    strictEqual(calls, 2);
    deepStrictEqual(await listDeadLetters(kv), []);
    await worker.idle();
    kv.close();
    await worker.finished;
  });
});

Deno.test("queue: a body larger than one KV value travels in chunks and arrives intact", async () => {
  await withKv(async ({ kv }) => {
    const done = signal<WebhookPayloadDto>();
    const processor = new WebhookProcessor({ log: false }).onAny((payload) => done.resolve(payload));
    const worker = startWebhookWorker(kv, processor);
    const chunkKeys = async () =>
      (await Array.fromAsync(kv.list({ prefix: ["gateway", "webhook_queue", "body"] }))).length;
    const handler = createWebhookHandler({
      signature: { secret: SECRET },
      processor,
      queue: { enabled: true, kv },
    });
    const media = "A".repeat(150_000) + "é☕";
    const body = JSON.stringify({
      event: "messages.upsert",
      instance: "sales",
      data: { message: { base64: media } },
    });
    strictEqual((await post(handler, body)).status, 202);
    const payload = await done.promise;
    strictEqual((payload.message as { base64: string }).base64, media);
    await worker.idle();
    strictEqual(await chunkKeys(), 0);
    kv.close();
    await worker.finished;
  });
});

Deno.test("queue: a dead letter can be requeued and then succeeds; other queue messages go to onOtherMessage", async () => {
  await withKv(async ({ kv }) => {
    let broken = true;
    const processed = signal();
    const processor = new WebhookProcessor({ log: false }).onAny(() => {
      if (broken) throw new Error("still broken");
      processed.resolve();
    });
    const dead = signal<DeadLetter>();
    const other = signal<unknown>();
    const worker = startWebhookWorker(kv, processor, {
      maxAttempts: 1,
      onDeadLetter: (entry) => dead.resolve(entry),
      onOtherMessage: (value) => other.resolve(value),
    });
    await kv.enqueue({ type: "something.else", n: 1 });
    deepStrictEqual(await other.promise, { type: "something.else", n: 1 });
    await enqueueWebhookJob(kv, {
      type: "gateway.webhook.process",
      id: "job-1",
      instance: "sales",
      attempt: 0,
      receivedAt: 1,
      body: new TextEncoder().encode(message("D1")),
    });
    const entry = await dead.promise;
    strictEqual(entry.job.id, "job-1");
    broken = false;
    strictEqual(await requeueDeadLetter(kv, "job-1"), true);
    await processed.promise;
    strictEqual(await requeueDeadLetter(kv, "job-1"), false);
    await worker.idle();
    kv.close();
    await worker.finished;
  });
});

Deno.test("queue: a handler with no KV given opens its own on Deno, runs its own worker, and closes both", async () => {
  const dir = await Deno.makeTempDir({ prefix: "gw_queue_own_" });
  try {
    const done = signal<string>();
    const processor = new WebhookProcessor({ log: false }).onAny((payload) =>
      done.resolve(payload.messageId!)
    );
    const handler = createWebhookHandler({
      signature: { secret: SECRET },
      processor,
      queue: { enabled: true, path: `${dir}/own.sqlite3` },
    });
    strictEqual((await post(handler, message("OWN"))).status, 202);
    strictEqual(await done.promise, "OWN");
    await handler.close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
