// Queue mode (docs/webhooks.md): the contract in queue/, the KV engine in src/backends/kv/.

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
