/**
 * `@gw/gateway/webhooks`: the webhook receiver alone (no outbound client in its module graph), for Workers
 * and deployments that only receive.
 *
 * @example A Worker (or `deno serve --allow-env=GATEWAY_WEBHOOK_SECRET worker.ts`)
 * ```ts
 * import { handleWebhook, webhookProcessor } from "@gw/gateway/webhooks";
 * webhookProcessor().on("messages.upsert", (payload) => console.log(payload.senderJid, payload.text));
 * export default { fetch: handleWebhook };
 * ```
 *
 * @module
 */

export { ConfigurationException, GatewayApiException, WebhookException } from "../errors.ts";

export { type MetricLabels, MetricsCollector, type MetricSeries, type MetricsSnapshot } from "../metrics.ts";
export type {
  GatewayStore,
  InboundMessageRecord,
  InstanceSnapshot,
  OutboundMessageRecord,
  OutboundQuery,
  OutboundStatus,
  RecordKind,
  WebhookLogRecord,
  WebhookLogStatus,
} from "../store/store.ts";
export type {
  StateEntry,
  StateListEntry,
  StateListOptions,
  StateSetOptions,
  StateStore,
} from "../store/state.ts";
export {
  createWebhookHandler,
  DEFAULT_BODY_TIMEOUT_MS,
  type WebhookExecutionContext,
  type WebhookHandler,
  type WebhookHandlerOptions,
  type WebhookHandlerQueueOptions,
  type WebhookMiddleware,
  type WebhookRequestContext,
} from "./handler.ts";
export { type Arrival, NO_ARRIVAL } from "../inbound/arrivals.ts";
export type { InboundLines, InboundRead, LinePlace, Placed } from "../inbound/lines.ts";
export {
  type HeldClaim,
  type InboundClaimOptions,
  InboundMessageClaims,
  MESSAGE_CLAIM_LEASE_MS,
  type MessageClaimState,
  type MessageOrigin,
} from "./message_claims.ts";
export {
  type EnvWebhookHandler,
  handleWebhook,
  resetDefaultWebhookHandler,
  webhookHandlerFromEnv,
  webhookProcessor,
} from "./default_handler.ts";
export * from "./signature.ts";
export {
  dottedWebhookEvent,
  normalizeWebhookEvent,
  WEBHOOK_EVENTS,
  type WebhookPayloadContext,
  WebhookPayloadDto,
  type WebhookPayloadOf,
} from "./payload.ts";
export {
  WEBHOOK_CONFIG_EVENTS,
  WEBHOOK_EVENT_NAMES,
  WEBHOOK_EVENT_TABLE,
  type WebhookEventKind,
  type WebhookEventKindOf,
  type WebhookEventName,
  type WebhookEventNameOf,
  type WebhookEventSpelling,
  type WebhookEventSpellingsOf,
} from "./events/names.ts";
export type * from "./events/data.ts";
export {
  type MessageOutcome,
  type WebhookEventHandler,
  type WebhookHandlerFunction,
  WebhookProcessingException,
  WebhookProcessor,
  type WebhookProcessorOptions,
} from "./processor.ts";
export { AbstractWebhookHandler } from "./handler_base.ts";
export { LogWebhookEvent } from "./plugins/log.ts";
export { ProcessIncomingMessage } from "./plugins/inbound_records.ts";
export { LearnFromWebhook } from "./plugins/learn.ts";
export type { InboundContext, InboundMiddleware } from "./inbound_middleware.ts";
export { LearnLidPairs } from "./plugins/lid_pairs.ts";
export { TrackMessageStatus } from "./plugins/message_status.ts";
export { RecordInstanceHealth } from "./plugins/instance_health.ts";
export {
  type NodeListenerOptions,
  type NodeRequestLike,
  type NodeResponseLike,
  toNodeListener,
} from "./node_listener.ts";
export { MessageReceived, type MessageReceivedDetail, WebhookEvent, WebhookReceived } from "../events.ts";
export {
  type DeadLetter,
  enqueueWebhookJob,
  isProcessWebhookJob,
  KvWebhookQueue,
  listDeadLetters,
  type ProcessWebhookJob,
  requeueDeadLetter,
  runWebhookJob,
  settleWebhookJob,
  startWebhookWorker,
  WEBHOOK_JOB_TYPE,
  type WebhookJobOutcome,
  type WebhookJobQueue,
  type WebhookJobSettler,
  type WebhookQueueOptions,
  type WebhookWorker,
  type WebhookWorkerOptions,
} from "./queue.ts";
export { type WebhookDedupe, type WebhookDedupeOptions } from "./dedupe.ts";
export { MemoryWebhookDedupe } from "../backends/memory/dedupe.ts";
export { KvWebhookDedupe } from "../backends/kv/dedupe.ts";
export {
  denoEnvLookup,
  WEBHOOK_ENV_VARIABLES,
  type WebhookEnvOptions,
  webhookOptionsFromEnv,
} from "./env.ts";
