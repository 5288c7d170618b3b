/**
 * `RedisWebhookQueue`: webhook queue mode on Redis, with workers on any app server and a dead-letter list.
 *
 * @module
 */

import { checkOptionKeys } from "../../option_keys.ts";
import { WebhookException } from "../../errors.ts";
import { getGatewayLogger } from "../../log.ts";
import {
  type DeadLetter,
  isProcessWebhookJob,
  type ProcessWebhookJob,
  type WebhookJobOutcome,
  type WebhookJobQueue,
  type WebhookQueueOptions,
  webhookQueueSettings,
  type WebhookWorkerOptions,
} from "../../webhooks/queue/interface.ts";
import { settleWebhookJob } from "../../webhooks/queue/settler.ts";
import type { WebhookProcessor } from "../../webhooks/processor.ts";
import { REDIS_BACKEND_OPTION_KEYS, type RedisBackendOptions, RedisConnection } from "./connection.ts";
import { CLAIM, ENQUEUE, REQUEUE, SETTLE } from "./queue_scripts.ts";
import { pollingWorker, type RedisWebhookWorker } from "./queue_worker.ts";
import { fromBase64, toBase64 } from "../../util/base64.ts";
import { positiveNumber, timerMs } from "../../util/checks.ts";

/** Options of {@link RedisWebhookQueue}. */
export type RedisWebhookQueueOptions = RedisBackendOptions & Omit<WebhookQueueOptions, "prefix"> & {
  /**
   * How long a claimed job stays hidden, in ms (default 30 000); its worker renews it, and another worker
   * takes the job over this long after the first one died.
   */
  visibilityTimeoutMs?: number;
  /** How often an idle worker looks for due jobs, in ms (default 250). */
  pollIntervalMs?: number;
  /** The clock, in epoch ms (default `Date.now`): when jobs are due and claims run out. */
  now?: () => number;
};

/** Options of {@link RedisWebhookQueue.startWorker} and {@link RedisWebhookQueue.runNext}. */
export type RedisWebhookWorkerOptions = Pick<
  WebhookWorkerOptions,
  "store" | "metrics" | "onDeadLetter" | "onJobDone"
>;

const logger = getGatewayLogger("webhook", "queue");

interface StoredJob extends Omit<ProcessWebhookJob, "body"> {
  body?: string;
}

function encodeJob(job: ProcessWebhookJob): string {
  const stored: StoredJob = { ...job, body: job.body === undefined ? undefined : toBase64(job.body) };
  return JSON.stringify(stored);
}

function decodeJob(json: string): ProcessWebhookJob | null {
  const stored = JSON.parse(json) as StoredJob;
  const { body, ...rest } = stored;
  const job: ProcessWebhookJob = { ...rest };
  if (typeof body === "string") {
    const bytes = fromBase64(body);
    if (bytes !== null) job.body = bytes;
  }
  return isProcessWebhookJob(job) ? job : null;
}

/**
 * A webhook job queue on Redis, shared by every app server using the same server and prefix.
 *
 * Guarantees (each checked by the tests): a job is delivered at least once; a job that throws is retried
 * after the `backoffMs` delay of its attempt and dead-lettered after `maxAttempts` attempts (its webhook
 * log marked failed); a job whose worker dies is taken over by another worker once `visibilityTimeoutMs`
 * passes without the worker renewing its claim, so a handler can run more than once for one job then
 * (make handlers idempotent, or keep dedupe on). A worker that lost its claim cannot settle the job.
 *
 * @example Receiver and worker on Redis
 * ```ts
 * import { createWebhookHandler, WebhookProcessor } from "@gw/gateway";
 * import { RedisWebhookQueue } from "@gw/gateway/redis";
 * const queue = new RedisWebhookQueue({ url: "redis://127.0.0.1:6379", maxAttempts: 5 });
 * const processor = new WebhookProcessor().on("messages.upsert", (payload) => console.log(payload.text));
 * const handler = createWebhookHandler({
 *   signature: { secret: "s3cret" },
 *   processor,
 *   queue: { enabled: true, backend: queue },
 * });
 * queue.startWorker(processor);
 * // ... on shutdown
 * await queue.close();
 * ```
 */
export class RedisWebhookQueue implements WebhookJobQueue {
  readonly #redis: RedisConnection;
  readonly #now: () => number;
  readonly #visibilityMs: number;
  readonly #pollMs: number;
  readonly #maxAttempts: number;
  readonly #backoff: readonly number[];
  readonly #workers = new Set<RedisWebhookWorker>();

  /** Connect with `{ url }` (opened on first use) or use `{ client }` (yours). */
  constructor(options: RedisWebhookQueueOptions) {
    checkOptionKeys(options, {
      ...REDIS_BACKEND_OPTION_KEYS,
      maxAttempts: true,
      backoffMs: true,
      visibilityTimeoutMs: true,
      pollIntervalMs: true,
      now: true,
    }, "new RedisWebhookQueue");
    const { maxAttempts, backoff } = webhookQueueSettings({
      maxAttempts: options.maxAttempts,
      backoffMs: options.backoffMs,
    });
    this.#maxAttempts = maxAttempts;
    this.#backoff = backoff;
    this.#visibilityMs = positiveNumber(
      "Invalid webhook configuration",
      "queue.visibilityTimeoutMs",
      options.visibilityTimeoutMs,
      30_000,
    );
    this.#pollMs = timerMs(
      "Invalid webhook configuration",
      "queue.pollIntervalMs",
      options.pollIntervalMs,
      250,
    );
    this.#now = options.now ?? Date.now;
    this.#redis = new RedisConnection("RedisWebhookQueue", options);
  }

  #keys(): {
    ready: string;
    inflight: string;
    jobs: string;
    owners: string;
    dead: string;
    deadOrder: string;
  } {
    const base = `${this.#redis.prefix}webhook_queue:`;
    return {
      ready: `${base}ready`,
      inflight: `${base}inflight`,
      jobs: `${base}jobs`,
      owners: `${base}owners`,
      dead: `${base}dead_letters`,
      deadOrder: `${base}dead_letter_order`,
    };
  }

  /** Keep `job` until a worker runs it, due after `delay` ms (default 0). */
  async enqueue(job: ProcessWebhookJob, options: { delay?: number } = {}): Promise<void> {
    if (!isProcessWebhookJob(job)) throw new WebhookException("Cannot queue webhook: not a webhook job");
    const delay = options.delay ?? 0;
    const { ready, jobs } = this.#keys();
    await ENQUEUE.run(this.#redis, [ready, jobs], [job.id, encodeJob(job), String(this.#now() + delay)]);
  }

  /** Claim the next due job and run it through `processor`: its outcome, or null when none is due. */
  async runNext(
    processor: WebhookProcessor,
    options: RedisWebhookWorkerOptions = {},
  ): Promise<WebhookJobOutcome | null> {
    const keys = this.#keys();
    const owner = crypto.randomUUID();
    const claimed = await CLAIM.run<string | null>(
      this.#redis,
      [keys.ready, keys.inflight, keys.jobs, keys.owners],
      [String(this.#now()), String(this.#now() + this.#visibilityMs), owner],
    );
    if (claimed === null) return null;
    const job = decodeJob(claimed);
    const id = (JSON.parse(claimed) as { id: string }).id;
    const settle = (action: "done" | "retry" | "dead" | "renew", json = "", score = "0") =>
      SETTLE.run<number>(
        this.#redis,
        [keys.ready, keys.inflight, keys.jobs, keys.owners, keys.dead, keys.deadOrder],
        [id, owner, action, json, score],
      );
    if (job === null) {
      const entry = {
        job: JSON.parse(claimed),
        error: "not a webhook job",
        attempts: 0,
        failedAt: this.#now(),
      };
      await settle("dead", JSON.stringify(entry), String(entry.failedAt));
      return "dead_lettered";
    }
    // Renew the claim while the job runs, so that a slow job is not taken over from a live worker.
    const renewal = setInterval(() => {
      settle("renew", "", String(this.#now() + this.#visibilityMs)).catch((error) =>
        logger.warn("Cannot renew the claim of webhook job {id}: {error}", { id, error: String(error) })
      );
    }, Math.max(10, this.#visibilityMs / 3));
    let outcome: WebhookJobOutcome;
    try {
      outcome = await settleWebhookJob(job, job.body ?? null, processor, {
        ...options,
        maxAttempts: this.#maxAttempts,
        backoffMs: this.#backoff,
        now: this.#now,
      }, {
        retry: async (next, delay) => {
          if (await settle("retry", encodeJob(next), String(this.#now() + delay)) === 0) lostClaim(id);
        },
        deadLetter: async (entry) => {
          if (await settle("dead", encodeDeadLetter(entry), String(entry.failedAt)) === 0) lostClaim(id);
        },
      });
      if (outcome === "processed" && await settle("done") === 0) lostClaim(id);
    } finally {
      clearInterval(renewal);
    }
    options.onJobDone?.(job, outcome);
    return outcome;
  }

  /** Run jobs one at a time until `stop()` or {@link RedisWebhookQueue.close}; start several for more. */
  startWorker(processor: WebhookProcessor, options: RedisWebhookWorkerOptions = {}): RedisWebhookWorker {
    const worker = pollingWorker(() => this.runNext(processor, options), this.#pollMs, () => {
      this.#workers.delete(worker);
    });
    this.#workers.add(worker);
    return worker;
  }

  /** The dead-letter list, oldest first. */
  async listDeadLetters(options: { limit?: number } = {}): Promise<DeadLetter[]> {
    const { dead, deadOrder } = this.#keys();
    const limit = options.limit;
    if (limit !== undefined && (!Number.isInteger(limit) || limit < 0)) {
      throw new RangeError(`Cannot list dead letters: "limit" must be a non-negative integer`);
    }
    if (limit === 0) return [];
    const stop = limit === undefined ? "-1" : String(limit - 1);
    const ids = await this.#redis.command<string[]>(["ZRANGE", deadOrder, "0", stop]);
    if (ids.length === 0) return [];
    const entries = await this.#redis.command<(string | null)[]>(["HMGET", dead, ...ids]);
    return entries.flatMap((json) => json === null ? [] : [decodeDeadLetter(json)]);
  }

  /** Requeue a dead letter with a fresh attempt count; false when it is gone (or another caller took it). */
  async requeueDeadLetter(id: string): Promise<boolean> {
    const keys = this.#keys();
    const json = await this.#redis.command<string | null>(["HGET", keys.dead, id]);
    if (json === null) return false;
    const entry = decodeDeadLetter(json);
    const requeued = await REQUEUE.run<number>(this.#redis, [
      keys.ready,
      keys.jobs,
      keys.dead,
      keys.deadOrder,
    ], [
      id,
      encodeJob({ ...entry.job, attempt: 0 }),
      String(this.#now()),
    ]);
    return requeued === 1;
  }

  /** How many jobs wait (due or delayed) and how many are claimed by a worker right now. */
  async counts(): Promise<{ waiting: number; running: number; deadLettered: number }> {
    const keys = this.#keys();
    const [waiting, running, deadLettered] = await Promise.all([
      this.#redis.command<number>(["ZCARD", keys.ready]),
      this.#redis.command<number>(["ZCARD", keys.inflight]),
      this.#redis.command<number>(["ZCARD", keys.deadOrder]),
    ]);
    return { waiting, running, deadLettered };
  }

  /** Stop every worker (each settles its job), then close the connection from `url` (not a `client`). */
  async close(): Promise<void> {
    await Promise.all([...this.#workers].map((worker) => worker.stop()));
    await this.#redis.close();
  }
}

function lostClaim(id: string): void {
  logger.warn("Webhook job {id} was taken over by another worker: its outcome here is dropped", { id });
}

function encodeDeadLetter(entry: DeadLetter): string {
  return JSON.stringify({ ...entry, job: JSON.parse(encodeJob(entry.job)) });
}

function decodeDeadLetter(json: string): DeadLetter {
  const entry = JSON.parse(json) as DeadLetter & { job: unknown };
  const job = decodeJob(JSON.stringify(entry.job));
  return { ...entry, job: job ?? entry.job as ProcessWebhookJob };
}
