/**
 * The Deno KV worker: listens on the KV queue and runs each webhook job once: a job already completed (the KV
 * queue delivered its message again) is skipped, and the completion, the retry or the dead letter commits
 * with the job's records in one atomic operation.
 *
 * @module
 */

import { checkOptionKeys } from "../../option_keys.ts";
import { getGatewayLogger } from "../../log.ts";
import { withBusyRetry } from "./busy.ts";
import { ARRIVE, type WebhookProcessor } from "../../webhooks/processor.ts";
import type { Arrival } from "../../inbound/arrivals.ts";
import type { WebhookPayloadDto } from "../../webhooks/payload.ts";
import {
  isProcessWebhookJob,
  type ProcessWebhookJob,
  type WebhookJobOutcome,
  webhookQueueSettings,
  type WebhookWorker,
  type WebhookWorkerOptions,
  WORKER_OPTION_KEYS,
} from "../../webhooks/queue/interface.ts";
import { deleteBodyKeys, loadBody } from "./queue.ts";
import { settleWebhookJob } from "../../webhooks/queue/settler.ts";

const logger = getGatewayLogger("webhook", "queue");

// How long a job's completion is remembered: far longer than the KV queue takes to deliver a message again.
const COMPLETION_TTL_MS = 7 * 24 * 3600_000;

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
  // The job arrives when the queue delivers it: a large body's chunks, read next, must not let a later small
  // job of the same chat overtake it (the queue delivers in the order the receiver wrote).
  const arrival = processor[ARRIVE]();
  try {
    return await runArrived(kv, job, processor, options, arrival);
  } finally {
    if (!arrival.taken) arrival.end();
  }
}

async function runArrived(
  kv: Deno.Kv,
  job: ProcessWebhookJob,
  processor: WebhookProcessor,
  options: WebhookWorkerOptions,
  arrival: Arrival<WebhookPayloadDto>,
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
  }, arrival);
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
  checkOptionKeys(options, WORKER_OPTION_KEYS, "startWebhookWorker");
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
