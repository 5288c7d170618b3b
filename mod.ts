/**
 * `@gw/gateway`: a client for WhatsApp-style messaging gateway servers (Evolution API v2 compatible), and a
 * receiver for their webhooks. Runs on the Deno CLI, Deno Deploy and Cloudflare Workers.
 *
 * @example The three lines you start with
 * ```ts
 * import { GatewayService } from "@gw/gateway";
 * const gw = GatewayService.make({ server_url: "http://localhost:8080", api_key: "...", instance: "sales" });
 * await gw.messages().text("5511999999999", "Hello");
 * ```
 *
 * @example Receive webhooks (Workers, Deno Deploy, `deno serve`)
 * ```ts
 * import { handleWebhook } from "@gw/gateway";
 * export default { fetch: handleWebhook };
 * ```
 *
 * This entry holds what an application uses: the service and the `GatewayApi` facade, the resources and
 * their response types, the request objects, the errors, the webhook receiver an application mounts, the
 * stores, the rate limiters and the scheduled tasks (what runs them and what each returns:
 * `@gw/gateway/tasks`). The whole receiver (custom verification, dedupe
 * backends, dead letters) is `@gw/gateway/webhooks`; test doubles are `@gw/gateway/testing`; the command
 * line is `@gw/gateway/cli`.
 *
 * @module
 */

// --- core (errors, config, logging, metrics)
export {
  AuthenticationException,
  ConfigurationException,
  ConnectionException,
  type ConnectionFailureReason,
  GatewayApiException,
  GatewayException,
  InstanceAlreadyExistsException,
  InstanceDisconnectedException,
  InstanceNotFoundException,
  MessageException,
  type MessageFailureReason,
  MessageStatusException,
  OutcomeUnknownException,
  RateLimitException,
  ResponseTooLargeException,
  ValidationException,
  WebhookException,
} from "./src/errors.ts";
export { isOutcomeUnknown, isPermanentFailure } from "./src/send/outcome.ts";
export {
  type ConnectionConfig,
  type GatewayConfig,
  type HttpConfig,
  type LoggingConfig,
  type MetricsConfig,
  type QueueConfig,
  type RateLimitingConfig,
  type RateLimitRule,
  type RecipientsConfig,
  type RetryConfig,
  type WebhookConfig,
  type WebhookSignatureConfig,
} from "./src/config.ts";
export {
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
  GatewayClient,
  type HttpMethod,
  type QueryValues,
  type RequestOptions,
} from "./src/client/client.ts";
export { ConnectionManager, type ResolvedConnection } from "./src/client/connection_manager.ts";
export type { PreparedRequest } from "./src/client/prepared_request.ts";
export { ApiResponse } from "./src/client/response.ts";
export { GatewayApi, gatewayApi, type GatewayApiFacade } from "./src/gateway_api.ts";

// --- service and resources
export { GatewayService, type ServerInfo } from "./src/service.ts";
export { type CallOptions, Resource } from "./src/resources/resource.ts";
export { type RouteRequest } from "./src/resources/resource.ts";
export { type RouteEntry, type RouteGroup } from "./src/resources/routes.ts";
export { type SendOptions, type SendResponse } from "./src/resources/messages.ts";

// --- request objects (dto)
export { type RequestBody, RequestDto, type RequestInput } from "./src/dto/request_dto.ts";
export { normalizeNumber } from "./src/dto/validate.ts";
export type { MessageOptions } from "./src/dto/message_options.ts";
export { SendTextMessageDto } from "./src/dto/text_message.ts";
export {
  SendAudioMessageDto,
  SendMediaMessageDto,
  SendPtvMessageDto,
  SendStatusMessageDto,
  SendStickerMessageDto,
} from "./src/dto/media_messages.ts";
export { SendButtonsMessageDto, SendListMessageDto } from "./src/dto/interactive_messages.ts";
export {
  SendContactMessageDto,
  SendLocationMessageDto,
  SendPollMessageDto,
  SendReactionMessageDto,
  SendTemplateMessageDto,
} from "./src/dto/structured_messages.ts";
export { CreateInstanceDto } from "./src/dto/create_instance.ts";
export { WebhookConfigDto } from "./src/dto/webhook_config.ts";
export { SettingsDto } from "./src/dto/settings.ts";
export { ProxyDto } from "./src/dto/proxy.ts";
export { CreateGroupDto } from "./src/dto/create_group.ts";
export { PrivacySettingsDto } from "./src/dto/privacy_settings.ts";
export { CallOfferDto } from "./src/dto/call_offer.ts";
export { CreateTemplateDto } from "./src/dto/create_template.ts";

// --- rate limiting
export type { RateLimitBucket, RateLimiterInterface } from "./src/ratelimit/limiter.ts";
export { MemoryRateLimiter, type MemoryRateLimiterOptions } from "./src/backends/memory/rate_limiter.ts";
export { KvRateLimiter, type KvRateLimiterOptions } from "./src/backends/kv/rate_limiter.ts";

// --- webhooks: the receiver an application mounts (the rest of the receiver: "@gw/gateway/webhooks")
export {
  AbstractWebhookHandler,
  createWebhookHandler,
  handleWebhook,
  LogWebhookEvent,
  ProcessIncomingMessage,
  type ProcessWebhookJob,
  startWebhookWorker,
  type WebhookEventData,
  type WebhookEventHandler,
  type WebhookEventName,
  type WebhookEventSpelling,
  type WebhookExecutionContext,
  type WebhookHandler,
  type WebhookHandlerOptions,
  WebhookPayloadDto,
  type WebhookPayloadOf,
  WebhookProcessingException,
  WebhookProcessor,
  webhookProcessor,
  WebhookVerificationException,
} from "./src/webhooks/mod.ts";

// --- store and tasks
export {
  type GatewayStore,
  type InboundMessageRecord,
  type InstanceSnapshot,
  type OutboundMessageRecord,
  type OutboundQuery,
  type OutboundStatus,
  type RecordKind,
  type WebhookLogRecord,
  type WebhookLogStatus,
} from "./src/store/store.ts";
export { MemoryStore, type MemoryStoreOptions } from "./src/backends/memory/store.ts";
export { KvStore, type KvStoreOptions } from "./src/backends/kv/store.ts";
export {
  type StateEntry,
  type StateListEntry,
  type StateListOptions,
  type StateSetOptions,
  type StateStore,
} from "./src/store/state.ts";
export { MemoryState } from "./src/backends/memory/state.ts";
export { KvState } from "./src/backends/kv/state.ts";
export { createScheduledHandler, registerScheduledTasks } from "./src/tasks/schedule.ts";

// --- delivery: addresses, numbers, message status, inbound reconciliation
export { parseRecipient, type Recipient, type RecipientKind } from "./src/address/recipient.ts";
export { type ResolvedSender, resolveSender } from "./src/address/sender.ts";
export {
  normalizePhone,
  type NormalizePhoneOptions,
  phoneMatchKey,
  phoneVariants,
} from "./src/address/phone.ts";
export { LidDirectory, type LidPair } from "./src/address/lid_directory.ts";
export { type ResolvedRecipient } from "./src/address/recipient_resolver.ts";
export {
  type MessageStatus,
  MessageStatusChanged,
  type MessageStatusRecord,
  MessageStuck,
  type StuckCause,
} from "./src/delivery/status_events.ts";
export {
  MessageStatusTracker,
  type MessageStatusTrackerOptions,
  type WaitForStatusOptions,
} from "./src/delivery/status_tracker.ts";
export type { MessageStatusUpdate } from "./src/delivery/status_updates.ts";
export {
  type ReconcileInboundInstanceResult,
  reconcileInboundMessages,
  type ReconcileInboundOptions,
  type ReconcileInboundResult,
  type ReconcileInboundService,
} from "./src/delivery/reconcile.ts";

// --- instance health: disconnect reasons, the send breaker
export {
  type DisconnectKind,
  type DisconnectReason,
  disconnectReason,
} from "./src/health/disconnect_reason.ts";
export { InstanceHealth } from "./src/health/instance_health.ts";
export type {
  Admission,
  BreakerState,
  HealthSource,
  InstanceHealthOptions,
  InstanceHealthRecord,
  InstanceHealthStatus,
  InstanceRef,
} from "./src/health/health_types.ts";
export { watchInstanceHealth } from "./src/health/watch.ts";

// --- media: inputs the server accepts, downloads
export {
  MEDIA_SIZE_LIMITS,
  type MediaInput,
  type MediaInputOptions,
  type MediaKind,
  type MediaSource,
  toMediaInput,
} from "./src/media/media_input.ts";
export { type DownloadedMedia, downloadMedia, type MediaMessageRef } from "./src/media/download.ts";

// --- server versions
export {
  type ServerDetails,
  type ServerFeatures,
  type ServerLine,
  UnsupportedServerException,
} from "./src/server/server_version.ts";
