/**
 * Queue mode on Cloudflare Workers: the webhook handler puts each verified webhook on a Cloudflare Queue
 * (`CloudflareWebhookQueue` as its `queue.backend`) and answers 202; the Worker's `queue()` handler runs them
 * with {@link processWebhookBatch}. A failing job is retried with `message.retry({ delaySeconds })` on the
 * backoff schedule; after its last attempt it is recorded as a dead letter and handed to the queue's
 * dead-letter queue (wrangler's `max_retries` and `dead_letter_queue`). At least once, like the KV queue.
 *
 * @module
 */

import { checkOptionKeys } from "../../option_keys.ts";
import { WebhookException } from "../../errors.ts";
import { getGatewayLogger } from "../../log.ts";
import type { MetricsCollector } from "../../metrics.ts";
import type { GatewayStore } from "../../store/store.ts";
import type { WebhookProcessor } from "../../webhooks/processor.ts";
import {
  type DeadLetter,
  isProcessWebhookJob,
  type ProcessWebhookJob,
  type WebhookJobOutcome,
  type WebhookJobQueue,
  webhookQueueSettings,
} from "../../webhooks/queue/interface.ts";
import { settleWebhookJob, type WebhookJobSettler } from "../../webhooks/queue/settler.ts";
import { describeError } from "../../webhooks/run.ts";
import type { D1Database, Message, MessageBatch, Queue } from "./bindings.ts";

const logger = getGatewayLogger("webhook", "queue");

/** Bodies up to this size travel in the message (a Cloudflare Queue message holds at most 128 KB). */
export const QUEUE_INLINE_BODY_BYTES = 100_000;
const DEFAULT_BACKOFF = [1_000, 5_000, 30_000, 120_000, 600_000];
/** Cloudflare's default `max_retries` is 3: four deliveries in all. */
const DEFAULT_MAX_ATTEMPTS = 4;

/** Options of {@link CloudflareWebhookQueue}. */
export interface CloudflareWebhookQueueOptions {
  /** Where bodies too large for a message go (`gateway_webhook_bodies`); without it they get 503. */
  bodies?: D1Database;
}

/**
 * The webhook handler's `queue.backend` for a Cloudflare Queue: each job is one message (its body inline up
 * to 100 000 bytes, else written to D1 first when `bodies` is given).
 *
 * @example
 * ```ts
 * import { createWebhookHandler } from "@gw/gateway";
 * import { CloudflareWebhookQueue, type D1Database, type Queue } from "@gw/gateway/cloudflare";
 * interface Env {
 *   WEBHOOK_QUEUE: Queue;
 *   DB: D1Database;
 *   GATEWAY_WEBHOOK_SECRET: string;
 * }
 * export default {
 *   fetch(request: Request, env: Env) {
 *     const handler = createWebhookHandler({
 *       signature: { secret: env.GATEWAY_WEBHOOK_SECRET },
 *       queue: { enabled: true, backend: new CloudflareWebhookQueue(env.WEBHOOK_QUEUE, { bodies: env.DB }) },
 *     });
 *     return handler(request);
 *   },
 * };
 * ```
 */
export class CloudflareWebhookQueue implements WebhookJobQueue {
  readonly #queue: Queue;
  readonly #bodies: D1Database | undefined;

  /** Send jobs to `queue` (a producer binding). */
  constructor(queue: Queue, options: CloudflareWebhookQueueOptions = {}) {
    checkOptionKeys(options, { bodies: true }, "new CloudflareWebhookQueue");
    this.#queue = queue;
    this.#bodies = options.bodies;
  }

  /** Queue one job; rejects when it cannot be queued. */
  async enqueue(job: ProcessWebhookJob): Promise<void> {
    const size = job.body?.byteLength ?? 0;
    if (job.body === undefined || size <= QUEUE_INLINE_BODY_BYTES) {
      await this.#queue.send(job, { contentType: "v8" });
      return;
    }
    if (this.#bodies === undefined) {
      throw new WebhookException(
        `Cannot queue webhook: its body is ${size} bytes, more than the ${QUEUE_INLINE_BODY_BYTES} a queue ` +
          "message carries; give CloudflareWebhookQueue a D1 database as `bodies`",
      );
    }
    await this.#bodies.prepare("INSERT INTO gateway_webhook_bodies (id, body, created_at) VALUES (?, ?, ?)")
      .bind(job.id, job.body, job.receivedAt).run();
    const { body: _body, ...rest } = job;
    await this.#queue.send({ ...rest, chunks: 1 }, { contentType: "v8" });
  }
}

/** Options of {@link processWebhookBatch}. */
export interface WebhookBatchOptions {
  /**
   * Deliveries before a job is dead-lettered (default 4): wrangler's `max_retries` + 1, so the last
   * attempt here precedes the queue's move to its dead-letter queue.
   */
  maxAttempts?: number;
  /** Delay before each retry, in ms, rounded up to whole seconds; the last value repeats (default 1 s, 5 s, 30 s, 2 min, 10 min). */
  backoffMs?: readonly number[];
  /** Webhook logs are marked processed or failed here. */
  store?: GatewayStore;
  /** Where `CloudflareWebhookQueue` wrote bodies too large for a message. */
  bodies?: D1Database;
  /** Metrics (`queueJob`, `webhookProcessed`). */
  metrics?: MetricsCollector;
  /** Messages that are not webhook jobs (default: logged and acknowledged). */
  onOtherMessage?: (message: Message) => void | Promise<void>;
  /** Called after a job was dead-lettered. */
  onDeadLetter?: (entry: DeadLetter) => void | Promise<void>;
  /** Called after each run of a job, with what happened. */
  onJobDone?: (job: ProcessWebhookJob, outcome: WebhookJobOutcome) => void;
  /** Clock, epoch ms (default `Date.now`). */
  now?: () => number;
}

function settings(options: WebhookBatchOptions) {
  // The same checks (and ConfigurationException) as every queue engine; only the default differs: 4
  // attempts, wrangler's default max_retries (3) + 1.
  const { maxAttempts, backoff } = webhookQueueSettings({
    maxAttempts: options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS,
    backoffMs: options.backoffMs ?? DEFAULT_BACKOFF,
  });
  return { maxAttempts, backoff };
}

function bytesOf(value: unknown): Uint8Array | null {
  if (value instanceof Uint8Array) return value;
  if (value instanceof ArrayBuffer) return new Uint8Array(value);
  if (Array.isArray(value)) return new Uint8Array(value);
  return null;
}

async function loadBody(job: ProcessWebhookJob, bodies: D1Database | undefined): Promise<Uint8Array | null> {
  if (job.body !== undefined) return bytesOf(job.body);
  if (job.chunks === undefined || bodies === undefined) return null;
  const { results } = await bodies.prepare("SELECT body FROM gateway_webhook_bodies WHERE id = ?").bind(
    job.id,
  )
    .all<{ body: unknown }>();
  return results.length === 0 ? null : bytesOf(results[0].body);
}

async function deleteBody(job: ProcessWebhookJob, bodies: D1Database | undefined): Promise<void> {
  if (job.chunks === undefined || bodies === undefined) return;
  await bodies.prepare("DELETE FROM gateway_webhook_bodies WHERE id = ?").bind(job.id).run();
}

/**
 * Run a batch from a Worker's `queue()` handler: each webhook job is processed and acknowledged, or retried
 * with `message.retry({ delaySeconds })` from the backoff schedule. On its last attempt (`maxAttempts`) a
 * failing job is recorded as a dead letter (logged as an error, counted, its webhook log marked failed,
 * `onDeadLetter` called) and retried once more, which makes the queue move it to the `dead_letter_queue` of
 * wrangler.toml. A job whose body is missing or not a webhook is dead-lettered at once. One failing job
 * never holds back the others of the batch.
 *
 * @example
 * ```ts
 * import { WebhookProcessor } from "@gw/gateway";
 * import { type MessageBatch, processWebhookBatch } from "@gw/gateway/cloudflare";
 * const processor = new WebhookProcessor().on("messages.upsert", (payload) => console.log(payload.text));
 * export default {
 *   queue(batch: MessageBatch) {
 *     return processWebhookBatch(batch, processor, { maxAttempts: 5 }); // wrangler: max_retries = 4
 *   },
 * };
 * ```
 */
export async function processWebhookBatch(
  batch: MessageBatch,
  processor: WebhookProcessor,
  options: WebhookBatchOptions = {},
): Promise<void> {
  const limits = settings(options);
  await Promise.all(batch.messages.map((message) => runMessage(message, processor, options, limits)));
}

async function runMessage(
  message: Message,
  processor: WebhookProcessor,
  options: WebhookBatchOptions,
  { maxAttempts, backoff }: { maxAttempts: number; backoff: readonly number[] },
): Promise<void> {
  const job = message.body;
  if (!isProcessWebhookJob(job)) return await runOtherMessage(message, options);
  const now = options.now ?? Date.now;
  const attempts = message.attempts;
  const run = { ...job, attempt: attempts - 1 };
  if (attempts > maxAttempts) {
    // Only when maxAttempts is below wrangler's max_retries + 1: the job was dead-lettered already.
    logger.warn("Webhook job {id} is past its {maxAttempts} attempts: handing it to the dead-letter queue", {
      id: job.id,
      maxAttempts,
    });
    message.retry();
    return;
  }
  let cause = "failed" as "unreadable" | "failed";
  let notified: Promise<void> = Promise.resolve();
  try {
    const body = await loadBody(job, options.bodies);
    const outcome = await settleWebhookJob(run, body, processor, {
      maxAttempts,
      backoffMs: backoff,
      store: options.store,
      metrics: options.metrics,
      now,
      onDeadLetter: (entry) => {
        notified = notifyDeadLetter(options, job.id, entry);
      },
    }, messageSettler(message, job, options, (why) => cause = why));
    if (outcome === "processed") message.ack();
    if (outcome === "dead_lettered") await notified;
    options.onJobDone?.(run, outcome);
    if (outcome !== "dead_lettered") return;
    // A job that never ran is done with; one whose last attempt failed is retried once more, which makes the
    // queue move it to wrangler's dead_letter_queue.
    if (cause === "unreadable") message.ack();
    else message.retry();
  } catch (error) {
    // The store or D1 failed around the handlers: deliver the job again rather than lose it.
    logger.warn("Webhook job {id} could not be run: {error}", { id: job.id, error: describeError(error) });
    message.retry({ delaySeconds: Math.ceil(backoff[Math.min(attempts - 1, backoff.length - 1)] / 1000) });
  }
}

/**
 * The settler of a queue message: a retry is the message's own, a dead letter only notes its cause (the
 * caller acks or retries the message by it), and a completed job's stored body is deleted.
 */
function messageSettler(
  message: Message,
  job: ProcessWebhookJob,
  options: WebhookBatchOptions,
  deadLettered: (cause: "unreadable" | "failed") => void,
): WebhookJobSettler {
  return {
    retry(_next, delay) {
      message.retry({ delaySeconds: Math.ceil(delay / 1000) });
      return Promise.resolve();
    },
    deadLetter(_entry, why) {
      // Recorded by settleWebhookJob; the queue itself keeps the message (see runMessage).
      deadLettered(why);
      return Promise.resolve();
    },
    async complete() {
      await deleteBody(job, options.bodies);
      return true;
    },
  };
}

/** A message that is not a webhook job: `onOtherMessage` takes it, or it is dropped with a warning. */
async function runOtherMessage(message: Message, options: WebhookBatchOptions): Promise<void> {
  try {
    if (options.onOtherMessage !== undefined) await options.onOtherMessage(message);
    else logger.warn("Ignoring a queue message that is not a webhook job");
    message.ack();
  } catch (error) {
    logger.warn("A queue message that is not a webhook job failed: {error}", {
      error: describeError(error),
    });
    message.retry();
  }
}

/** Tell `onDeadLetter`; its failure is logged, never thrown into the queue. */
async function notifyDeadLetter(options: WebhookBatchOptions, id: string, entry: DeadLetter): Promise<void> {
  try {
    await options.onDeadLetter?.(entry);
  } catch (failure) {
    logger.warn("onDeadLetter failed for webhook job {id}: {error}", {
      id,
      error: describeError(failure),
    });
  }
}
