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
export { MessageSent, type MessageSentDetail } from "./src/events.ts";

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
