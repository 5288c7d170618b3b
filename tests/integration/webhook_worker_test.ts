/**
 * The Cloudflare Worker example in the real Workers runtime (workerd through npm `miniflare`), offline on
 * 127.0.0.1: the example is bundled to one ES module with `deno bundle` and loaded with the bindings of its
 * wrangler.toml (D1, the GatewayCoordinator Durable Object, the queue and its dead-letter queue), then sent
 * a signed and an unsigned webhook, and its cron trigger.
 */

import { deepStrictEqual, strictEqual } from "node:assert/strict";
import { Miniflare } from "../npm/miniflare.ts";
import type { D1Database } from "../../src/backends/cloudflare/bindings.ts";
import { D1Store } from "../../src/backends/cloudflare/d1_store.ts";
import { signWebhook } from "../../src/webhooks/signature.ts";
import { bundleWorker, until } from "../helpers/cloudflare.ts";
import { realNowSeconds } from "../helpers/real_clock.ts";

const SECRET = "worker-secret-7";

Deno.test({
  name:
    "Cloudflare Worker example in workerd: signed webhook → 202, queued, processed into D1; unsigned → 401",
  // miniflare itself leaves a MessagePort and an undici keep-alive timer open after dispose() (checked:
  // with the sanitizers on, those two are the only leaks reported); everything of ours is closed.
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    Deno.env.set("WRANGLER_SEND_METRICS", "false");
    const mf = new Miniflare({
      modules: true,
      // The module text, not its path: workerd refuses module names that climb out of its root with "..".
      script: await bundleWorker("examples/cloudflare_worker/worker.ts"),
      compatibilityDate: "2025-09-01",
      // As in examples/cloudflare_worker/wrangler.toml.
      bindings: {
        GATEWAY_WEBHOOK_SECRET: SECRET,
        GATEWAY_WEBHOOK_SCHEME: "hmac",
        GATEWAY_API_URL: "http://127.0.0.1:9",
        GATEWAY_API_KEY: "unused-key",
      },
      d1Databases: ["DB"],
      durableObjects: { COORDINATOR: { className: "GatewayCoordinator", useSQLite: true } },
      queueProducers: { WEBHOOK_QUEUE: "gateway-webhooks" },
      queueConsumers: {
        "gateway-webhooks": { maxBatchTimeout: 1, maxRetries: 4, deadLetterQueue: "gateway-webhooks-dlq" },
      },
      host: "127.0.0.1",
      port: 0,
    });
    try {
      const body = JSON.stringify({
        event: "messages.upsert",
        instance: "sales",
        data: {
          key: { id: "W1", remoteJid: "42@lid", remoteJidAlt: "5511999999999@s.whatsapp.net", fromMe: false },
          message: { conversation: "from workerd ☁️" },
        },
      });
      // Signed on the receiver's clock (workerd keeps the real one under faketime, see real_clock.ts).
      const headers = await signWebhook({ body, secret: SECRET, timestamp: await realNowSeconds() });
      const signed = await mf.dispatchFetch("http://127.0.0.1/gateway/webhook/sales", {
        method: "POST",
        headers,
        body,
      });
      strictEqual(signed.status, 202);
      deepStrictEqual(await signed.json(), { ok: true, queued: true });

      const unsigned = await mf.dispatchFetch("http://127.0.0.1/gateway/webhook/sales", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body,
      });
      strictEqual(unsigned.status, 401);
      deepStrictEqual(await unsigned.json(), { ok: false, error: "Unauthorized" });

      const health = await mf.dispatchFetch("http://127.0.0.1/gateway/webhook/health");
      strictEqual(health.status, 200);
      await health.arrayBuffer();

      // The queue consumer ran the handlers: the webhook log says processed, the message is in D1.
      const logs = await until("the processed webhook log", async () => {
        const response = await mf.dispatchFetch("http://127.0.0.1/webhook-logs");
        return await response.json() as {
          processed: { event: string; instance: string }[];
          failed: unknown[];
        };
      }, (value) => value.processed.length === 1);
      deepStrictEqual(logs.processed.map((log) => [log.event, log.instance]), [["MESSAGES_UPSERT", "sales"]]);
      deepStrictEqual(logs.failed, []);
      const db = await mf.getD1Database("DB") as unknown as D1Database;
      const inbound = await new D1Store(db).getInbound("sales", "W1");
      deepStrictEqual([inbound?.sender, inbound?.text], ["5511999999999@s.whatsapp.net", "from workerd ☁️"]);

      // The daily cron trigger prunes (nothing is 30 days old yet), under a lease in D1 that it gives back.
      // (miniflare's Fetcher type has no `scheduled`, the object has.)
      const worker = await mf.getWorker() as unknown as {
        scheduled(options: { cron: string }): Promise<{ outcome: string }>;
      };
      const outcome = await worker.scheduled({ cron: "0 3 * * *" });
      strictEqual(outcome.outcome, "ok");
      const { results } = await db.prepare(
        "SELECT COUNT(*) AS n FROM gateway_state WHERE namespace = 'task_lease'",
      )
        .all<{ n: number }>();
      strictEqual(results[0].n, 0);
    } finally {
      await mf.dispose();
    }
  },
});
