/**
 * A Cloudflare Worker receiving the gateway server's webhooks on the Workers-native backends
 * (see wrangler.toml for the bindings):
 *
 * - `DB` (D1): the records (`D1Store`: webhook logs, inbound messages, sends) and the shared state. The
 *   tables come from `applyD1Migrations` at the first request of an isolate (or from
 *   `wrangler d1 migrations apply`, with the shipped `.sql` files).
 * - `COORDINATOR` (Durable Object `GatewayCoordinator`): redeliveries of a webhook are claimed there, so a
 *   webhook runs once whichever isolate receives it; the outbound rate limits are counted there too.
 * - `WEBHOOK_QUEUE` (Queue, with a dead-letter queue): the receiver answers 202 once the webhook is queued;
 *   `queue()` processes it, retrying failures with backoff until the DLQ.
 * - Cron triggers: prune old records and resend failed messages, one run at a time across isolates.
 *
 * Configuration: GATEWAY_WEBHOOK_SECRET as a secret (`wrangler secret put GATEWAY_WEBHOOK_SECRET`), the other
 * GATEWAY_WEBHOOK_* settings and GATEWAY_API_URL / GATEWAY_API_KEY (for the cron tasks) as vars or secrets.
 */

import { createWebhookHandler, GatewayService, type WebhookHandler, WebhookProcessor } from "../../mod.ts";
import { createScheduledHandler } from "../../src/tasks/mod.ts";
import { stateTaskLease } from "../../src/tasks/mod.ts";
import { webhookOptionsFromEnv } from "../../src/webhooks/mod.ts";
import {
  applyD1Migrations,
  CloudflareWebhookQueue,
  CoordinatorRateLimiter,
  CoordinatorWebhookDedupe,
  type D1Database,
  D1Store,
  type DurableObjectNamespace,
  GatewayCoordinator,
  type MessageBatch,
  processWebhookBatch,
  type Queue,
} from "../../src/backends/cloudflare/mod.ts";

// The runtime instantiates the Durable Object class from the Worker's exports.
export { GatewayCoordinator };

export interface Env {
  DB: D1Database;
  COORDINATOR: DurableObjectNamespace;
  WEBHOOK_QUEUE: Queue;
  GATEWAY_WEBHOOK_SECRET?: string;
  GATEWAY_API_URL?: string;
  GATEWAY_API_KEY?: string;
  [name: string]: unknown;
}

/** The handlers: with a store, the processor also saves each inbound message (ProcessIncomingMessage). */
const processor = new WebhookProcessor().on("messages.upsert", (payload) => {
  if (payload.isInboundMessage) {
    console.log(`${payload.instance} ← ${payload.senderJid}: ${payload.text ?? ""}`);
  }
});

/** Queue settings shared by the consumer: maxAttempts = wrangler's max_retries + 1. */
const MAX_ATTEMPTS = 5;

interface Gateway {
  ready: Promise<unknown>;
  store: D1Store;
  webhooks: WebhookHandler;
}

// Bindings are the same for every event an isolate runs, so the gateway is built once per isolate.
let gateway: Gateway | undefined;

function gatewayFor(env: Env): Gateway {
  if (gateway !== undefined) return gateway;
  const store = new D1Store(env.DB);
  const webhooks = createWebhookHandler({
    ...webhookOptionsFromEnv((name) => typeof env[name] === "string" ? env[name] as string : undefined),
    processor,
    store,
    dedupe: new CoordinatorWebhookDedupe(env.COORDINATOR),
    queue: { enabled: true, backend: new CloudflareWebhookQueue(env.WEBHOOK_QUEUE, { bodies: env.DB }) },
  });
  return gateway = { ready: applyD1Migrations(env.DB), store, webhooks };
}

const scheduled = createScheduledHandler<Env>({
  store: (env) => gatewayFor(env).store,
  service: (env) =>
    GatewayService.make({
      server_url: env.GATEWAY_API_URL ?? "",
      api_key: env.GATEWAY_API_KEY ?? "",
      store: gatewayFor(env).store,
      rate_limiting: { limiter: new CoordinatorRateLimiter(env.COORDINATOR) },
    }),
  lease: (env) => stateTaskLease(gatewayFor(env).store.state),
  prune: { schedule: "0 3 * * *", days: 30 },
  retryFailed: { schedule: "*/5 * * * *" },
});

export default {
  async fetch(
    request: Request,
    env: Env,
    ctx: { waitUntil(promise: Promise<unknown>): void },
  ): Promise<Response> {
    const { ready, store, webhooks } = gatewayFor(env);
    await ready;
    if (new URL(request.url).pathname === "/webhook-logs" && request.method === "GET") {
      const [processed, failed] = await Promise.all([
        store.listWebhookLogs({ status: "processed", limit: 20 }),
        store.listWebhookLogs({ status: "failed", limit: 20 }),
      ]);
      return Response.json({ processed, failed });
    }
    return await webhooks(request, env, ctx);
  },

  async queue(batch: MessageBatch, env: Env): Promise<void> {
    const { ready, store } = gatewayFor(env);
    await ready;
    await processWebhookBatch(batch, processor, { store, bodies: env.DB, maxAttempts: MAX_ATTEMPTS });
  },

  scheduled,
};
