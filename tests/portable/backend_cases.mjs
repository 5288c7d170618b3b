// The memory and Redis backends as installed from the package: exact limits and claims, the store, the
// state, the queue behind the webhook handler, the lease; a clear error when Redis cannot be reached.
import { deepStrictEqual, ok, rejects, strictEqual } from "node:assert/strict";
import { createWebhookHandler, MemoryStore, WebhookProcessor } from "@gw/gateway";
import {
  RedisRateLimiter,
  RedisState,
  RedisStore,
  RedisTaskLease,
  RedisWebhookDedupe,
  RedisWebhookQueue,
} from "@gw/gateway/redis";
import { signWebhook } from "@gw/gateway/testing";
import { freePort, startRedis } from "./helpers.mjs";
import { test } from "./runner.mjs";

async function withRedis(body) {
  const redis = await startRedis();
  try {
    await body(redis.url);
  } finally {
    await redis.close();
  }
}

const record = (id, createdAt, status = "failed") => ({
  id,
  connection: "default",
  instance: "sales",
  recipient: "5511999999999",
  type: "text",
  route: "/message/sendText/{instance}",
  body: { number: "5511999999999", text: id },
  status,
  outcomeUnknown: false,
  retryCount: 0,
  createdAt,
  updatedAt: createdAt,
});

test("MemoryStore: records, indexes and state", async () => {
  const store = new MemoryStore();
  await store.saveOutbound(record("b", 2));
  await store.saveOutbound(record("a", 1));
  deepStrictEqual((await store.listOutbound({ status: "failed" })).map((r) => r.id), ["a", "b"]);
  ok(await store.state.set("n", "k", 1, { expectedVersion: null }));
  strictEqual(await store.state.set("n", "k", 2, { expectedVersion: null }), null);
});

test("RedisRateLimiter: 60 concurrent attempts over 3 connections take exactly 25 slots", async () => {
  await withRedis(async (url) => {
    const limiters = [0, 1, 2].map(() => new RedisRateLimiter({ url }));
    try {
      const results = await Promise.all(
        Array.from({ length: 60 }, (_, i) => limiters[i % 3].attempt("k", 25, 60)),
      );
      strictEqual(results.filter(Boolean).length, 25);
      strictEqual(await limiters[0].availableIn("k", 60) > 59, true);
    } finally {
      await Promise.all(limiters.map((l) => l.close()));
    }
  });
});

test("RedisWebhookDedupe: 20 concurrent claims, one wins; complete then refuses", async () => {
  await withRedis(async (url) => {
    const dedupe = new RedisWebhookDedupe({ url });
    try {
      const now = Date.now();
      const claims = await Promise.all(Array.from({ length: 20 }, () => dedupe.claim("evt", now)));
      strictEqual(claims.filter(Boolean).length, 1);
      await dedupe.complete("evt", now);
      strictEqual(await dedupe.state("evt", now), "done");
      strictEqual(await dedupe.claim("evt", now + 1000), false);
    } finally {
      await dedupe.close();
    }
  });
});

test("RedisStore and RedisState: indexes, compare-and-set, prune", async () => {
  await withRedis(async (url) => {
    const store = new RedisStore({ url });
    const state = new RedisState({ url, prefix: "other:" });
    try {
      await store.saveOutbound(record("b", 200));
      await store.saveOutbound(record("a", 100));
      await store.saveOutbound(record("c", 300, "sent"));
      deepStrictEqual((await store.listOutbound({ status: "failed" })).map((r) => r.id), ["a", "b"]);
      strictEqual((await store.updateOutbound("a", { status: "pending" }, 100))?.status, "pending");
      strictEqual(await store.updateOutbound("a", { status: "pending" }, 100), null);
      strictEqual(await store.prune("outbound", 250), 2);
      deepStrictEqual((await store.listOutbound()).map((r) => r.id), ["c"]);
      const v1 = await state.set("claims", "order", { by: "a" }, { expectedVersion: null });
      ok(v1 !== null);
      strictEqual(await state.set("claims", "order", { by: "b" }, { expectedVersion: null }), null);
      deepStrictEqual(await state.get("claims", "order"), { value: { by: "a" }, version: v1 });
      strictEqual(await store.state.get("claims", "order"), null);
    } finally {
      await store.close();
      await state.close();
    }
  });
});

test("RedisWebhookQueue behind the webhook handler: 202, then a worker runs the job once", async () => {
  await withRedis(async (url) => {
    const queue = new RedisWebhookQueue({ url });
    try {
      const seen = [];
      const processor = new WebhookProcessor({ log: false }).on("messages.upsert", (p) => {
        seen.push(p.text);
      });
      const handler = createWebhookHandler({
        signature: { secret: "s" },
        processor,
        metrics: false,
        queue: { enabled: true, backend: queue },
      });
      const body = JSON.stringify({
        event: "messages.upsert",
        instance: "sales",
        data: { key: { id: "Q" }, message: { conversation: "queued" } },
      });
      const response = await handler(
        new Request("http://h/gateway/webhook/sales", {
          method: "POST",
          headers: await signWebhook({ body, secret: "s" }),
          body,
        }),
      );
      strictEqual(response.status, 202);
      strictEqual(await queue.runNext(processor), "processed");
      strictEqual(await queue.runNext(processor), null);
      deepStrictEqual(seen, ["queued"]);
    } finally {
      await queue.close();
    }
  });
});

test("RedisTaskLease: one holder at a time", async () => {
  await withRedis(async (url) => {
    const a = new RedisTaskLease({ url });
    const b = new RedisTaskLease({ url });
    try {
      const release = await a.acquire("prune", 60_000);
      ok(release !== null);
      strictEqual(await b.acquire("prune", 60_000), null);
      await release();
      ok(await b.acquire("prune", 60_000) !== null);
    } finally {
      await a.close();
      await b.close();
    }
  });
});

test("Redis backends: an unreachable server is a ConnectionException naming host:port, never the password", async () => {
  const port = await freePort();
  const limiter = new RedisRateLimiter({
    url: `redis://:secret-pw@127.0.0.1:${port}`,
    connectTimeoutMs: 500,
  });
  try {
    await rejects(limiter.attempt("k", 1, 60), (error) => {
      strictEqual(error.name, "ConnectionException");
      ok(error.message.startsWith(`Cannot connect to Redis at "127.0.0.1:${port}": `), error.message);
      strictEqual(error.message.includes("secret-pw"), false);
      return true;
    });
  } finally {
    await limiter.close();
  }
});
