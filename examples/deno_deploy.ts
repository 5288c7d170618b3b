/**
 * Receive webhooks on Deno Deploy (or locally with `deno serve --unstable-kv examples/deno_deploy.ts`),
 * answering 202 at once and processing from the Deno KV queue: retries with backoff, a dead-letter list for
 * events that keep failing, and redelivery detection shared by every isolate.
 *
 * Set GATEWAY_WEBHOOK_SECRET in the project's environment variables.
 */

import { createWebhookHandler, WebhookProcessor } from "../mod.ts";
import { startWebhookWorker } from "../src/webhooks/mod.ts";
import { KvWebhookDedupe, webhookOptionsFromEnv } from "../src/webhooks/mod.ts";

const kv = await Deno.openKv();

const processor = new WebhookProcessor().on("messages.upsert", async (payload) => {
  if (!payload.isInboundMessage) return;
  // Slow work is fine here: the server already has its 202.
  await kv.set(["inbox", payload.instance, payload.messageId!], {
    from: payload.senderJid,
    text: payload.text,
  });
});

// One listener per KV handle: the worker takes the webhook jobs.
startWebhookWorker(kv, processor, { maxAttempts: 5, backoffMs: [1_000, 10_000, 60_000, 300_000] });

const handler = createWebhookHandler({
  ...webhookOptionsFromEnv((name) => Deno.env.get(name)),
  processor,
  queue: { enabled: true, kv },
  dedupe: new KvWebhookDedupe(kv, { windowSeconds: 3600 }),
});

export default { fetch: handler } satisfies Deno.ServeDefaultExport;
