/**
 * Queue mode: a verified webhook is written as a {@link ProcessWebhookJob} to a {@link WebhookJobQueue}
 * before the handler answers 202, and a worker processes the jobs. On Deno the queue is a Deno KV queue
 * ({@link KvWebhookQueue}, worker {@link startWebhookWorker}). A job that fails is enqueued again with a
 * delay from the backoff schedule; one that keeps failing goes to a dead-letter list (and its webhook log is
 * marked failed) instead of being dropped.
 *
 * Once per job: the worker records each job's completion, in the same atomic operation as the rest of its
 * bookkeeping, and skips a job already completed (the KV queue delivers a message again when the process
 * died before acknowledging it). With a KV dedupe on the same KV the delivery's claim and its job commit
 * together, so a redelivery of the webhook never becomes a second job. What this covers: a handler that
 * completed is never run again for that webhook; a handler that dies mid-way (the process is killed) runs
 * again, so its own side effects are at least once. Writes added through `completionWrites` commit with the
 * completion record, exactly once.
 *
 * A KV value holds at most 64 KiB, so a larger body (base64 media) is written in chunks beside the job.
 *
 * @module
 */

import { ConfigurationException, WebhookException } from "../errors.ts";
import { getGatewayLogger } from "../log.ts";
import type { MetricsCollector } from "../metrics.ts";
import { withBusyRetry } from "../backends/kv/busy.ts";
import type { GatewayStore } from "../store/store.ts";
import type { KvWebhookDedupe } from "./dedupe.ts";
import { WebhookPayloadDto } from "./payload.ts";
import type { WebhookProcessor } from "./processor.ts";
import { describeError, runWebhook, saveWebhookLog } from "./run.ts";

/** The `type` of every webhook job, to tell them from other messages on the same KV queue. */
export const WEBHOOK_JOB_TYPE = "gateway.webhook.process";

/** One verified webhook waiting to be processed. */
export interface ProcessWebhookJob {
  /** Always {@link WEBHOOK_JOB_TYPE}. */
  type: typeof WEBHOOK_JOB_TYPE;
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
  /** KV key prefix for chunks, completions and dead letters (default `["gateway", "webhook_queue"]`). */
  prefix?: Deno.KvKey;
  /** Attempts before a job is dead-lettered (default 5). */
  maxAttempts?: number;
  /** Delay before each retry, in ms; the last value repeats (default 1 s, 5 s, 30 s, 2 min, 10 min). */
  backoffMs?: readonly number[];
}

/**
 * Where queue mode puts verified webhooks. The handler answers 202 once `enqueue` resolved, so it must
 * resolve only when the job is stored durably, and reject otherwise (the handler then answers 503 and the
 * server retries). {@link KvWebhookQueue} is the Deno KV one; give your own as `queue.backend`
 * (`RedisWebhookQueue`, `CloudflareWebhookQueue`, or your own) and run the jobs with that queue's worker.
 *
 * @example A queue of your own
 * ```ts
 * import { createWebhookHandler, type ProcessWebhookJob, type WebhookJobQueue } from "@gw/gateway/webhooks";
 * const jobs: ProcessWebhookJob[] = [];
 * const backend: WebhookJobQueue = { enqueue: (job) => Promise.resolve(void jobs.push(job)) };
 * const handler = createWebhookHandler({ signature: { secret: "s3cret" }, queue: { backend } });
 * ```
 */
export interface WebhookJobQueue {
  /** Store `job` durably for a worker. */
  enqueue(job: ProcessWebhookJob): Promise<void>;
}

const DEFAULT_PREFIX: Deno.KvKey = ["gateway", "webhook_queue"];
const DEFAULT_BACKOFF = [1_000, 5_000, 30_000, 120_000, 600_000];
const INLINE_LIMIT = 60_000;
const CHUNK_SIZE = 60_000;
const CHUNKS_PER_COMMIT = 8;

const logger = getGatewayLogger("webhook", "queue");

// How long a job's completion is remembered: far longer than the KV queue takes to deliver a message again.
const COMPLETION_TTL_MS = 7 * 24 * 3600_000;
const MAX_DELAY_MS = 30 * 24 * 3600_000;

/**
 * The queue settings, checked when they are configured (throws `ConfigurationException`): attempts and
 * backoff for every queue engine, the KV prefix. Internal.
 */
export function webhookQueueSettings(
  options: WebhookQueueOptions,
): { prefix: Deno.KvKey; maxAttempts: number; backoff: readonly number[] } {
  const maxAttempts = options.maxAttempts ?? 5;
  if (!Number.isInteger(maxAttempts) || maxAttempts < 1) {
    throw new ConfigurationException(
      `Invalid webhook configuration: "queue.maxAttempts" must be an integer >= 1, got "${
        String(maxAttempts)
      }"`,
      { setting: "queue.maxAttempts" },
    );
  }
  const backoff = options.backoffMs ?? DEFAULT_BACKOFF;
  if (
    !Array.isArray(backoff) || backoff.length === 0 ||
    backoff.some((ms) => typeof ms !== "number" || !Number.isFinite(ms) || ms < 0 || ms > MAX_DELAY_MS)
  ) {
    throw new ConfigurationException(
      'Invalid webhook configuration: "queue.backoffMs" must be a non-empty list of numbers from 0 to 30 days in ms',
      { setting: "queue.backoffMs" },
    );
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

// The body goes in chunks beside the job when it is too large for one value; returns the value to enqueue.
async function writeBody(
  kv: Deno.Kv,
  job: ProcessWebhookJob,
  prefix: Deno.KvKey,
): Promise<ProcessWebhookJob> {
  if (job.body === undefined || job.body.byteLength <= INLINE_LIMIT) return job;
  const body = job.body;
  const count = Math.ceil(body.byteLength / CHUNK_SIZE);
  for (let first = 0; first < count; first += CHUNKS_PER_COMMIT) {
    const result = await withBusyRetry(() => {
      const op = kv.atomic();
      for (let i = first; i < Math.min(count, first + CHUNKS_PER_COMMIT); i++) {
        op.set([...prefix, "body", job.id, i], body.slice(i * CHUNK_SIZE, (i + 1) * CHUNK_SIZE));
      }
      return op.commit();
    });
    if (!result.ok) throw new WebhookException("Cannot queue webhook: writing the body failed");
  }
  const value: ProcessWebhookJob = { ...job, chunks: count };
  delete value.body;
  return value;
}

/**
 * Write a job to the KV queue (its body in chunks when it is too large for one value).
 *
 * @example
 * ```ts
 * import { enqueueWebhookJob } from "@gw/gateway/webhooks";
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
  const value = await writeBody(kv, job, prefix);
  await withBusyRetry(() =>
    kv.enqueue(value, { delay: options.delay, keysIfUndelivered: [[...prefix, "dead_letter", job.id]] })
  );
}

/**
 * The Deno KV queue as a {@link WebhookJobQueue}: what queue mode uses on Deno. With a
 * {@link KvWebhookDedupe} on the same KV, {@link KvWebhookQueue.enqueueClaimed} commits the delivery's
 * claim and its job in one atomic operation.
 *
 * @example
 * ```ts
 * import { createWebhookHandler, KvWebhookQueue } from "@gw/gateway/webhooks";
 * const kv = await Deno.openKv(":memory:");
 * const handler = createWebhookHandler({
 *   signature: { secret: "s3cret" },
 *   queue: { backend: new KvWebhookQueue(kv, { maxAttempts: 3 }) },
 * });
 * kv.close();
 * ```
 */
export class KvWebhookQueue implements WebhookJobQueue {
  /** The KV the jobs are written to. */
  readonly kv: Deno.Kv;
  readonly #options: WebhookQueueOptions;
  readonly #prefix: Deno.KvKey;

  /**
   * Enqueue on `kv`, under `options.prefix` for chunks and dead letters.
   *
   * @example
   * ```ts
   * import { KvWebhookQueue } from "@gw/gateway/webhooks";
   * const kv = await Deno.openKv(":memory:");
   * new KvWebhookQueue(kv, { prefix: ["app", "webhooks"] });
   * kv.close();
   * ```
   */
  constructor(kv: Deno.Kv, options: WebhookQueueOptions = {}) {
    this.kv = kv;
    this.#prefix = webhookQueueSettings(options).prefix;
    this.#options = options;
  }

  /**
   * Write a job.
   *
   * @example
   * ```ts
   * import { KvWebhookQueue } from "@gw/gateway/webhooks";
   * const kv = await Deno.openKv(":memory:");
   * await new KvWebhookQueue(kv).enqueue({
   *   type: "gateway.webhook.process", id: crypto.randomUUID(), instance: "sales", attempt: 0, receivedAt: Date.now(),
   *   body: new TextEncoder().encode('{"event":"call","data":{}}'),
   * });
   * kv.close();
   * ```
   */
  enqueue(job: ProcessWebhookJob): Promise<void> {
    return enqueueWebhookJob(this.kv, job, this.#options);
  }

  /**
   * Claim `job.deliveryId` in `dedupe` (which must use the same KV) and write the job, in one atomic
   * operation: either both are committed or neither is. Resolves false, with nothing written, when the
   * delivery is already claimed. `beforeCommit` runs once the claim looked free, before the commit (the
   * handler writes its webhook log there).
   *
   * @example
   * ```ts
   * import { KvWebhookDedupe, KvWebhookQueue } from "@gw/gateway/webhooks";
   * const kv = await Deno.openKv(":memory:");
   * const queue = new KvWebhookQueue(kv);
   * const job = {
   *   type: "gateway.webhook.process" as const, id: crypto.randomUUID(), deliveryId: "evt_1", instance: "sales",
   *   attempt: 0, receivedAt: Date.now(), body: new TextEncoder().encode('{"event":"call","data":{}}'),
   * };
   * await queue.enqueueClaimed(job, new KvWebhookDedupe(kv), Date.now()); // true
   * await queue.enqueueClaimed({ ...job, id: crypto.randomUUID() }, new KvWebhookDedupe(kv), Date.now()); // false
   * kv.close();
   * ```
   */
  async enqueueClaimed(
    job: ProcessWebhookJob,
    dedupe: KvWebhookDedupe,
    now: number,
    beforeCommit?: () => Promise<void>,
  ): Promise<boolean> {
    const key = job.deliveryId;
    if (key === undefined) {
      throw new WebhookException("Cannot queue webhook: the job has no delivery id to claim");
    }
    if (dedupe.kv !== this.kv) {
      throw new WebhookException("Cannot queue webhook: the dedupe and the queue use different KV handles");
    }
    const value = await writeBody(this.kv, job, this.#prefix);
    let before = beforeCommit;
    // A lost race means someone else's claim is now there: the next round sees it and answers duplicate.
    for (let round = 0; round < 12; round++) {
      const outcome = await withBusyRetry(async () => {
        const op = this.kv.atomic();
        if (!await dedupe.claimWithin(op, key, now)) return "claimed";
        if (before !== undefined) {
          await before();
          before = undefined;
        }
        op.enqueue(value, { keysIfUndelivered: [[...this.#prefix, "dead_letter", job.id]] });
        return (await op.commit()).ok ? "queued" : "raced";
      });
      if (outcome === "queued") return true;
      if (outcome === "claimed") {
        await deleteBody(this.kv, value, this.#prefix);
        return false;
      }
    }
    throw new WebhookException("Cannot queue webhook: the delivery's claim kept changing");
  }
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

function deleteBodyKeys(op: Deno.AtomicOperation, job: ProcessWebhookJob, prefix: Deno.KvKey): void {
  if (typeof job.chunks !== "number") return;
  for (let i = 0; i < job.chunks; i++) op.delete([...prefix, "body", job.id, i]);
}

async function deleteBody(kv: Deno.Kv, job: ProcessWebhookJob, prefix: Deno.KvKey): Promise<void> {
  if (typeof job.chunks !== "number") return;
  await withBusyRetry(() => {
    const op = kv.atomic();
    deleteBodyKeys(op, job, prefix);
    return op.commit();
  });
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
  /**
   * Add your own writes to the atomic operation that records a job's completion: they commit exactly
   * once per job, and never for a job whose handlers did not complete (an outbox on the same KV).
   */
  completionWrites?: (job: ProcessWebhookJob, op: Deno.AtomicOperation) => void;
  /** Clock, epoch ms (default `Date.now`). */
  now?: () => number;
}

/**
 * What happened to a job: processed now, retried later, dead-lettered, or `skipped` (it was already
 * completed, or superseded by its own retry: a message the KV queue delivered again).
 */
export type WebhookJobOutcome = "processed" | "retried" | "dead_lettered" | "skipped";

/**
 * Run one job: skip it when it was already completed, else process it, or schedule its retry, or
 * dead-letter it. Never throws for a failing handler; throws only when the KV itself fails (so that the KV
 * queue delivers the message again).
 *
 * @example
 * ```ts
 * import { isProcessWebhookJob, runWebhookJob, webhookProcessor } from "@gw/gateway/webhooks";
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
  const now = options.now ?? Date.now;
  const doneKey = [...prefix, "done", job.id];
  const attemptKey = [...prefix, "attempt", job.id];
  // The job's record: completed, or the attempt its latest retry was enqueued as.
  const [done, latest] = await kv.getMany<[unknown, number]>([doneKey, attemptKey]);
  if (done.value !== null || (typeof latest.value === "number" && latest.value > job.attempt)) {
    options.metrics?.queueJob("skipped");
    return "skipped";
  }
  const body = await loadBody(kv, job, prefix);
  return await settleWebhookJob(job, body, processor, options, {
    async retry(next, delay) {
      // The retry and the attempt record commit together: a redelivery of this message is then skipped.
      await withBusyRetry(() =>
        kv.atomic()
          .set(attemptKey, next.attempt, { expireIn: COMPLETION_TTL_MS })
          .enqueue(next, { delay, keysIfUndelivered: [[...prefix, "dead_letter", job.id]] })
          .commit()
      );
    },
    async deadLetter(entry) {
      await withBusyRetry(() =>
        kv.atomic()
          .set([...prefix, "dead_letter", job.id], entry)
          .set(doneKey, { deadLetteredAt: entry.failedAt }, { expireIn: COMPLETION_TTL_MS })
          .commit()
      );
    },
    async complete() {
      const finishedAt = now();
      const completed = await withBusyRetry(() => {
        const op = kv.atomic()
          .check({ key: doneKey, versionstamp: null })
          .set(doneKey, { completedAt: finishedAt }, { expireIn: COMPLETION_TTL_MS })
          .delete(attemptKey);
        deleteBodyKeys(op, job, prefix);
        options.completionWrites?.(job, op);
        return op.commit();
      });
      // Not ok: another delivery of this message ran at the same time and completed first.
      return completed.ok;
    },
  });
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
 * import { createWebhookHandler, startWebhookWorker, WebhookProcessor } from "@gw/gateway/webhooks";
 * const kv = await Deno.openKv(":memory:");
 * const processor = new WebhookProcessor().on("messages.upsert", (payload) => console.log(payload.text));
 * const worker = startWebhookWorker(kv, processor, { maxAttempts: 5 });
 * const handler = createWebhookHandler({ signature: { secret: "s3cret" }, processor, queue: { enabled: true, kv } });
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
  // One commit: the entry cannot be dead-lettered again and then deleted by this call; the job's
  // completion and attempt records go with it, so that the worker runs it again.
  const result = await withBusyRetry(() =>
    kv.atomic()
      .check(entry)
      .delete(key)
      .delete([...prefix, "done", job.id])
      .delete([...prefix, "attempt", job.id])
      .enqueue({ ...job, attempt: 0 }, { keysIfUndelivered: [key] })
      .commit()
  );
  return result.ok;
}

/** Where a job that did not succeed goes next: the queue engine's retry and dead-letter writes. */
export interface WebhookJobSettler {
  /** Put `job` (its attempt count already raised) back on the queue, due in `delay` ms. */
  retry(job: ProcessWebhookJob, delay: number): Promise<void>;
  /**
   * Keep the job for good in the dead-letter list. `cause` says why: `unreadable` when its body is missing or
   * not a webhook (it never ran), `failed` when its last attempt failed.
   */
  deadLetter(entry: DeadLetter, cause: "unreadable" | "failed"): Promise<void>;
  /**
   * Record that the job was processed; false when another delivery of it completed first (the outcome is
   * then `skipped`). Optional: without it a processed job is simply done.
   */
  complete?(): Promise<boolean>;
}

/**
 * Run one job whose body was loaded: process it, or have `settler` retry it with the backoff schedule or
 * dead-letter it. Every queue engine runs its jobs through this: the Deno KV queue (`runWebhookJob`, whose
 * settler also records each job's completion atomically), the Redis queue and the Cloudflare Queue
 * (`processWebhookBatch`). Never throws for a
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
  const deadLetter = async (error: string, cause: "unreadable" | "failed"): Promise<WebhookJobOutcome> => {
    const entry: DeadLetter = { job, error, attempts, failedAt: now() };
    await settler.deadLetter(entry, cause);
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
    return await deadLetter(error, "unreadable");
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
    if (final) return await deadLetter(describeError(error), "failed");
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
  if (settler.complete !== undefined && !await settler.complete()) {
    options.metrics?.queueJob("skipped");
    return "skipped";
  }
  options.metrics?.queueJob("processed");
  return "processed";
}
