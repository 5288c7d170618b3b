/**
 * `@gw/gateway/redis`: the shared-state backends on Redis, for several app servers next to one gateway
 * server. Each is built with `{ url }` (a `redis://` URL; the connection opens on first use) or
 * `{ client }` (a node-redis client you opened), and closed with `close()`.
 *
 * The Redis client (`@redis/client`, node-redis's core) is loaded only when a backend opens a URL, so
 * nobody who does not use this entry point loads it.
 *
 * @example Everything shared through one Redis
 * ```ts
 * import { createWebhookHandler, GatewayService, WebhookProcessor } from "@gw/gateway";
 * import { RedisRateLimiter, RedisStore, RedisWebhookDedupe, RedisWebhookQueue } from "@gw/gateway/redis";
 * const url = "redis://127.0.0.1:6379";
 * const store = new RedisStore({ url });
 * const gw = GatewayService.make({
 *   server_url: "http://localhost:8080",
 *   api_key: "...",
 *   rate_limiting: { limiter: new RedisRateLimiter({ url }) },
 * });
 * const queue = new RedisWebhookQueue({ url });
 * const processor = new WebhookProcessor();
 * const handler = createWebhookHandler({
 *   signature: { secret: "s3cret" },
 *   processor,
 *   store,
 *   dedupe: new RedisWebhookDedupe({ url }),
 *   queue: { enabled: true, backend: queue },
 * });
 * queue.startWorker(processor, { store });
 * ```
 *
 * @module
 */

export type { RedisBackendOptions, RedisCommandClient, RedisConnectionOptions } from "./connection.ts";
export { RedisRateLimiter, type RedisRateLimiterOptions } from "./rate_limiter.ts";
export { RedisWebhookDedupe, type RedisWebhookDedupeOptions } from "./dedupe.ts";
export { RedisState, type RedisStateOptions } from "./state.ts";
export { RedisStore, type RedisStoreOptions } from "./store.ts";
export { RedisWebhookQueue, type RedisWebhookQueueOptions, type RedisWebhookWorkerOptions } from "./queue.ts";
export type { RedisWebhookWorker } from "./queue_worker.ts";
export { RedisTaskLease, type RedisTaskLeaseOptions } from "./lease.ts";
