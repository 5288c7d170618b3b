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
 * This entry holds what an application writes daily, in labelled groups: the service and its facade, the
 * errors, the configuration, the request objects (`*Dto`), the webhook receiver it mounts, the stores and
 * the rate limiters. The rest is in the entry of its concern: the resources' building blocks
 * (`@gw/gateway/resources`), the whole receiver (`@gw/gateway/webhooks`), the scheduled tasks
 * (`@gw/gateway/tasks`), addresses, message statuses and instance health (`@gw/gateway/delivery`), media
 * inputs and downloads (`@gw/gateway/media`), the store contracts and records (`@gw/gateway/store`), test
 * doubles (`@gw/gateway/testing`), the bot (`@gw/gateway/bot`) and the command line (`@gw/gateway/cli`).
 *
 * @module
 */

// --- the service: build it, send through it
export { GatewayService, type ServerInfo } from "./src/service.ts";
export { GatewayApi, gatewayApi, type GatewayApiFacade } from "./src/gateway_api.ts";
export { GatewayClient } from "./src/client/client.ts";
export { ConnectionManager } from "./src/client/connection_manager.ts";
export { ApiResponse } from "./src/client/response.ts";
export type { CallOptions } from "./src/resources/resource.ts";
export type { SendOptions, SendResponse } from "./src/resources/messages.ts";

// --- errors: the server's answers (GatewayApiException) and setup errors, under GatewayException
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
export { UnsupportedServerException } from "./src/server/server_version.ts";
export { isOutcomeUnknown, isPermanentFailure } from "./src/send/outcome.ts";

// --- configuration (the gateway-api.json shape), metrics and the service's events
export type {
  ConnectionConfig,
  GatewayConfig,
  HttpConfig,
  LoggingConfig,
  MetricsConfig,
  QueueConfig,
  RateLimitingConfig,
  RateLimitRule,
  RecipientsConfig,
  RetryConfig,
  WebhookConfig,
  WebhookSignatureConfig,
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

// --- request objects (the seed's *Dto classes)
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

// --- webhooks: the receiver an application mounts (the rest of the receiver: "@gw/gateway/webhooks")
export {
  AbstractWebhookHandler,
  createWebhookHandler,
  handleWebhook,
  LogWebhookEvent,
  ProcessIncomingMessage,
  type ProcessWebhookJob,
  type WebhookEventName,
  type WebhookHandler,
  WebhookPayloadDto,
  WebhookProcessingException,
  WebhookProcessor,
  webhookProcessor,
  WebhookVerificationException,
} from "./src/webhooks/mod.ts";

// --- stores (their contracts and records: "@gw/gateway/store")
export type { GatewayStore } from "./src/store/store.ts";
export type { StateStore } from "./src/store/state.ts";
export { MemoryStore } from "./src/backends/memory/store.ts";
export { KvStore } from "./src/backends/kv/store.ts";
export { MemoryState } from "./src/backends/memory/state.ts";
export { KvState } from "./src/backends/kv/state.ts";

// --- rate limiting
export type { RateLimitBucket, RateLimiterInterface } from "./src/ratelimit/limiter.ts";
export { MemoryRateLimiter, type MemoryRateLimiterOptions } from "./src/backends/memory/rate_limiter.ts";
export { KvRateLimiter, type KvRateLimiterOptions } from "./src/backends/kv/rate_limiter.ts";
