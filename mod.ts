/**
 * `@gw/gateway`: a client for WhatsApp-style messaging gateway servers (Evolution API v2 compatible),
 * and a receiver for their webhooks. Runs on the Deno CLI, Deno Deploy and Cloudflare Workers.
 *
 * @example Send a text
 * ```ts
 * import { GatewayService } from "@gw/gateway";
 * const gw = GatewayService.make({ server_url: "http://localhost:8080", api_key: "...", instance: "sales" });
 * const res = await gw.messages().text("5511999999999", "Hello");
 * console.log(res.json("key.id"));
 * ```
 *
 * @example Receive webhooks (Workers, Deno Deploy, `deno serve`)
 * ```ts
 * import { handleWebhook } from "@gw/gateway";
 * export default { fetch: handleWebhook };
 * ```
 *
 * @module
 */

// --- core (errors, config, logging, metrics)
export {
  AuthenticationException,
  type ConnectionFailureReason,
  ConnectionException,
  errorFromResponse,
  flattenErrorMessages,
  GatewayApiException,
  type GatewayErrorContext,
  InstanceNotFoundException,
  MessageException,
  type MessageFailureReason,
  parseRetryAfter,
  RateLimitException,
  ValidationException,
  WebhookException,
} from "./src/errors.ts";
export {
  CONFIG_FILE,
  configFromEnv,
  type ConnectionConfig,
  DEFAULTS,
  type GatewayConfig,
  type HttpConfig,
  loadConfigFile,
  type LoggingConfig,
  mergeConfig,
  type MetricsConfig,
  type QueueConfig,
  type RateLimitingConfig,
  type RateLimitRule,
  type RetryConfig,
  validateConfig,
  type WebhookConfig,
  type WebhookSignatureConfig,
} from "./src/config.ts";
export { getGatewayLogger, redact, scrubSecrets } from "./src/log.ts";
export {
  METRIC_DESCRIPTIONS,
  type MetricLabels,
  MetricsCollector,
  type MetricSeries,
  type MetricsSnapshot,
} from "./src/metrics.ts";
export {
  MessageReceived,
  type MessageReceivedDetail,
  MessageSent,
  type MessageSentDetail,
  WebhookEvent,
  WebhookReceived,
} from "./src/events.ts";

// --- client (connections, requests, responses)
export {
  abortableSleep,
  buildPath,
  type ClientDependencies,
  GatewayClient,
  type HttpMethod,
  type QueryValues,
  type RateLimitRequest,
  type RequestGate,
  type RequestOptions,
  VERSION,
} from "./src/client/client.ts";
export {
  ConnectionManager,
  type ResolvedConnection,
  validateConnection,
} from "./src/client/connection_manager.ts";
export { ApiResponse, readPath } from "./src/client/response.ts";
export {
  backoffDelay,
  failedBeforeSending,
  NOT_ACTED_STATUSES,
  RETRYABLE_STATUSES,
  retryPolicy,
  type RetryPolicy,
} from "./src/client/retry.ts";
export {
  configureGateway,
  GatewayApi,
  type GatewayApiFacade,
  gatewayApi,
} from "./src/gateway_api.ts";

// --- service and resources
export { GatewayService, type ServerInfo, type ServiceDependencies } from "./src/service.ts";

// --- request objects (dto)

// --- rate limiting
export type { RateLimitBucket, RateLimiterInterface } from "./src/ratelimit/limiter.ts";
export { MemoryRateLimiter, type MemoryRateLimiterOptions } from "./src/ratelimit/memory.ts";
export { KvRateLimiter, type KvRateLimiterOptions } from "./src/ratelimit/kv.ts";

// --- webhooks
export {
  createWebhookHandler,
  handleWebhook,
  resetDefaultWebhookHandler,
  type WebhookExecutionContext,
  type WebhookHandler,
  type WebhookHandlerOptions,
  type WebhookHandlerQueueOptions,
  type WebhookMiddleware,
  webhookProcessor,
} from "./src/webhooks/handler.ts";
export {
  generateWebhookSecret,
  type RawWebhookBody,
  signWebhook,
  type SignWebhookOptions,
  verifyWebhook,
  WEBHOOK_SIGNATURE_SCHEMES,
  type WebhookHeaders,
  type WebhookRejectReason,
  type WebhookSignatureScheme,
  type WebhookVerification,
  WebhookVerificationException,
  WebhookVerifier,
  type WebhookVerifyOptions,
} from "./src/webhooks/signature.ts";
export {
  dottedWebhookEvent,
  normalizeWebhookEvent,
  WEBHOOK_EVENTS,
  type WebhookPayloadContext,
  WebhookPayloadDto,
} from "./src/webhooks/payload.ts";
export {
  type WebhookHandlerFunction,
  WebhookProcessingException,
  WebhookProcessor,
  type WebhookProcessorOptions,
} from "./src/webhooks/processor.ts";
export { AbstractWebhookHandler } from "./src/webhooks/handler_base.ts";
export { LogWebhookEvent, ProcessIncomingMessage } from "./src/webhooks/listeners.ts";
export {
  type DeadLetter,
  enqueueWebhookJob,
  isProcessWebhookJob,
  listDeadLetters,
  type ProcessWebhookJob,
  requeueDeadLetter,
  runWebhookJob,
  startWebhookWorker,
  WEBHOOK_JOB_TYPE,
  type WebhookJobOutcome,
  type WebhookQueueOptions,
  type WebhookWorker,
  type WebhookWorkerOptions,
} from "./src/webhooks/queue.ts";
export {
  KvWebhookDedupe,
  MemoryWebhookDedupe,
  type WebhookDedupe,
  type WebhookDedupeOptions,
} from "./src/webhooks/dedupe.ts";
export {
  denoEnvLookup,
  WEBHOOK_ENV_VARIABLES,
  type WebhookEnvOptions,
  webhookOptionsFromEnv,
} from "./src/webhooks/env.ts";

// --- store and tasks
export {
  type GatewayStore,
  type InboundMessageRecord,
  type InstanceSnapshot,
  type OutboundMessageRecord,
  type OutboundQuery,
  type OutboundStatus,
  RECORD_KINDS,
  type RecordKind,
  type WebhookLogRecord,
  type WebhookLogStatus,
} from "./src/store/store.ts";
export { MemoryStore, type MemoryStoreOptions } from "./src/store/memory.ts";
export { KvStore, type KvStoreOptions } from "./src/store/kv.ts";
export { type PruneOptions, pruneOldRecords, type PruneResult } from "./src/tasks/prune.ts";
export {
  type RetryClient,
  type RetryFailedOptions,
  type RetryFailedResult,
  retryFailedMessages,
  type RetryRecordResult,
  type RetryRequestOptions,
  type RetryService,
  type RetrySkipReason,
} from "./src/tasks/retry_failed.ts";
export {
  createScheduledHandler,
  type CronFunction,
  type HandleScheduled,
  type PruneTaskOptions,
  registerScheduledTasks,
  type RegisterScheduledTasksOptions,
  type RetryFailedTaskOptions,
  type ScheduledContextLike,
  type ScheduledControllerLike,
  type ScheduledHandlerOptions,
  type ScheduledTaskHandlers,
  type ScheduledTasksBaseOptions,
} from "./src/tasks/schedule.ts";
export type { TaskLease } from "./src/tasks/task_guard.ts";
