/**
 * `@gw/gateway/cloudflare`: Cloudflare Workers backends.
 *
 * @module
 */
export { applyD1Migrations, D1_MIGRATIONS, type D1Migration } from "./migrations.ts";
export { D1State } from "./d1_state.ts";
export { D1Store, type D1StoreOptions } from "./d1_store.ts";
export type {
  D1Database,
  D1PreparedStatement,
  D1Result,
  DurableObjectId,
  DurableObjectNamespace,
  DurableObjectState,
  DurableObjectStorage,
  DurableObjectStub,
  Message,
  MessageBatch,
  Queue,
  QueueSendOptions,
  SqlStorage,
  SqlStorageCursor,
} from "./bindings.ts";
export { GatewayCoordinator } from "./coordinator.ts";
export type { CoordinatorObjectName } from "./coordinator_protocol.ts";
export { CoordinatorRateLimiter, type CoordinatorRateLimiterOptions } from "./coordinator_rate_limiter.ts";
export { CoordinatorWebhookDedupe, type CoordinatorWebhookDedupeOptions } from "./coordinator_dedupe.ts";
export { CoordinatorState, type CoordinatorStateOptions } from "./coordinator_state.ts";
export {
  CloudflareWebhookQueue,
  type CloudflareWebhookQueueOptions,
  processWebhookBatch,
  QUEUE_INLINE_BODY_BYTES,
  type WebhookBatchOptions,
} from "./webhook_queue.ts";
