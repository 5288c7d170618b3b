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
 * The contract in `queue/`: `interface.ts` (the job, the settings, what a queue and a worker do) and
 * `settler.ts` (one job, any engine). The Deno KV engine lives in `src/backends/kv/`: `queue.ts`,
 * `queue_worker.ts`, `queue_dead_letters.ts` (Redis and Cloudflare in their own `src/backends/` folders).
 * This module gathers their names.
 *
 * @module
 */

export {
  type DeadLetter,
  isProcessWebhookJob,
  type ProcessWebhookJob,
  QUEUE_OPTION_KEYS,
  WEBHOOK_JOB_TYPE,
  type WebhookJobOutcome,
  type WebhookJobQueue,
  type WebhookQueueOptions,
  webhookQueueSettings,
  type WebhookWorker,
  type WebhookWorkerOptions,
} from "./queue/interface.ts";
export { enqueueWebhookJob, KvWebhookQueue } from "../backends/kv/queue.ts";
export { runWebhookJob, startWebhookWorker } from "../backends/kv/queue_worker.ts";
export { listDeadLetters, requeueDeadLetter } from "../backends/kv/queue_dead_letters.ts";
export { settleWebhookJob, type WebhookJobSettler } from "./queue/settler.ts";
