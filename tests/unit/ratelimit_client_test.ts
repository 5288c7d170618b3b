// The gate as the client uses it: one slot per logical call, fetch never called on a refusal.

import { deepStrictEqual, rejects, strictEqual } from "node:assert/strict";
import { configure, reset } from "@logtape/logtape";
import { GatewayClient } from "../../src/client/client.ts";
import { ConnectionManager } from "../../src/client/connection_manager.ts";
import type { RateLimitingConfig } from "../../src/config.ts";
import { RateLimitException } from "../../src/errors.ts";
import { MetricsCollector } from "../../src/metrics.ts";
import { RateLimitGate } from "../../src/ratelimit/gate.ts";
import type { RateLimiterInterface } from "../../src/ratelimit/limiter.ts";
import { MemoryRateLimiter } from "../../src/backends/memory/rate_limiter.ts";
import { GatewayService } from "../../src/service.ts";
import { fakeTime, json, scriptedFetch, type Step } from "../helpers/scripted_fetch.ts";

const BASE = "http://127.0.0.1:9";

function setup(steps: Step[], rateLimiting: RateLimitingConfig, http = {}) {
  const time = fakeTime();
  const metrics = new MetricsCollector();
  const limiter = rateLimiting.limiter ?? new MemoryRateLimiter({ now: time.now });
  const gate = new RateLimitGate({ limiter, ...rateLimiting }, { metrics, sleep: time.sleep, now: time.now });
  const { fetch, calls } = scriptedFetch(steps);
  const client = new GatewayClient({ http }, {
    connections: new ConnectionManager({ server_url: BASE, api_key: "key-123", instance: "sales" }),
    metrics,
    gate,
    fetch,
    now: time.now,
    sleep: time.sleep,
    random: () => 0.5,
  });
  const decisions = () => metrics.snapshot().gateway_rate_limit_total ?? [];
  return { client, calls, time, metrics, limiter, decisions };
}

const send = { body: { number: "1", text: "hi" }, bucket: "messages" } as const;

Deno.test("client + gate: retries of one call take one slot", async () => {
  const { client, calls, decisions } = setup(
    [json(503, {}), json(200, { ok: 1 }), json(502, {}), json(200, { ok: 2 })],
    { on_limit_reached: "throw", limits: { default: { max_attempts: 2, decay_seconds: 60 } } },
  );
  strictEqual((await client.request("GET", "/chat/findChats/{instance}")).attempts, 2);
  strictEqual((await client.request("GET", "/chat/findChats/{instance}")).attempts, 2);
  strictEqual(calls.length, 4);
  await rejects(client.request("GET", "/chat/findChats/{instance}"), RateLimitException);
  strictEqual(calls.length, 4);
  deepStrictEqual(decisions(), [
    { labels: { bucket: "default", decision: "allowed" }, count: 2 },
    { labels: { bucket: "default", decision: "refused" }, count: 1 },
  ]);
});

Deno.test("client + gate: throw mode never calls fetch and reports the retry-after", async () => {
  const { client, calls, time, metrics } = setup([json(201, {})], {
    on_limit_reached: "throw",
    limits: { messages: { max_attempts: 1, decay_seconds: 60 } },
  });
  await client.request("POST", "/message/sendText/{instance}", send);
  time.advance(45_000);
  await rejects(client.request("POST", "/message/sendText/{instance}", send), (error: RateLimitException) => {
    strictEqual(error instanceof RateLimitException, true);
    strictEqual(error.getRetryAfter(), 15);
    strictEqual(error.attempts, 0);
    strictEqual(error.method, "POST");
    strictEqual(error.path, "/message/sendText/sales");
    strictEqual(error.instance, "sales");
    return true;
  });
  strictEqual(calls.length, 1);
  deepStrictEqual(time.sleeps, []);
  strictEqual(metrics.total("gateway_errors_total", { exception: "RateLimitException" }), 1);
});

Deno.test("client + gate: wait mode sleeps for the slot, then sends once", async () => {
  const { client, calls, time, decisions } = setup([json(201, {}), json(201, {})], {
    limits: { messages: { max_attempts: 1, decay_seconds: 60 } },
  });
  await client.request("POST", "/message/sendText/{instance}", send);
  time.advance(10_000);
  await client.request("POST", "/message/sendText/{instance}", send);
  deepStrictEqual(time.sleeps, [50_000]);
  strictEqual(calls.length, 2);
  deepStrictEqual(decisions(), [
    { labels: { bucket: "messages", decision: "allowed" }, count: 1 },
    { labels: { bucket: "messages", decision: "waited" }, count: 1 },
  ]);
});

Deno.test("client + gate: a wait past the call's deadline refuses without calling fetch", async () => {
  const { client, calls, time } = setup([json(201, {})], {
    limits: { messages: { max_attempts: 1, decay_seconds: 60 } },
  }, { deadline_ms: 30_000 });
  await client.request("POST", "/message/sendText/{instance}", send);
  await rejects(client.request("POST", "/message/sendText/{instance}", send), {
    name: "RateLimitException",
    message: /after the call's deadline$/,
  });
  strictEqual(calls.length, 1);
  deepStrictEqual(time.sleeps, []);
});

Deno.test("client + gate: an abort while waiting for a slot never calls fetch", async () => {
  const { client, calls } = setup([json(201, {})], {
    limits: { messages: { max_attempts: 1, decay_seconds: 60 } },
  });
  await client.request("POST", "/message/sendText/{instance}", send);
  const reason = new DOMException("user left", "AbortError");
  await rejects(
    client.request("POST", "/message/sendText/{instance}", { ...send, signal: AbortSignal.abort(reason) }),
    (error) => error === reason,
  );
  strictEqual(calls.length, 1);
});

const broken: RateLimiterInterface = {
  attempt: () => Promise.reject(new Error("KV is unavailable")),
  availableIn: () => Promise.resolve(0),
  clear: () => Promise.resolve(),
};

async function quietly(fn: () => Promise<void>): Promise<void> {
  await configure({
    sinks: { none: () => {} },
    loggers: [
      { category: ["gateway"], sinks: ["none"] },
      { category: ["logtape", "meta"], sinks: [], lowestLevel: "error" },
    ],
    reset: true,
  });
  try {
    await fn();
  } finally {
    await reset();
  }
}

Deno.test("client + gate: an in-memory slot is taken before request() returns, and the fetch starts at once", async () => {
  const { client, calls, decisions } = setup([json(201, { ok: 1 })], {
    limits: { messages: { max_attempts: 5, decay_seconds: 60 } },
  });
  const pending = client.request("POST", "/message/sendText/{instance}", send);
  // No wait for a slot the limiter could give at once: the request is already on its way.
  strictEqual(calls.length, 1);
  deepStrictEqual(decisions(), [{ labels: { bucket: "messages", decision: "allowed" }, count: 1 }]);
  strictEqual((await pending).status, 201);
});

Deno.test("client + gate: 100 sends started together against a limit of 40 send exactly 40", async () => {
  const { client, calls, decisions } = setup(Array.from({ length: 40 }, () => json(201, {})), {
    on_limit_reached: "throw",
    limits: { messages: { max_attempts: 40, decay_seconds: 60 } },
  });
  const outcomes = await Promise.allSettled(
    Array.from({ length: 100 }, () => client.request("POST", "/message/sendText/{instance}", send)),
  );
  strictEqual(calls.length, 40);
  strictEqual(outcomes.filter((o) => o.status === "fulfilled").length, 40);
  strictEqual(
    outcomes.filter((o) => o.status === "rejected" && o.reason instanceof RateLimitException).length,
    60,
  );
  deepStrictEqual(decisions(), [
    { labels: { bucket: "messages", decision: "allowed" }, count: 40 },
    { labels: { bucket: "messages", decision: "refused" }, count: 60 },
  ]);
});

Deno.test("client + gate: a failing limiter lets the call through (fail open)", async () => {
  const { client, calls, decisions } = setup([json(201, {})], { limiter: broken });
  await quietly(async () => {
    strictEqual((await client.request("POST", "/message/sendText/{instance}", send)).status, 201);
  });
  strictEqual(calls.length, 1);
  deepStrictEqual(decisions(), [{ labels: { bucket: "messages", decision: "limiter_error" }, count: 1 }]);
});

Deno.test("client + gate: fail closed refuses without calling fetch", async () => {
  const { client, calls } = setup([], { limiter: broken, on_limiter_error: "closed" });
  await quietly(async () => {
    await rejects(client.request("POST", "/message/sendText/{instance}", send), RateLimitException);
  });
  strictEqual(calls.length, 0);
});

Deno.test("service: rate_limiting reaches the client; enabled false turns the gate off", async () => {
  const time = fakeTime();
  const connection = { server_url: BASE, api_key: "key-123", instance: "sales" };
  const limited = scriptedFetch([json(200, []), json(200, [])]);
  const gw = new GatewayService({
    ...connection,
    rate_limiting: { on_limit_reached: "throw", limits: { default: { max_attempts: 1, decay_seconds: 60 } } },
  }, { fetch: limited.fetch, now: time.now, sleep: time.sleep });
  await gw.getClient().request("GET", "/chat/findChats/{instance}");
  await rejects(gw.getClient().request("GET", "/chat/findChats/{instance}"), RateLimitException);
  strictEqual(limited.calls.length, 1);
  strictEqual(gw.getMetrics().total("gateway_rate_limit_total", { decision: "refused" }), 1);

  const open = scriptedFetch([json(200, []), json(200, []), json(200, [])]);
  const off = new GatewayService({
    ...connection,
    rate_limiting: { enabled: false, limits: { default: { max_attempts: 1, decay_seconds: 60 } } },
  }, { fetch: open.fetch, now: time.now, sleep: time.sleep });
  for (let i = 0; i < 3; i++) await off.getClient().request("GET", "/chat/findChats/{instance}");
  strictEqual(open.calls.length, 3);
  strictEqual(off.getMetrics().total("gateway_rate_limit_total"), 0);
});
