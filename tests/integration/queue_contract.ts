// The webhook queue contract: every queue engine (Deno KV, Redis) runs this suite behind the webhook
// handler, with real workers; waits are on signals from the worker, never on time.
import { deepStrictEqual, strictEqual } from "node:assert/strict";
import { MetricsCollector } from "../../src/metrics.ts";
import { MemoryStore } from "../../src/backends/memory/store.ts";
import { createWebhookHandler, type WebhookHandlerQueueOptions } from "../../src/webhooks/handler.ts";
import { WebhookProcessor } from "../../src/webhooks/processor.ts";
import type { DeadLetter, WebhookJobOutcome, WebhookWorkerOptions } from "../../src/webhooks/queue.ts";
import type { ProcessWebhookJob } from "../../src/webhooks/queue.ts";
import { signWebhook } from "../../src/webhooks/signature.ts";

/** The retry settings a test asks for. */
export interface QueueSettings {
  maxAttempts: number;
  backoffMs: number[];
}

/** One queue engine, opened for one test. */
export interface QueueEngine {
  /** What the handler's `queue` option is for this engine. */
  handlerQueue: WebhookHandlerQueueOptions;
  /** Start a worker that runs jobs through `processor`. */
  startWorker(processor: WebhookProcessor, options: Omit<WebhookWorkerOptions, "prefix">): void;
  listDeadLetters(): Promise<DeadLetter[]>;
  requeueDeadLetter(id: string): Promise<boolean>;
  /** Stop the workers and release everything. */
  close(): Promise<void>;
}

/** An engine under test. */
export interface QueueHarness {
  name: string;
  open(settings: QueueSettings): Promise<QueueEngine>;
}

const SECRET = "queue-contract-secret";

function signal<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => resolve = r);
  return { promise, resolve };
}

const message = (id: string, text: string) =>
  JSON.stringify({
    event: "messages.upsert",
    instance: "sales",
    data: {
      key: { id, remoteJid: "5511999999999@s.whatsapp.net", fromMe: false },
      message: { conversation: text },
    },
  });

async function post(handler: (request: Request) => Promise<Response>, body: string) {
  const headers = await signWebhook({ body, secret: SECRET });
  const response = await handler(
    new Request("http://127.0.0.1/gateway/webhook/sales", { method: "POST", headers, body }),
  );
  return `${response.status} ${await response.text()}`;
}

/** Register the contract tests for one engine. */
export function queueContract(harness: QueueHarness): void {
  const test = (name: string, settings: QueueSettings, body: (engine: QueueEngine) => Promise<void>) =>
    Deno.test(`${harness.name} queue contract: ${name}`, async () => {
      const engine = await harness.open(settings);
      try {
        await body(engine);
      } finally {
        await engine.close();
      }
    });

  test(
    "202 once the job is written; a worker runs the handlers once and logs it processed",
    { maxAttempts: 5, backoffMs: [5] },
    async (engine) => {
      const texts: string[] = [];
      const processor = new WebhookProcessor({ log: false }).on("messages.upsert", (payload) => {
        texts.push(payload.text ?? "");
      });
      const store = new MemoryStore();
      const metrics = new MetricsCollector();
      const done = signal<WebhookJobOutcome>();
      const handler = createWebhookHandler({
        signature: { secret: SECRET },
        processor,
        store,
        metrics,
        queue: engine.handlerQueue,
      });
      strictEqual(await post(handler, message("C1", "olá 👋")), '202 {"ok":true,"queued":true}');
      engine.startWorker(processor, { store, metrics, onJobDone: (_job, outcome) => done.resolve(outcome) });
      strictEqual(await done.promise, "processed");
      deepStrictEqual(texts, ["olá 👋"]);
      deepStrictEqual((await store.listWebhookLogs()).map((log) => log.status), ["processed"]);
      strictEqual(metrics.total("gateway_queue_jobs_total", { result: "enqueued" }), 1);
      strictEqual(metrics.total("gateway_queue_jobs_total", { result: "processed" }), 1);
      await handler.close();
    },
  );

  test(
    "a failing job is retried on the backoff schedule, dead-lettered after maxAttempts, and requeued once",
    { maxAttempts: 3, backoffMs: [5, 10] },
    async (engine) => {
      let failing = true;
      let runs = 0;
      const processor = new WebhookProcessor({ log: false }).onAny(() => {
        runs++;
        if (failing) throw new Error(`crm down (run ${runs})`);
      });
      const store = new MemoryStore();
      const outcomes: WebhookJobOutcome[] = [];
      const dead = signal<DeadLetter>();
      let processed!: () => void;
      const processedOnce = new Promise<void>((resolve) => processed = resolve);
      const handler = createWebhookHandler({
        signature: { secret: SECRET },
        processor,
        store,
        metrics: false,
        queue: engine.handlerQueue,
      });
      engine.startWorker(processor, {
        store,
        onDeadLetter: (entry) => dead.resolve(entry),
        onJobDone: (_job: ProcessWebhookJob, outcome) => {
          outcomes.push(outcome);
          if (outcome === "processed") processed();
        },
      });
      strictEqual(await post(handler, message("C2", "retry me")), '202 {"ok":true,"queued":true}');
      const entry = await dead.promise;
      strictEqual(runs, 3);
      deepStrictEqual([entry.attempts, entry.job.attempt, entry.error], [
        3,
        2,
        'WebhookProcessingException: Cannot process webhook "MESSAGES_UPSERT": crm down (run 3)',
      ]);
      const logs = await store.listWebhookLogs();
      deepStrictEqual(logs.map((log) => log.status), ["failed"]);
      const listed = await engine.listDeadLetters();
      deepStrictEqual(listed.map((letter) => letter.job.id), [entry.job.id]);
      failing = false;
      strictEqual(await engine.requeueDeadLetter(entry.job.id), true);
      strictEqual(await engine.requeueDeadLetter(entry.job.id), false);
      await processedOnce;
      strictEqual(runs, 4);
      deepStrictEqual(outcomes.slice(0, 3), ["retried", "retried", "dead_lettered"]);
      deepStrictEqual(await engine.listDeadLetters(), []);
      await handler.close();
    },
  );
}
