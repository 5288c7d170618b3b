// processWebhookBatch and CloudflareWebhookQueue against recording fakes of the Queue bindings (the real
// queue, retries and dead-letter queue in workerd: tests/integration/cloudflare_worker_test.ts).
import { deepStrictEqual, rejects, strictEqual, throws } from "node:assert/strict";
import type {
  Message,
  MessageBatch,
  Queue,
  QueueSendOptions,
} from "../../src/backends/cloudflare/bindings.ts";
import { GatewayCoordinator } from "../../src/backends/cloudflare/coordinator.ts";
import { CoordinatorWebhookDedupe } from "../../src/backends/cloudflare/coordinator_dedupe.ts";
import type { DurableObjectNamespace } from "../../src/backends/cloudflare/bindings.ts";
import { CloudflareWebhookQueue, processWebhookBatch } from "../../src/backends/cloudflare/webhook_queue.ts";
import { ConfigurationException } from "../../src/errors.ts";
import { MetricsCollector } from "../../src/metrics.ts";
import { MemoryStore } from "../../src/backends/memory/store.ts";
import { createWebhookHandler } from "../../src/webhooks/handler.ts";
import { WebhookProcessor } from "../../src/webhooks/processor.ts";
import type { DeadLetter, ProcessWebhookJob } from "../../src/webhooks/queue.ts";
import { signWebhook } from "../../src/webhooks/signature.ts";

const encoder = new TextEncoder();

function job(id: string, text: string, extra: Partial<ProcessWebhookJob> = {}): ProcessWebhookJob {
  return {
    type: "gateway.webhook.process",
    id,
    deliveryId: `d-${id}`,
    instance: "sales",
    attempt: 0,
    receivedAt: 1000,
    body: encoder.encode(
      JSON.stringify({ event: "messages.upsert", data: { message: { conversation: text } } }),
    ),
    ...extra,
  };
}

interface Recorded<T> extends Message<T> {
  outcome?: "ack" | { retry: number | undefined };
}

function message<T>(body: T, attempts = 1): Recorded<T> {
  const recorded: Recorded<T> = {
    id: crypto.randomUUID(),
    timestamp: new Date(0),
    body,
    attempts,
    ack: () => recorded.outcome = "ack",
    retry: (options) => recorded.outcome = { retry: options?.delaySeconds },
  };
  return recorded;
}

const batchOf = (...messages: Message[]): MessageBatch => ({ queue: "gateway-webhooks", messages });

Deno.test("processWebhookBatch: acks what succeeds, retries failures on the backoff schedule in whole seconds", async () => {
  const runs: string[] = [];
  const processor = new WebhookProcessor().onAny((payload) => {
    runs.push(payload.text!);
    if (payload.text === "boom") throw new Error("nope");
  });
  const store = new MemoryStore({ now: () => 5000 });
  const metrics = new MetricsCollector();
  const ok = message(job("1", "fine"));
  const first = message(job("2", "boom"), 1);
  const second = message(job("3", "boom"), 2);
  const later = message(job("4", "boom"), 3);
  await processWebhookBatch(batchOf(ok, first, second, later), processor, {
    store,
    metrics,
    maxAttempts: 5,
    backoffMs: [1000, 4500],
    now: () => 5000,
  });
  deepStrictEqual(runs, ["fine", "boom", "boom", "boom"]);
  strictEqual(ok.outcome, "ack");
  deepStrictEqual([first.outcome, second.outcome, later.outcome], [{ retry: 1 }, { retry: 5 }, { retry: 5 }]);
  strictEqual((await store.getWebhookLog("d-1"))?.status, "processed");
  // Not final yet: the log stays "received", with the error.
  strictEqual((await store.getWebhookLog("d-2"))?.status, "received");
  strictEqual(
    (await store.getWebhookLog("d-2"))?.error,
    'WebhookProcessingException: Cannot process webhook "MESSAGES_UPSERT": nope',
  );
});

Deno.test("processWebhookBatch: the last attempt records the dead letter and hands the message to the DLQ", async () => {
  const processor = new WebhookProcessor().onAny(() => {
    throw new Error("still broken");
  });
  const store = new MemoryStore({ now: () => 9000 });
  const dead: DeadLetter[] = [];
  const last = message(job("1", "x"), 4);
  const beyond = message(job("2", "x"), 5);
  await processWebhookBatch(batchOf(last, beyond), processor, {
    store,
    onDeadLetter: (entry) => {
      dead.push(entry);
    },
    now: () => 9000,
  });
  // Default maxAttempts 4 = Cloudflare's default max_retries 3 + 1: the retry moves it to the DLQ.
  deepStrictEqual(last.outcome, { retry: undefined });
  deepStrictEqual(dead.map((entry) => [entry.job.id, entry.attempts, entry.failedAt, entry.error]), [[
    "1",
    4,
    9000,
    'WebhookProcessingException: Cannot process webhook "MESSAGES_UPSERT": still broken',
  ]]);
  strictEqual((await store.getWebhookLog("d-1"))?.status, "failed");
  // Past maxAttempts (wrangler allows more): not run again, passed on towards the DLQ.
  deepStrictEqual(beyond.outcome, { retry: undefined });
  strictEqual(await store.getWebhookLog("d-2"), null);
});

Deno.test("processWebhookBatch: broken jobs are dead-lettered at once; other messages are acknowledged", async () => {
  const dead: string[] = [];
  const others: unknown[] = [];
  const noBody = message(job("1", "x", { body: undefined }));
  const notWebhook = message(job("2", "x", { body: encoder.encode('{"nothing":1}') }));
  const other = message({ kind: "email" });
  await processWebhookBatch(batchOf(noBody, notWebhook, other), new WebhookProcessor(), {
    onDeadLetter: (entry) => {
      dead.push(`${entry.job.id}: ${entry.error}`);
    },
    onOtherMessage: (m) => {
      others.push(m.body);
    },
  });
  deepStrictEqual(dead, ["1: the job's body is missing", "2: the job's body is not a webhook envelope"]);
  deepStrictEqual([noBody.outcome, notWebhook.outcome, other.outcome], ["ack", "ack", "ack"]);
  deepStrictEqual(others, [{ kind: "email" }]);
});

Deno.test("processWebhookBatch: onDeadLetter is awaited and may fail; onJobDone follows; then the message is settled", async () => {
  const events = new Map<string, string[]>();
  const note = (id: string, event: string) => events.set(id, [...events.get(id) ?? [], event]);
  const tracked = (body: ProcessWebhookJob, attempts: number) => {
    const recorded = message(body, attempts);
    recorded.ack = () => note(body.id, "ack");
    recorded.retry = (options) => note(body.id, `retry ${options?.delaySeconds}`);
    return recorded;
  };
  const processor = new WebhookProcessor().onAny((payload) => {
    if (payload.text === "boom") throw new Error("nope");
  });
  await processWebhookBatch(
    batchOf(
      tracked(job("ok", "fine"), 1),
      tracked(job("again", "boom"), 1),
      tracked(job("last", "boom"), 2),
      tracked(job("unreadable", "x", { body: encoder.encode("[]") }), 1),
    ),
    processor,
    {
      maxAttempts: 2,
      backoffMs: [1500],
      onDeadLetter: async (entry) => {
        note(entry.job.id, "dead letter");
        await Promise.resolve();
        if (entry.job.id === "unreadable") throw new Error("alerting is down");
        note(entry.job.id, "alerted");
      },
      onJobDone: (done, outcome) => note(done.id, `${outcome} (attempt ${done.attempt})`),
    },
  );
  deepStrictEqual(Object.fromEntries(events), {
    ok: ["ack", "processed (attempt 0)"],
    again: ["retry 2", "retried (attempt 0)"],
    last: ["dead letter", "alerted", "dead_lettered (attempt 1)", "retry undefined"],
    unreadable: ["dead letter", "dead_lettered (attempt 0)", "ack"],
  });
});

Deno.test("processWebhookBatch: bad settings are refused before any message is touched", async () => {
  const untouched = message(job("1", "x"));
  await rejects(
    () => processWebhookBatch(batchOf(untouched), new WebhookProcessor(), { maxAttempts: 0 }),
    {
      name: "ConfigurationException",
      message: 'Invalid webhook configuration: "queue.maxAttempts" must be a positive integer, got "0"',
    },
  );
  await rejects(
    () => processWebhookBatch(batchOf(untouched), new WebhookProcessor(), { backoffMs: [] }),
    ConfigurationException,
  );
  strictEqual(untouched.outcome, undefined);
});

class RecordingQueue implements Queue {
  sent: { body: unknown; options?: QueueSendOptions }[] = [];
  fail = false;
  send(body: unknown, options?: QueueSendOptions): Promise<void> {
    if (this.fail) return Promise.reject(new Error("queue unavailable"));
    this.sent.push({ body, options });
    return Promise.resolve();
  }
}

Deno.test("CloudflareWebhookQueue: small bodies travel in the message; too large without D1 is refused", async () => {
  const queue = new RecordingQueue();
  const sender = new CloudflareWebhookQueue(queue);
  await sender.enqueue(job("1", "hi"));
  deepStrictEqual(queue.sent, [{ body: job("1", "hi"), options: { contentType: "v8" } }]);
  await rejects(() => sender.enqueue(job("2", "x".repeat(120_000))), {
    name: "WebhookException",
    message:
      /^Cannot queue webhook: its body is \d+ bytes, more than the 100000 a queue message carries; give CloudflareWebhookQueue a D1 database as `bodies`$/,
  });
  strictEqual(queue.sent.length, 1);
});

Deno.test("webhook handler with queue.backend: 202 once queued, 503 with Retry-After when the queue refuses", async () => {
  const secret = "queue-secret-1";
  const queue = new RecordingQueue();
  const handler = createWebhookHandler({
    signature: { secret },
    queue: { enabled: true, backend: new CloudflareWebhookQueue(queue) },
    metrics: false,
  });
  const body = JSON.stringify({ event: "messages.upsert", instance: "sales", data: {} });
  const post = async () =>
    await handler(
      new Request("http://x/gateway/webhook/sales", {
        method: "POST",
        headers: await signWebhook({ body, secret }),
        body,
      }),
    );
  const accepted = await post();
  strictEqual(accepted.status, 202);
  deepStrictEqual(await accepted.json(), { ok: true, queued: true });
  const sent = queue.sent[0].body as ProcessWebhookJob;
  deepStrictEqual([sent.type, sent.instance, sent.attempt, new TextDecoder().decode(sent.body)], [
    "gateway.webhook.process",
    "sales",
    0,
    body,
  ]);
  queue.fail = true;
  const refused = await post();
  strictEqual(refused.status, 503);
  strictEqual(refused.headers.get("retry-after"), "5");
  await refused.body?.cancel();
  await handler.close();
});

Deno.test("GatewayCoordinator needs SQLite storage; coordinator dedupe checks its timings", () => {
  const storage = { getAlarm: () => Promise.resolve(null), setAlarm: () => Promise.resolve() };
  throws(
    () => new GatewayCoordinator({ storage }),
    (error: unknown) =>
      error instanceof ConfigurationException && error.setting === "migrations.new_sqlite_classes" &&
      error.message.startsWith("Cannot start GatewayCoordinator: it needs SQLite storage"),
  );
  const namespace: DurableObjectNamespace = {
    idFromName: () => ({ toString: () => "id" }),
    get: () => ({ fetch: () => Promise.reject(new Error("not called")) }),
  };
  throws(() => new CoordinatorWebhookDedupe(namespace, { windowSeconds: 0 }), {
    name: "ConfigurationException",
    message: 'Invalid webhook configuration: "dedupe.windowSeconds" must be a positive number, got "0"',
  });
});
