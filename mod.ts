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
  ConfigurationException,
  ConnectionException,
  type ConnectionFailureReason,
  errorFromResponse,
  flattenErrorMessages,
  GatewayApiException,
  type GatewayErrorContext,
  InstanceNotFoundException,
  isOutcomeUnknown,
  isPermanentFailure,
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
export { redact } from "./src/log.ts";
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
export { GuardedEventTarget } from "./src/guarded_event_target.ts";

// --- client (connections, requests, responses)
export { abortableSleep, SharedTimeouts } from "./src/timing.ts";
export {
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
  type RetryPolicy,
  retryPolicy,
} from "./src/client/retry.ts";
export { configureGateway, GatewayApi, gatewayApi, type GatewayApiFacade } from "./src/gateway_api.ts";

// --- service and resources
export { GatewayService, type ServerInfo, type ServiceDependencies } from "./src/service.ts";
export { type CallOptions, Resource, type ResourceContext, type SendSpec } from "./src/resources/resource.ts";
export { renderRoutesMarkdown, type RouteEntry, ROUTES } from "./src/resources/routes.ts";
export { InstancesResource, PRESENCES, type WaitForConnectionOptions } from "./src/resources/instances.ts";
export {
  type MediaSendOptions,
  MessagesResource,
  type SendOptions,
  type SendResult,
} from "./src/resources/messages.ts";
export {
  ChatsResource,
  type FindChatsQuery,
  type LastMessage,
  type PagedQuery,
} from "./src/resources/chats.ts";
export {
  EPHEMERAL_EXPIRATIONS,
  GROUP_SETTING_ACTIONS,
  GroupsResource,
  PARTICIPANT_ACTIONS,
} from "./src/resources/groups.ts";
export { ProfileResource } from "./src/resources/profile.ts";
export { WebhooksResource } from "./src/resources/webhooks.ts";
export { SettingsResource } from "./src/resources/settings.ts";
export { CallsResource } from "./src/resources/calls.ts";
export { BusinessResource, type CatalogQuery } from "./src/resources/business.ts";
export { TemplatesResource } from "./src/resources/templates.ts";
export { ProxyResource } from "./src/resources/proxy.ts";
export { LabelsResource } from "./src/resources/labels.ts";
export { type S3MediaQuery, S3Resource } from "./src/resources/s3.ts";
export type {
  ActionResult,
  ChatRow,
  ConnectionState,
  ConnectionStateResponse,
  ContactRow,
  CreateInstanceResponse,
  FindMessagesQuery,
  FindMessagesResponse,
  GroupInfo,
  GroupSettingAction,
  InstanceRow,
  InviteCodeResponse,
  Label,
  MessageKey,
  MessageRecord,
  MessageRef,
  OnWhatsAppResult,
  ParticipantAction,
  Presence,
  ProfileInfo,
  QrCode,
  SendMessageResponse,
  SettingsSetResponse,
  UpdateResult,
  WebhookRow,
} from "./src/resources/types.ts";

// --- request objects (dto)
export { RequestDto } from "./src/dto/request_dto.ts";
export { mediaKind, type MessageKeyInput, normaliseNumber } from "./src/dto/validate.ts";
export {
  MESSAGE_OPTION_KEYS,
  type MessageOptionsBody,
  type MessageOptionsInput,
  type QuotedInput,
} from "./src/dto/message_options.ts";
export {
  type SendTextMessageBody,
  SendTextMessageDto,
  type SendTextMessageInput,
} from "./src/dto/text_message.ts";
export {
  MEDIA_TYPES,
  type MediaType,
  type SendAudioMessageBody,
  SendAudioMessageDto,
  type SendAudioMessageInput,
  type SendMediaMessageBody,
  SendMediaMessageDto,
  type SendMediaMessageInput,
  type SendPtvMessageBody,
  SendPtvMessageDto,
  type SendPtvMessageInput,
  type SendStatusMessageBody,
  SendStatusMessageDto,
  type SendStatusMessageInput,
  type SendStickerMessageBody,
  SendStickerMessageDto,
  type SendStickerMessageInput,
  STATUS_TYPES,
  type StatusType,
} from "./src/dto/media_messages.ts";
export {
  BUTTON_TYPES,
  type ButtonInput,
  type ContactCard,
  type ListRow,
  type ListSection,
  PIX_KEY_TYPES,
  type SendButtonsMessageBody,
  SendButtonsMessageDto,
  type SendButtonsMessageInput,
  type SendContactMessageBody,
  SendContactMessageDto,
  type SendContactMessageInput,
  type SendListMessageBody,
  SendListMessageDto,
  type SendListMessageInput,
  type SendLocationMessageBody,
  SendLocationMessageDto,
  type SendLocationMessageInput,
  type SendPollMessageBody,
  SendPollMessageDto,
  type SendPollMessageInput,
  type SendReactionMessageBody,
  SendReactionMessageDto,
  type SendReactionMessageInput,
  type SendTemplateMessageBody,
  SendTemplateMessageDto,
  type SendTemplateMessageInput,
} from "./src/dto/structured_messages.ts";
export {
  CreateInstanceDto,
  type CreateInstanceInput,
  type CreateInstanceWebhook,
  INTEGRATIONS,
  PROXY_PROTOCOLS,
} from "./src/dto/create_instance.ts";
export {
  WEBHOOK_CONFIG_EVENTS,
  type WebhookConfigBody,
  WebhookConfigDto,
  type WebhookConfigInput,
  webhookEventName,
} from "./src/dto/webhook_config.ts";
export { type InstanceSettings, REQUIRED_SETTINGS, SettingsDto } from "./src/dto/settings.ts";
export { type ProxyBody, ProxyDto, type ProxyInput } from "./src/dto/proxy.ts";
export { type CreateGroupBody, CreateGroupDto, type CreateGroupInput } from "./src/dto/create_group.ts";
export {
  PRIVACY_AUDIENCE,
  PRIVACY_VALUES,
  type PrivacySettings,
  PrivacySettingsDto,
} from "./src/dto/privacy_settings.ts";
export { type CallOfferBody, CallOfferDto, type CallOfferInput } from "./src/dto/call_offer.ts";
export {
  CreateTemplateDto,
  type CreateTemplateInput,
  TEMPLATE_CATEGORIES,
} from "./src/dto/create_template.ts";

// --- rate limiting
export type { RateLimitBucket, RateLimiterInterface } from "./src/ratelimit/limiter.ts";
export { MemoryRateLimiter, type MemoryRateLimiterOptions } from "./src/ratelimit/memory.ts";
export { KvRateLimiter, type KvRateLimiterOptions } from "./src/ratelimit/kv.ts";

// --- webhooks
export {
  createWebhookHandler,
  DEFAULT_BODY_TIMEOUT_MS,
  type WebhookExecutionContext,
  type WebhookHandler,
  type WebhookHandlerOptions,
  type WebhookHandlerQueueOptions,
  type WebhookMiddleware,
} from "./src/webhooks/handler.ts";
export {
  handleWebhook,
  resetDefaultWebhookHandler,
  webhookProcessor,
} from "./src/webhooks/default_handler.ts";
export {
  generateWebhookSecret,
  type RawWebhookBody,
  signWebhook,
  type SignWebhookOptions,
  verifyWebhook,
  WEBHOOK_SIGNATURE_SCHEMES,
  type WebhookHeaders,
  type WebhookRejectReason,
  type WebhookSignatureOptions,
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
  KvWebhookQueue,
  listDeadLetters,
  type ProcessWebhookJob,
  requeueDeadLetter,
  runWebhookJob,
  startWebhookWorker,
  WEBHOOK_JOB_TYPE,
  type WebhookJobOutcome,
  type WebhookJobQueue,
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
export {
  MAX_STATE_VALUE_BYTES,
  type StateEntry,
  type StateListEntry,
  type StateListOptions,
  type StateSetOptions,
  type StateStore,
} from "./src/store/state.ts";
export { MemoryState } from "./src/store/memory_state.ts";
export { KvState } from "./src/store/kv_state.ts";
export { pruneOldRecords, type PruneOptions, type PruneResult } from "./src/tasks/prune.ts";
export {
  type RetryClient,
  retryFailedMessages,
  type RetryFailedOptions,
  type RetryFailedResult,
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
export { handleScheduled } from "./src/tasks/handle_scheduled.ts";
export type { TaskLease } from "./src/tasks/task_guard.ts";
