/**
 * Queue mode on Deno: a verified webhook is written as a {@link ProcessWebhookJob} with `Deno.Kv.enqueue`
 * before the handler answers 202, and a worker ({@link startWebhookWorker}) processes the jobs. A job that
 * fails is enqueued again with a delay from the backoff schedule; one that keeps failing goes to a
 * dead-letter list (and its webhook log is marked failed) instead of being dropped.
 *
 * A KV value holds at most 64 KiB, so a larger body (base64 media) is written in chunks beside the job.
 *
 * @module
 */

import { WebhookException } from "../errors.ts";
import { getGatewayLogger } from "../log.ts";
import type { MetricsCollector } from "../metrics.ts";
import type { GatewayStore } from "../store/store.ts";
import { WebhookPayloadDto } from "./payload.ts";
import type { WebhookProcessor } from "./processor.ts";
import { describeError, runWebhook, saveWebhookLog } from "./run.ts";

/** The `type` of every webhook job, to tell them from other messages on the same KV queue. */
export const WEBHOOK_JOB_TYPE = "gateway.webhook.process";

/** One verified webhook waiting to be processed. */
export interface ProcessWebhookJob {
  /** Always {@link WEBHOOK_JOB_TYPE}. */
  type: "gateway.webhook.process";
  /** Job id (a UUID; also the dead-letter key). */
  id: string;
  /** Delivery id (`webhook-id` or body digest), the webhook log id, when known. */
  deliveryId?: string;
  /** Instance name from the URL. */
  instance: string;
  /** Event name from the byEvents URL suffix, when there was one. */
  event?: string;
  /** The raw body, when it fits in the job. */
  body?: Uint8Array;
  /** Otherwise the number of chunks the body was written in. */
  chunks?: number;
  /** Attempts made so far (0 for a new job). */
  attempt: number;
  /** When the webhook arrived (epoch ms). */
  receivedAt: number;
}

/**
 * A queue the webhook handler hands verified webhooks to instead of Deno KV (its `queue.backend`):
 * `RedisWebhookQueue` from `@gw/gateway/redis`, `CloudflareWebhookQueue` from `@gw/gateway/cloudflare`, or
 * your own.
 *
 * @example A queue that keeps jobs in an array
 * ```ts
 * import type { ProcessWebhookJob } from "@gw/gateway";
 * import type { WebhookJobQueue } from "@gw/gateway/webhooks";
 * const jobs: ProcessWebhookJob[] = [];
 * const queue: WebhookJobQueue = { enqueue: (job) => (jobs.push(job), Promise.resolve()) };
 * ```
 */
export interface WebhookJobQueue {
  /** Keep `job` until a worker runs it; reject when it cannot (the handler then answers 503). */
  enqueue(job: ProcessWebhookJob): Promise<void>;
}

/** A job that failed for good. */
export interface DeadLetter {
  /** The job as it was last run. */
  job: ProcessWebhookJob;
  /** The last error. */
  error: string;
  /** Attempts made. */
  attempts: number;
  /** When it was dead-lettered (epoch ms; 0 when the KV queue itself gave up delivering it). */
  failedAt: number;
}

/** Where jobs live and how failures are retried. */
export interface WebhookQueueOptions {
  /** KV key prefix for chunks and dead letters (default `["gateway", "webhook_queue"]`). */
  prefix?: Deno.KvKey;
  /** Attempts before a job is dead-lettered (default 5). */
  max_attempts?: number;
  /** Delay before each retry, in ms; the last value repeats (default 1 s, 5 s, 30 s, 2 min, 10 min). */
  backoff_ms?: readonly number[];
}

const DEFAULT_PREFIX: Deno.KvKey = ["gateway", "webhook_queue"];
const DEFAULT_BACKOFF = [1_000, 5_000, 30_000, 120_000, 600_000];
const INLINE_LIMIT = 60_000;
const CHUNK_SIZE = 60_000;
const CHUNKS_PER_COMMIT = 8;

const logger = getGatewayLogger("webhook", "queue");

/** The queue settings, checked: attempts and backoff for every engine, the KV prefix. Internal. */
export function webhookQueueSettings(
  options: WebhookQueueOptions,
): { prefix: Deno.KvKey; maxAttempts: number; backoff: readonly number[] } {
  const maxAttempts = options.max_attempts ?? 5;
  if (!Number.isInteger(maxAttempts) || maxAttempts < 1) {
    throw new WebhookException(`Invalid webhook configuration: "queue.max_attempts" must be an integer >= 1`);
  }
  const backoff = options.backoff_ms ?? DEFAULT_BACKOFF;
  if (backoff.length === 0 || backoff.some((ms) => !Number.isFinite(ms) || ms < 0)) {
    throw new WebhookException(`Invalid webhook configuration: "queue.backoff_ms" must be numbers >= 0`);
  }
  return { prefix: options.prefix ?? DEFAULT_PREFIX, maxAttempts, backoff };
}

/**
 * Whether a queue message is a webhook job (for a `listenQueue` handler shared with other work).
 *
 * @example
 * ```ts
 * import { isProcessWebhookJob } from "@gw/gateway/webhooks";
 * isProcessWebhookJob({ type: "gateway.webhook.process", id: "1", instance: "sales", attempt: 0, receivedAt: 0 }); // true
 * ```
 */
export function isProcessWebhookJob(value: unknown): value is ProcessWebhookJob {
  if (value === null || typeof value !== "object") return false;
  const job = value as Record<string, unknown>;
  return job.type === WEBHOOK_JOB_TYPE && typeof job.id === "string" && typeof job.attempt === "number";
}

/**
 * Write a job to the KV queue (its body in chunks when it is too large for one value).
 *
 * @example
 * ```ts
 * import { enqueueWebhookJob } from "./queue.ts";
 * const kv = await Deno.openKv(":memory:");
 * await enqueueWebhookJob(kv, {
 *   type: "gateway.webhook.process", id: crypto.randomUUID(), instance: "sales", attempt: 0, receivedAt: Date.now(),
 *   body: new TextEncoder().encode('{"event":"call","data":{}}'),
 * });
 * kv.close();
 * ```
 */
export async function enqueueWebhookJob(
  kv: Deno.Kv,
  job: ProcessWebhookJob,
  options: WebhookQueueOptions & { delay?: number } = {},
): Promise<void> {
  const { prefix } = webhookQueueSettings(options);
  let value = job;
  if (job.body !== undefined && job.body.byteLength > INLINE_LIMIT) {
    const body = job.body;
    const count = Math.ceil(body.byteLength / CHUNK_SIZE);
    for (let first = 0; first < count; first += CHUNKS_PER_COMMIT) {
      const op = kv.atomic();
      for (let i = first; i < Math.min(count, first + CHUNKS_PER_COMMIT); i++) {
        op.set([...prefix, "body", job.id, i], body.slice(i * CHUNK_SIZE, (i + 1) * CHUNK_SIZE));
      }
      const result = await op.commit();
      if (!result.ok) throw new WebhookException("Cannot queue webhook: writing the body failed");
    }
    value = { ...job, body: undefined, chunks: count };
    delete value.body;
  }
  await kv.enqueue(value, {
    delay: options.delay,
    keysIfUndelivered: [[...prefix, "dead_letter", job.id]],
  });
}

async function loadBody(kv: Deno.Kv, job: ProcessWebhookJob, prefix: Deno.KvKey): Promise<Uint8Array | null> {
  if (job.body instanceof Uint8Array) return job.body;
  if (typeof job.chunks !== "number") return null;
  const parts: Uint8Array[] = [];
  let length = 0;
  for await (const entry of kv.list<Uint8Array>({ prefix: [...prefix, "body", job.id] })) {
    parts.push(entry.value);
    length += entry.value.byteLength;
  }
  if (parts.length !== job.chunks) return null;
  const out = new Uint8Array(length);
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.byteLength;
  }
  return out;
}

async function deleteBody(kv: Deno.Kv, job: ProcessWebhookJob, prefix: Deno.KvKey): Promise<void> {
  if (typeof job.chunks !== "number") return;
  for (let i = 0; i < job.chunks; i++) await kv.delete([...prefix, "body", job.id, i]);
}

/** Options of {@link startWebhookWorker} and {@link runWebhookJob}. */
export interface WebhookWorkerOptions extends WebhookQueueOptions {
  /** Webhook logs are marked processed or failed here. */
  store?: GatewayStore;
  /** Metrics (`queueJob`, `webhookProcessed`). */
  metrics?: MetricsCollector;
  /** Messages on the queue that are not webhook jobs (default: logged and dropped). */
  onOtherMessage?: (message: unknown) => void | Promise<void>;
  /** Called after a job was dead-lettered. */
  onDeadLetter?: (entry: DeadLetter) => void;
  /** Called after each run of a job, with what happened (for tests and monitoring). */
  onJobDone?: (job: ProcessWebhookJob, outcome: WebhookJobOutcome) => void;
  /** Clock, epoch ms (default `Date.now`). */
  now?: () => number;
}

/** What happened to a job. */
export type WebhookJobOutcome = "processed" | "retried" | "dead_lettered";

/**
 * Run one job: process it, or schedule its retry, or dead-letter it. Never throws for a failing handler;
 * throws only when the KV itself fails (so that the KV queue delivers the message again).
 *
 * @example
 * ```ts
 * import { webhookProcessor } from "@gw/gateway";
 * import { isProcessWebhookJob, runWebhookJob } from "@gw/gateway/webhooks";
 * const kv = await Deno.openKv(":memory:");
 * const listening = kv.listenQueue(async (message) => {
 *   if (isProcessWebhookJob(message)) await runWebhookJob(kv, message, webhookProcessor());
 *   // ... other work on the same queue
 * });
 * kv.close();
 * await listening;
 * ```
 */
export async function runWebhookJob(
  kv: Deno.Kv,
  job: ProcessWebhookJob,
  processor: WebhookProcessor,
  options: WebhookWorkerOptions = {},
): Promise<WebhookJobOutcome> {
  const { prefix } = webhookQueueSettings(options);
  const body = await loadBody(kv, job, prefix);
  const outcome = await settleWebhookJob(job, body, processor, options, {
    retry: (next, delay) => enqueueWebhookJob(kv, next, { ...options, delay }),
    deadLetter: async (entry) => {
      await kv.set([...prefix, "dead_letter", job.id], entry);
    },
  });
  if (outcome === "processed") await deleteBody(kv, job, prefix);
  return outcome;
}

/** Where a job that did not succeed goes next: the queue engine's retry and dead-letter writes. */
export interface WebhookJobSettler {
  /** Put `job` (its attempt count already raised) back on the queue, due in `delay` ms. */
  retry(job: ProcessWebhookJob, delay: number): Promise<void>;
  /** Keep the job for good in the dead-letter list. */
  deadLetter(entry: DeadLetter): Promise<void>;
}

/**
 * Run one job whose body was loaded: process it, or have `settler` retry it with the backoff schedule or
 * dead-letter it. Every queue engine (Deno KV, Redis) runs its jobs through this. Never throws for a
 * failing handler; throws when the settler or the store fails.
 *
 * @example Running a job held somewhere else
 * ```ts
 * import { webhookProcessor } from "@gw/gateway";
 * import { settleWebhookJob } from "@gw/gateway/webhooks";
 * const outcome = await settleWebhookJob(
 *   { type: "gateway.webhook.process", id: "1", instance: "sales", attempt: 0, receivedAt: Date.now() },
 *   new TextEncoder().encode('{"event":"call","data":{}}'),
 *   webhookProcessor(),
 *   {},
 *   { retry: () => Promise.resolve(), deadLetter: () => Promise.resolve() },
 * );
 * console.log(outcome); // "processed"
 * ```
 */
export async function settleWebhookJob(
  job: ProcessWebhookJob,
  body: Uint8Array | null,
  processor: WebhookProcessor,
  options: Omit<WebhookWorkerOptions, "prefix">,
  settler: WebhookJobSettler,
): Promise<WebhookJobOutcome> {
  const { maxAttempts, backoff } = webhookQueueSettings(options);
  const now = options.now ?? Date.now;
  const attempts = job.attempt + 1;
  const logId = job.deliveryId ?? job.id;
  const deadLetter = async (error: string): Promise<WebhookJobOutcome> => {
    const entry: DeadLetter = { job, error, attempts, failedAt: now() };
    await settler.deadLetter(entry);
    options.metrics?.queueJob("dead_lettered");
    logger.error("Webhook job {id} dead-lettered after {attempts} attempt(s): {error}", {
      id: job.id,
      attempts,
      error,
    });
    options.onDeadLetter?.(entry);
    return "dead_lettered";
  };
  let payload: WebhookPayloadDto | null = null;
  if (body !== null) {
    try {
      payload = WebhookPayloadDto.from(JSON.parse(new TextDecoder().decode(body)), {
        instance: job.instance,
        event: job.event,
        deliveryId: job.deliveryId,
        receivedAt: job.receivedAt,
      });
    } catch {
      payload = null;
    }
  }
  if (payload === null) {
    const error = body === null ? "the job's body is missing" : "the job's body is not a webhook envelope";
    if (options.store !== undefined) {
      await saveWebhookLog(
        options.store,
        { id: logId, event: "UNKNOWN", instance: job.instance, receivedAt: job.receivedAt, error },
        "failed",
        now(),
      );
    }
    return await deadLetter(error);
  }
  const final = attempts >= maxAttempts;
  try {
    await runWebhook(processor, payload, {
      store: options.store,
      metrics: options.metrics,
      logId,
      final,
      now,
    });
  } catch (error) {
    if (final) return await deadLetter(describeError(error));
    const delay = backoff[Math.min(job.attempt, backoff.length - 1)];
    await settler.retry({ ...job, attempt: attempts }, delay);
    options.metrics?.queueJob("retried");
    logger.warn("Webhook job {id} failed (attempt {attempts} of {maxAttempts}), retrying in {delay} ms", {
      id: job.id,
      attempts,
      maxAttempts,
      delay,
    });
    return "retried";
  }
  options.metrics?.queueJob("processed");
  return "processed";
}

/** A running worker. */
export interface WebhookWorker {
  /** Settles when the KV is closed and the listener has stopped. */
  readonly finished: Promise<void>;
  /** Resolves once no job is being run (close the KV after it to stop without cutting a job short). */
  idle(): Promise<void>;
}

/**
 * Listen on `kv`'s queue and run webhook jobs through `processor`. Deno allows one `listenQueue` per KV
 * handle: other messages go to `onOtherMessage`, or use {@link runWebhookJob} in your own listener.
 *
 * @example
 * ```ts
 * import { createWebhookHandler, startWebhookWorker, WebhookProcessor } from "@gw/gateway";
 * const kv = await Deno.openKv(":memory:");
 * const processor = new WebhookProcessor().on("messages.upsert", (payload) => console.log(payload.text));
 * const worker = startWebhookWorker(kv, processor, { max_attempts: 5 });
 * const handler = createWebhookHandler({ secret: "s3cret", processor, queue: { enabled: true, kv } });
 * // Deno.serve(handler) ...
 * await worker.idle();
 * kv.close();
 * await worker.finished;
 * ```
 */
export function startWebhookWorker(
  kv: Deno.Kv,
  processor: WebhookProcessor,
  options: WebhookWorkerOptions = {},
): WebhookWorker {
  webhookQueueSettings(options);
  let running = 0;
  let waiters: (() => void)[] = [];
  const finished = kv.listenQueue(async (message: unknown) => {
    if (!isProcessWebhookJob(message)) {
      if (options.onOtherMessage !== undefined) await options.onOtherMessage(message);
      else logger.warn("Ignoring a queue message that is not a webhook job");
      return;
    }
    running++;
    try {
      const outcome = await runWebhookJob(kv, message, processor, options);
      options.onJobDone?.(message, outcome);
    } finally {
      if (--running === 0) {
        const wake = waiters;
        waiters = [];
        wake.forEach((resolve) => resolve());
      }
    }
  });
  const idle = () =>
    running === 0 ? Promise.resolve() : new Promise<void>((resolve) => waiters.push(resolve));
  return { finished, idle };
}

/**
 * The dead-letter list, oldest job id order.
 *
 * @example
 * ```ts
 * import { listDeadLetters } from "@gw/gateway/webhooks";
 * const kv = await Deno.openKv(":memory:");
 * for (const entry of await listDeadLetters(kv)) console.log(entry.job.id, entry.error);
 * kv.close();
 * ```
 */
export async function listDeadLetters(
  kv: Deno.Kv,
  options: { prefix?: Deno.KvKey; limit?: number } = {},
): Promise<DeadLetter[]> {
  const prefix = options.prefix ?? DEFAULT_PREFIX;
  const out: DeadLetter[] = [];
  for await (const entry of kv.list({ prefix: [...prefix, "dead_letter"] }, { limit: options.limit })) {
    const value = entry.value;
    if (isProcessWebhookJob(value)) {
      // Written by the KV queue itself (keysIfUndelivered) when it gave up delivering.
      out.push({
        job: value,
        error: "the KV queue could not deliver the job",
        attempts: value.attempt + 1,
        failedAt: 0,
      });
    } else if (
      value !== null && typeof value === "object" && isProcessWebhookJob((value as DeadLetter).job)
    ) {
      out.push(value as DeadLetter);
    }
  }
  return out;
}

/**
 * Put a dead-lettered job back on the queue with a fresh attempt count; false when there is no such entry.
 *
 * @example
 * ```ts
 * import { listDeadLetters, requeueDeadLetter } from "@gw/gateway/webhooks";
 * const kv = await Deno.openKv(":memory:");
 * for (const entry of await listDeadLetters(kv)) await requeueDeadLetter(kv, entry.job.id);
 * kv.close();
 * ```
 */
export async function requeueDeadLetter(
  kv: Deno.Kv,
  id: string,
  options: WebhookQueueOptions = {},
): Promise<boolean> {
  const prefix = options.prefix ?? DEFAULT_PREFIX;
  const key = [...prefix, "dead_letter", id];
  const entry = await kv.get<DeadLetter | ProcessWebhookJob>(key);
  const job = isProcessWebhookJob(entry.value)
    ? entry.value
    : isProcessWebhookJob((entry.value as DeadLetter | null)?.job)
    ? (entry.value as DeadLetter).job
    : null;
  if (job === null) return false;
  // One commit: the entry cannot be dead-lettered again and then deleted by this call.
  const result = await kv.atomic()
    .check(entry)
    .delete(key)
    .enqueue({ ...job, attempt: 0 }, { keysIfUndelivered: [key] })
    .commit();
  return result.ok;
}
