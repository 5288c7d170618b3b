/**
 * The Cloudflare backends inside the real Workers runtime (workerd through npm `miniflare`, offline): a
 * Worker bundled with `deno bundle`, with a SQLite-backed GatewayCoordinator Durable Object, a D1 database
 * and a queue with a dead-letter queue, driven by concurrent requests from here. The coordinator's state
 * also runs the StateStore contract suite, through miniflare's Durable Object binding.
 */

import { deepStrictEqual, strictEqual } from "node:assert/strict";
import { Miniflare } from "../npm/miniflare.ts";
import type { D1Database, DurableObjectNamespace } from "../../src/backends/cloudflare/bindings.ts";
import { CoordinatorState } from "../../src/backends/cloudflare/coordinator_state.ts";
import { D1State } from "../../src/backends/cloudflare/d1_state.ts";
import { D1Store } from "../../src/backends/cloudflare/d1_store.ts";
import { signWebhook } from "../../src/webhooks/signature.ts";
import { CoordinatorRateLimiter } from "../../src/backends/cloudflare/coordinator_rate_limiter.ts";
import { CoordinatorWebhookDedupe } from "../../src/backends/cloudflare/coordinator_dedupe.ts";
import { limiterContract } from "../unit/ratelimit_contract.ts";
import { stateContract } from "../unit/state_contract.ts";
import { bundleWorker, until } from "../helpers/cloudflare.ts";
import { realNowSeconds } from "../helpers/real_clock.ts";

Deno.env.set("WRANGLER_SEND_METRICS", "false");
const SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
const mf = new Miniflare({
  modules: true,
  // The module text, not its path: workerd refuses module names that climb out of its root with "..".
  script: await bundleWorker("tests/fixtures/cloudflare_fixture_worker.ts"),
  compatibilityDate: "2025-09-01",
  bindings: { GATEWAY_WEBHOOK_SECRET: SECRET },
  d1Databases: ["DB"],
  durableObjects: { COORDINATOR: { className: "GatewayCoordinator", useSQLite: true } },
  queueProducers: { WEBHOOK_QUEUE: "gateway-webhooks" },
  queueConsumers: {
    // As in wrangler.toml: max_retries = 2 (3 deliveries, the fixture's max_attempts) and a dead-letter queue.
    "gateway-webhooks": { maxBatchTimeout: 1, maxRetries: 2, deadLetterQueue: "gateway-webhooks-dlq" },
    "gateway-webhooks-dlq": { maxBatchTimeout: 1 },
  },
});
const db = await mf.getD1Database("DB") as unknown as D1Database;
const coordinator = await mf.getDurableObjectNamespace("COORDINATOR") as unknown as DurableObjectNamespace;

// miniflare's client keeps keep-alive timers of its own across tests: the sanitizers are off in this file.
function workerTest(name: string, fn: () => Promise<void>): void {
  Deno.test({ name, sanitizeOps: false, sanitizeResources: false, fn });
}

function webhook(id: string, text: string): string {
  return JSON.stringify({
    event: "messages.upsert",
    instance: "sales",
    data: {
      key: { id, remoteJid: "5511999999999@s.whatsapp.net", fromMe: false },
      message: { conversation: text },
    },
  });
}

async function deliver(body: string, deliveryId: string) {
  // Signed on the receiver's clock (workerd keeps the real one under faketime, see real_clock.ts).
  const timestamp = await realNowSeconds();
  const headers = await signWebhook({ body, secret: SECRET, scheme: "standard", id: deliveryId, timestamp });
  return await mf.dispatchFetch("http://127.0.0.1/gateway/webhook/sales", { method: "POST", headers, body });
}

stateContract({
  name: "CoordinatorState (Durable Object in workerd)",
  sanitize: false,
  // One namespace object per test run, so that tests never see each other's entries.
  open: (now) => {
    const run = crypto.randomUUID();
    return Promise.resolve({
      state: new CoordinatorState(coordinator, { now, objectName: (space) => `state:${run}:${space}` }),
      close: () => {},
    });
  },
});

limiterContract(
  "CoordinatorRateLimiter (Durable Object in workerd)",
  (clock) => {
    // Fresh objects per test run; the fake clock travels with each request.
    const run = crypto.randomUUID();
    const limiter = new CoordinatorRateLimiter(coordinator, {
      now: clock.now,
      objectName: (key) => `ratelimit:${run}:${key}`,
    });
    return Promise.resolve({ limiter, close: () => {} });
  },
  { sanitize: false },
);

workerTest("GatewayCoordinator: 100 concurrent attempts against a limit of 40 → exactly 40", async () => {
  const answers = await Promise.all(
    Array.from({ length: 100 }, async () => {
      const response = await mf.dispatchFetch("http://127.0.0.1/attempt", { method: "POST" });
      return ((await response.json()) as { allowed: boolean }).allowed;
    }),
  );
  strictEqual(answers.filter((allowed) => allowed).length, 40);
  strictEqual(answers.filter((allowed) => !allowed).length, 60);
});

workerTest(
  "CoordinatorWebhookDedupe: claim, lease, complete, window, release, and 50 concurrent claims",
  async () => {
    const T0 = 1_760_000_000_000;
    const dedupe = new CoordinatorWebhookDedupe(coordinator, {
      leaseSeconds: 10,
      windowSeconds: 60,
      objectName: `dedupe:${crypto.randomUUID()}`,
    });
    strictEqual(await dedupe.claim("a", T0), true);
    strictEqual(await dedupe.state("a", T0 + 1), "processing");
    strictEqual(await dedupe.claim("a", T0 + 1000), false);
    // The lease ran out without completion: another delivery may take over.
    strictEqual(await dedupe.claim("a", T0 + 10_001), true);
    await dedupe.complete("a", T0 + 10_001);
    strictEqual(await dedupe.state("a", T0 + 20_000), "done");
    strictEqual(await dedupe.claim("a", T0 + 10_001 + 59_999), false);
    // The window ran out: a new delivery is processed again; a released claim is free at once.
    strictEqual(await dedupe.claim("a", T0 + 10_001 + 60_000), true);
    await dedupe.release("a");
    strictEqual(await dedupe.state("a", T0 + 70_002), null);
    strictEqual(await dedupe.claim("a", T0 + 70_002), true);
    const wins = await Promise.all(Array.from({ length: 50 }, () => dedupe.claim("many", T0)));
    strictEqual(wins.filter((won) => won).length, 1);
  },
);

workerTest("50 concurrent deliveries of one webhook → queued once, the handler runs once", async () => {
  const body = webhook("ONCE1", "hello once");
  const responses = await Promise.all(Array.from({ length: 50 }, () => deliver(body, "msg_once_1")));
  const statuses = await Promise.all(responses.map(async (response) => {
    await response.arrayBuffer();
    return response.status;
  }));
  // One 202 (queued); the others are duplicates (200) or told to come back while the first is claimed (409).
  strictEqual(statuses.filter((status) => status === 202).length, 1);
  strictEqual(statuses.filter((status) => status !== 202 && status !== 200 && status !== 409).length, 0);
  const state = new D1State(db);
  await until(
    "the processed webhook log",
    () => new D1Store(db).getWebhookLog("msg_once_1"),
    (log) => log?.status === "processed",
  );
  const calls = (await state.list<{ deliveryId: string }>("calls")).filter((c) =>
    c.value.deliveryId === "msg_once_1"
  );
  strictEqual(calls.length, 1);
  // A later redelivery is a duplicate: 200, and still one run.
  const again = await deliver(body, "msg_once_1");
  deepStrictEqual(await again.json(), { ok: true, duplicate: true });
  strictEqual(
    (await state.list<{ deliveryId: string }>("calls")).filter((c) => c.value.deliveryId === "msg_once_1")
      .length,
    1,
  );
  deepStrictEqual((await new D1Store(db).getInbound("sales", "ONCE1"))?.text, "hello once");
});

workerTest("a throwing handler is retried through the queue, then dead-lettered to the DLQ", async () => {
  const response = await deliver(webhook("BOOM1", "boom"), "msg_boom_1");
  strictEqual(response.status, 202);
  await response.arrayBuffer();
  const state = new D1State(db);
  const dlq = await until(
    "the dead-letter queue",
    () => state.list<{ deliveryId: string }>("dlq"),
    (entries) => entries.some((e) => e.value.deliveryId === "msg_boom_1"),
  );
  const jobId = dlq.find((e) => e.value.deliveryId === "msg_boom_1")!.key;
  // Three deliveries (max_retries = 2), each a run of the handler; then recorded as a dead letter.
  const calls = (await state.list<{ deliveryId: string }>("calls")).filter((c) =>
    c.value.deliveryId === "msg_boom_1"
  );
  strictEqual(calls.length, 3);
  deepStrictEqual((await state.get("dead_letters", jobId))?.value, {
    error: 'WebhookProcessingException: Cannot process webhook "MESSAGES_UPSERT": handler failed on purpose',
    attempts: 3,
  });
  const log = await new D1Store(db).getWebhookLog("msg_boom_1");
  strictEqual(log?.status, "failed");
  strictEqual(
    log?.error,
    'WebhookProcessingException: Cannot process webhook "MESSAGES_UPSERT": handler failed on purpose',
  );
});

workerTest("a body larger than a queue message goes through D1 and is processed", async () => {
  const text = "x".repeat(150_000);
  const response = await deliver(webhook("BIG1", text), "msg_big_1");
  strictEqual(response.status, 202);
  await response.arrayBuffer();
  await until(
    "the processed webhook log",
    () => new D1Store(db).getWebhookLog("msg_big_1"),
    (log) => log?.status === "processed",
  );
  strictEqual((await new D1Store(db).getInbound("sales", "BIG1"))?.text, text);
  const { results } = await db.prepare("SELECT COUNT(*) AS n FROM gateway_webhook_bodies").all<
    { n: number }
  >();
  strictEqual(results[0].n, 0);
});

workerTest("workerd: dispose", () => mf.dispose());
