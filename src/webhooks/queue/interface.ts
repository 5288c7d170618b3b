import { ConfigurationException } from "../../errors.ts";
import type { MetricsCollector } from "../../metrics.ts";
import type { GatewayStore } from "../../store/store.ts";
import { positiveInteger } from "../../util/checks.ts";

/** The `type` of every webhook job, to tell them from other messages on the same KV queue. */
export const WEBHOOK_JOB_TYPE = "gateway.webhook.process";

/** One verified webhook waiting to be processed. */
export interface ProcessWebhookJob {
  /** Always {@link WEBHOOK_JOB_TYPE}. */
  type: typeof WEBHOOK_JOB_TYPE;
  /** Job id (a UUID; also the dead-letter key). */
  id: string;
  /** Delivery id (also the webhook log id), when known. */
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

export const QUEUE_OPTION_KEYS = {
  prefix: true,
  maxAttempts: true,
  backoffMs: true,
} as const satisfies Record<
  keyof WebhookQueueOptions,
  true
>;

/**
 * Where queue mode puts verified webhooks: `enqueue` resolves only once the job is durable (the handler
 * then answers 202), else rejects (503, the server retries).
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

/** Default KV key prefix of the queue's records. Internal. */
export const DEFAULT_PREFIX: Deno.KvKey = ["gateway", "webhook_queue"];
const DEFAULT_BACKOFF = [1_000, 5_000, 30_000, 120_000, 600_000];
const MAX_DELAY_MS = 30 * 24 * 3600_000;

/** The queue settings, checked (throws `ConfigurationException`). Internal. */
export function webhookQueueSettings(
  options: WebhookQueueOptions,
): { prefix: Deno.KvKey; maxAttempts: number; backoff: readonly number[] } {
  const maxAttempts = positiveInteger(
    "Invalid webhook configuration",
    "queue.maxAttempts",
    options.maxAttempts,
    5,
  );
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
 * isProcessWebhookJob({ type: "other" }); // false
 * ```
 */
export function isProcessWebhookJob(value: unknown): value is ProcessWebhookJob {
  if (value === null || typeof value !== "object") return false;
  const job = value as Record<string, unknown>;
  return job.type === WEBHOOK_JOB_TYPE && typeof job.id === "string" && typeof job.attempt === "number";
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
  /** Your writes to commit with a job's completion: exactly once, never for a job that did not complete. */
  completionWrites?: (job: ProcessWebhookJob, op: Deno.AtomicOperation) => void;
  /** Clock, epoch ms (default `Date.now`). */
  now?: () => number;
}

export const WORKER_OPTION_KEYS = {
  ...QUEUE_OPTION_KEYS,
  store: true,
  metrics: true,
  onOtherMessage: true,
  onDeadLetter: true,
  onJobDone: true,
  completionWrites: true,
  now: true,
} as const satisfies Record<keyof WebhookWorkerOptions, true>;

/** What happened to a job; `skipped`: already completed, or superseded by its own retry. */
export type WebhookJobOutcome = "processed" | "retried" | "dead_lettered" | "skipped";

/** A running worker (the Deno KV worker's `startWebhookWorker`, Redis's `startWorker`). */
export interface WebhookWorker {
  /** Settles when the KV is closed and the listener has stopped. */
  readonly finished: Promise<void>;
  /** Resolves once no job is being run (close the KV after it). */
  idle(): Promise<void>;
}
