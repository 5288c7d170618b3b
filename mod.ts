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
 * stores, the rate limiters and the scheduled tasks. The whole receiver (custom verification, dedupe
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
  InstanceAlreadyExistsException,
  InstanceNotFoundException,
  isOutcomeUnknown,
  isPermanentFailure,
  MessageException,
  type MessageFailureReason,
  MessageStatusException,
  OutcomeUnknownException,
  RateLimitException,
  ResponseTooLargeException,
  ValidationException,
  WebhookException,
} from "./src/errors.ts";
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
export { ApiResponse } from "./src/client/response.ts";
export { configureGateway, GatewayApi, gatewayApi, type GatewayApiFacade } from "./src/gateway_api.ts";

// --- service and resources
export { GatewayService, type ServerInfo } from "./src/service.ts";
export { type CallOptions, Resource } from "./src/resources/resource.ts";
export { InstancesResource, type WaitForConnectionOptions } from "./src/resources/instances.ts";
export {
  type MediaSendOptions,
  MessagesResource,
  type SendOptions,
  type SendResponse,
} from "./src/resources/messages.ts";
export {
  ChatsResource,
  type FindChatsQuery,
  type LastMessage,
  type PagedQuery,
} from "./src/resources/chats.ts";
export { GroupsResource } from "./src/resources/groups.ts";
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
export { type RequestBody, RequestDto, type RequestInput } from "./src/dto/request_dto.ts";
export { type MessageKeyInput, normalizeNumber } from "./src/dto/validate.ts";
export { type MessageOptions, type QuotedInput } from "./src/dto/message_options.ts";
export { SendTextMessageDto } from "./src/dto/text_message.ts";
export {
  SendAudioMessageDto,
  SendMediaMessageDto,
  SendPtvMessageDto,
  SendStatusMessageDto,
  SendStickerMessageDto,
} from "./src/dto/media_messages.ts";
export {
  type ButtonInput,
  type ContactCard,
  type ListRow,
  type ListSection,
  SendButtonsMessageDto,
  SendContactMessageDto,
  SendListMessageDto,
  SendLocationMessageDto,
  SendPollMessageDto,
  SendReactionMessageDto,
  SendTemplateMessageDto,
} from "./src/dto/structured_messages.ts";
export { CreateInstanceDto } from "./src/dto/create_instance.ts";
export { WebhookConfigDto, type WebhookConfigInput } from "./src/dto/webhook_config.ts";
export { type InstanceSettings, SettingsDto } from "./src/dto/settings.ts";
export { ProxyDto, type ProxyInput } from "./src/dto/proxy.ts";
export { CreateGroupDto } from "./src/dto/create_group.ts";
export { type PrivacySettings, PrivacySettingsDto } from "./src/dto/privacy_settings.ts";
export { CallOfferDto } from "./src/dto/call_offer.ts";
export { CreateTemplateDto } from "./src/dto/create_template.ts";

// --- rate limiting
export type { RateLimitBucket, RateLimiterInterface } from "./src/ratelimit/limiter.ts";
export { MemoryRateLimiter, type MemoryRateLimiterOptions } from "./src/ratelimit/memory.ts";
export { KvRateLimiter, type KvRateLimiterOptions } from "./src/ratelimit/kv.ts";

// --- webhooks: the receiver an application mounts (the rest of the receiver: "@gw/gateway/webhooks")
export {
  AbstractWebhookHandler,
  createWebhookHandler,
  handleWebhook,
  LogWebhookEvent,
  ProcessIncomingMessage,
  type ProcessWebhookJob,
  startWebhookWorker,
  type WebhookExecutionContext,
  type WebhookHandler,
  type WebhookHandlerOptions,
  WebhookPayloadDto,
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
export { MemoryStore, type MemoryStoreOptions } from "./src/store/memory.ts";
export { KvStore, type KvStoreOptions } from "./src/store/kv.ts";
export {
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
  retryFailedMessages,
  type RetryFailedOptions,
  type RetryFailedResult,
  type RetryRecordResult,
  type RetryService,
  type RetrySkipReason,
} from "./src/tasks/retry_failed.ts";
export {
  createScheduledHandler,
  type HandleScheduled,
  type PruneTaskOptions,
  registerScheduledTasks,
  type RegisterScheduledTasksOptions,
  type RetryFailedTaskOptions,
  type ScheduledHandlerOptions,
  type ScheduledTaskHandlers,
  type ScheduledTasksBaseOptions,
} from "./src/tasks/schedule.ts";
export { handleScheduled } from "./src/tasks/handle_scheduled.ts";
export type { TaskLease } from "./src/tasks/task_guard.ts";
export { stateTaskLease, type StateTaskLeaseOptions } from "./src/tasks/state_lease.ts";
export type { FindMessagesClient, FoundMessage } from "./src/tasks/find_sent_message.ts";
export {
  type ReconcileRecordResult,
  reconcileSends,
  type ReconcileSendsOptions,
  type ReconcileSendsResult,
  type ReconcileService,
  type ReconcileUndecidedReason,
} from "./src/tasks/reconcile_sends.ts";
export type { ReconcileSendsTaskOptions } from "./src/tasks/schedule.ts";

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
  type MessageStatusUpdate,
  type WaitForStatusOptions,
} from "./src/delivery/status_tracker.ts";
export {
  type ReconcileInboundInstanceResult,
  reconcileInboundMessages,
  type ReconcileInboundOptions,
  type ReconcileInboundResult,
  type ReconcileInboundService,
} from "./src/delivery/reconcile.ts";
export { type ReconcileInboundTaskOptions } from "./src/tasks/reconcile_task.ts";
