import { deepStrictEqual, ok, rejects, strictEqual, throws } from "node:assert/strict";
import { type LogRecord, reset } from "@logtape/logtape";
import { ConfigurationException } from "../../src/errors.ts";
import { MetricsCollector } from "../../src/metrics.ts";
import { MemoryStore } from "../../src/backends/memory/store.ts";
import type { WebhookDedupe } from "../../src/webhooks/dedupe.ts";
import { KvWebhookDedupe } from "../../src/backends/kv/dedupe.ts";
import { MemoryWebhookDedupe } from "../../src/backends/memory/dedupe.ts";
import { KvWebhookQueue, startWebhookWorker } from "../../src/webhooks/queue.ts";
import { webhookOptionsFromEnv } from "../../src/webhooks/env.ts";
import { createWebhookHandler, type WebhookHandlerOptions } from "../../src/webhooks/handler.ts";
import { handleWebhook, webhookProcessor } from "../../src/webhooks/default_handler.ts";
import { resetMisconfigurationReports } from "../../src/webhooks/pipeline/guard.ts";
import type { WebhookPayloadDto } from "../../src/webhooks/payload.ts";
import { WebhookProcessor } from "../../src/webhooks/processor.ts";
import {
  signWebhook,
  verifyWebhook,
  type WebhookSignatureOptions,
  WebhookVerifier,
} from "../../src/webhooks/signature.ts";
import { captureLogs } from "../helpers/logs.ts";

const NOW = 1_760_000_000_000;
const SECRET = "handler-secret-42";
const URL_BASE = "http://127.0.0.1:8000/gateway/webhook";

const envelope = (extra: Record<string, unknown> = {}) => ({
  event: "messages.upsert",
  instance: "sales",
  data: {
    key: { id: "M1", remoteJid: "5511999999999@s.whatsapp.net", fromMe: false },
    message: { conversation: "hi" },
  },
  ...extra,
});

async function signed(
  path = "/sales",
  body: unknown = envelope(),
  options: { secret?: string; headers?: Record<string, string>; method?: string } = {},
): Promise<Request> {
  const raw = typeof body === "string" ? body : JSON.stringify(body);
  const headers = await signWebhook({ body: raw, secret: options.secret ?? SECRET, timestamp: NOW / 1000 });
  return new Request(`${URL_BASE}${path}`, {
    method: options.method ?? "POST",
    headers: { ...headers, ...options.headers },
    body: raw,
  });
}

function setup(options: WebhookHandlerOptions = {}) {
  const seen: WebhookPayloadDto[] = [];
  const processor = options.processor ?? new WebhookProcessor({ log: false }).onAny((p) => void seen.push(p));
  const metrics = new MetricsCollector();
  const handler = createWebhookHandler({
    now: () => NOW,
    metrics,
    ...options,
    signature: { secret: SECRET, ...options.signature },
    processor,
  });
  return { handler, seen, metrics, processor };
}

async function expectStatus(response: Response, status: number, body?: unknown): Promise<void> {
  const text = await response.text();
  strictEqual(response.status, status, text);
  strictEqual(response.headers.get("content-type"), "application/json");
  if (body !== undefined) deepStrictEqual(JSON.parse(text), body);
}

Deno.test("200: a signed webhook is processed once, with instance and event", async () => {
  const { handler, seen, metrics } = setup();
  await expectStatus(await handler(await signed()), 200, { ok: true });
  strictEqual(seen.length, 1);
  strictEqual(seen[0].event, "MESSAGES_UPSERT");
  strictEqual(seen[0].instance, "sales");
  strictEqual(seen[0].text, "hi");
  strictEqual(seen[0].receivedAt, NOW);
  strictEqual(
    metrics.total("gateway_webhooks_received_total", { event: "MESSAGES_UPSERT", result: "200" }),
    1,
  );
  strictEqual(metrics.total("gateway_webhook_processing_ms", { event: "MESSAGES_UPSERT" }), 1);
});

Deno.test("200: the byEvents suffix and the instance in the URL fill in what the body lacks", async () => {
  const { handler, seen } = setup();
  await expectStatus(await handler(await signed("/sales/messages-upsert", { data: {} })), 200);
  await expectStatus(
    await handler(await signed("/sales//connection-update", { data: { state: "open" } })),
    200,
  );
  await expectStatus(await handler(await signed("/sales/", envelope({ instance: undefined }))), 200);
  await expectStatus(await handler(await signed("", envelope({ instance: "from-body" }))), 200);
  deepStrictEqual(seen.map((p) => [p.event, p.rawEvent, p.instance]), [
    ["MESSAGES_UPSERT", "messages-upsert", "sales"],
    ["CONNECTION_UPDATE", "connection-update", "sales"],
    ["MESSAGES_UPSERT", "messages.upsert", "sales"],
    ["MESSAGES_UPSERT", "messages.upsert", "from-body"],
  ]);
  await expectStatus(await handler(await signed("/my%20shop", envelope({ instance: undefined }))), 200);
  strictEqual(seen[4].instance, "my shop");
  // A global webhook URL ending in "/" with byEvents: the server posts to "<url>/<event>", i.e. "//event".
  await expectStatus(await handler(await signed("//messages-upsert", envelope({ instance: "global" }))), 200);
  deepStrictEqual([seen[5].event, seen[5].instance], ["MESSAGES_UPSERT", "global"]);
});

Deno.test("200 duplicate: a redelivery is answered without running the handlers again", async () => {
  const { handler, seen, metrics } = setup({ dedupe: true });
  await expectStatus(await handler(await signed()), 200, { ok: true });
  await expectStatus(await handler(await signed()), 200, { ok: true, duplicate: true });
  strictEqual(seen.length, 1);
  // A different body is a different delivery.
  await expectStatus(await handler(await signed("/sales", envelope({ date_time: "x" }))), 200, { ok: true });
  strictEqual(seen.length, 2);
  strictEqual(metrics.total("gateway_webhooks_received_total", { result: "duplicate" }), 1);
});

Deno.test("200 duplicate: Standard Webhooks redeliveries share the webhook-id even with a new signature", async () => {
  const whsec = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
  const { handler, seen } = setup({ signature: { secret: whsec, scheme: "standard" }, dedupe: true });
  const body = JSON.stringify(envelope());
  for (const timestamp of [NOW / 1000, NOW / 1000 + 5]) {
    const headers = await signWebhook({ body, secret: whsec, scheme: "standard", id: "msg_1", timestamp });
    const response = await handler(new Request(`${URL_BASE}/sales`, { method: "POST", headers, body }));
    strictEqual(response.status, 200);
    await response.body?.cancel();
  }
  strictEqual(seen.length, 1);
  strictEqual(seen[0].deliveryId, "msg_1");
});

Deno.test("202: with waitUntil (Workers) the handlers run after the answer", async () => {
  const { handler, seen } = setup({ queue: { enabled: true } });
  const pending: Promise<unknown>[] = [];
  const ctx = { waitUntil: (promise: Promise<unknown>) => void pending.push(promise) };
  await expectStatus(await handler(await signed(), {}, ctx), 202, { ok: true, queued: true });
  strictEqual(pending.length, 1);
  await Promise.all(pending);
  strictEqual(seen.length, 1);
});

Deno.test("202: a handler failing inside waitUntil is logged, not an unhandled rejection, and frees the dedupe claim", async () => {
  let runs = 0;
  const processor = new WebhookProcessor({ log: false }).onAny(() => {
    runs++;
    throw new Error("late failure");
  });
  const { handler } = setup({ processor, queue: { enabled: true, mode: "wait_until" }, dedupe: true });
  const pending: Promise<unknown>[] = [];
  const ctx = { waitUntil: (promise: Promise<unknown>) => void pending.push(promise) };
  await expectStatus(await handler(await signed(), undefined, ctx), 202);
  await Promise.all(pending);
  await expectStatus(await handler(await signed(), undefined, ctx), 202);
  await Promise.all(pending);
  strictEqual(runs, 2);
  // wait_until forced without a ctx processes synchronously.
  await expectStatus(await handler(await signed("/other")), 500);
});

Deno.test("400: body not JSON, not an envelope, or without an event name", async () => {
  const { handler, seen, metrics } = setup();
  for (
    const body of [
      "{",
      "",
      "[1,2]",
      '"text"',
      "null",
      '{"data":{}}',
      '{"event":5}',
      '{"event":"../x"}',
      '{"event":"call","instance":3}',
    ]
  ) {
    const response = await handler(await signed("/sales", body));
    strictEqual(response.status, 400, body);
    ok(((await response.json()) as { error: string }).error.startsWith("Invalid webhook body"));
  }
  strictEqual(seen.length, 0);
  strictEqual(metrics.total("gateway_webhook_rejections_total", { reason: "invalid_json" }), 2);
  strictEqual(metrics.total("gateway_webhook_rejections_total", { reason: "invalid_envelope" }), 7);
});

Deno.test("401: missing, wrong or stale signatures get a generic body; one stderr line per cause per minute", async () => {
  const records: LogRecord[] = [];
  await captureLogs(records);
  const lines: string[] = [];
  const original = console.error;
  console.error = (...args: unknown[]) => void lines.push(args.map(String).join(" "));
  try {
    let clock = NOW;
    const { handler, seen, metrics } = setup({ now: () => clock });
    const body = JSON.stringify(envelope());
    const unsigned = () =>
      new Request(`${URL_BASE}/sales`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body,
      });
    await expectStatus(await handler(unsigned()), 401, { ok: false, error: "Unauthorized" });
    const wrong = await signed("/sales", envelope(), { secret: "wrong-secret" });
    const wrongSignature = wrong.headers.get("x-gateway-signature")!;
    await expectStatus(await handler(wrong), 401, { ok: false, error: "Unauthorized" });
    const stale = await signWebhook({ body, secret: SECRET, timestamp: NOW / 1000 - 3600 });
    await expectStatus(
      await handler(new Request(`${URL_BASE}/sales`, { method: "POST", headers: stale, body })),
      401,
    );
    strictEqual(seen.length, 0);
    deepStrictEqual(
      ["missing_signature", "signature_mismatch", "timestamp_too_old"].map((reason) =>
        metrics.total("gateway_webhook_rejections_total", { status: "401", reason })
      ),
      [1, 1, 1],
    );
    deepStrictEqual(lines, [
      '[gateway] Webhook refused (401 missing_signature): expected scheme "auto" (authorization: Bearer <JWT>, ' +
      "x-gateway-signature, or webhook-id/-timestamp/-signature); signature headers received: none; Cannot " +
      'verify webhook: no signature: expected "authorization: Bearer <JWT>" (the server\'s jwt_key), ' +
      '"x-gateway-signature" or the Standard Webhooks headers ("webhook-id", "webhook-timestamp", "webhook-signature")',
      '[gateway] Webhook refused (401 signature_mismatch): expected scheme "auto" (authorization: Bearer <JWT>, ' +
      "x-gateway-signature, or webhook-id/-timestamp/-signature); signature headers received: " +
      "x-gateway-signature, x-gateway-timestamp; Cannot verify webhook: signature does not match the body " +
      "(sign and verify the exact raw bytes received, not a JSON.parse result serialized again, and check " +
      "that both sides use the same secret without stray whitespace)",
      '[gateway] Webhook refused (401 timestamp_too_old): expected scheme "auto" (authorization: Bearer <JWT>, ' +
      "x-gateway-signature, or webhook-id/-timestamp/-signature); signature headers received: " +
      `x-gateway-signature, x-gateway-timestamp; Cannot verify webhook: timestamp is too old ("${
        NOW / 1000 - 3600
      }", tolerance 300 s)`,
    ]);
    // The same cause again within the minute (on the handler's clock): counted, not written.
    clock = NOW + 1_000;
    await handler(await signed("/sales", envelope(), { secret: "wrong-secret" }));
    clock = NOW + 59_999;
    await handler(await signed("/sales", envelope(), { secret: "wrong-secret" }));
    strictEqual(lines.length, 3);
    clock = NOW + 60_000;
    await handler(await signed("/sales", envelope(), { secret: "wrong-secret" }));
    strictEqual(lines.length, 4);
    ok(lines[3].endsWith("(2 more since the last line of this cause)"), lines[3]);
    ok(lines[3].startsWith("[gateway] Webhook refused (401 signature_mismatch)"), lines[3]);
    strictEqual(metrics.total("gateway_webhook_rejections_total", { status: "401" }), 6);
    for (const text of [...lines, JSON.stringify(records)]) {
      strictEqual(text.includes(SECRET), false);
      strictEqual(text.includes(wrongSignature.slice(7)), false);
    }
    // Each refusal is still a LogTape record (debug), for applications that want every one.
    deepStrictEqual(
      records.filter((record) => record.properties.status === 401).map((record) => record.level),
      Array(6).fill("debug"),
    );
  } finally {
    console.error = original;
    await reset();
  }
});

Deno.test("503: no usable secret (unset or empty) names GATEWAY_WEBHOOK_SECRET; one stderr line per cause", async () => {
  resetMisconfigurationReports();
  const lines: string[] = [];
  const original = console.error;
  console.error = (...args: unknown[]) => void lines.push(args.map(String).join(" "));
  try {
    for (const [secret, cause] of [[undefined, "no secret is set"], ["", "the secret is empty"]] as const) {
      const { handler, seen, metrics } = setup({ signature: { secret } });
      for (let i = 0; i < 3; i++) {
        const response = await handler(await signed());
        strictEqual(response.status, 503);
        strictEqual(response.headers.get("retry-after"), "5");
        const body = await response.json();
        strictEqual(body.ok, false);
        strictEqual(body.setting, "GATEWAY_WEBHOOK_SECRET");
        strictEqual(
          body.error,
          `Webhook receiver misconfigured: ${cause} for the "auto" scheme; set GATEWAY_WEBHOOK_SECRET (or the ` +
            'signature.secret option), or choose the scheme "none" for local development (every webhook is ' +
            "answered 503 until then)",
        );
        ok(!body.error.includes('""'), body.error);
      }
      strictEqual(seen.length, 0);
      strictEqual(metrics.total("gateway_webhooks_received_total", { result: "503" }), 3);
      // The health check says so too, rather than "ok".
      const health = await handler(new Request(`${URL_BASE}/health`));
      strictEqual(health.status, 503);
      deepStrictEqual(await health.json(), {
        ok: false,
        status: "misconfigured",
        error:
          `Webhook receiver misconfigured: ${cause} for the "auto" scheme; set GATEWAY_WEBHOOK_SECRET (or ` +
          'the signature.secret option), or choose the scheme "none" for local development (every webhook is ' +
          "answered 503 until then)",
        setting: "GATEWAY_WEBHOOK_SECRET",
      });
    }
    deepStrictEqual(lines.length, 2);
    ok(lines[0].startsWith("[gateway] Webhook receiver misconfigured: no secret is set"), lines[0]);
    ok(lines[1].startsWith("[gateway] Webhook receiver misconfigured: the secret is empty"), lines[1]);
    // A wrong signature stays 401.
    const { handler } = setup();
    await expectStatus(await handler(await signed("/sales", envelope(), { secret: "wrong" })), 401);
  } finally {
    console.error = original;
  }
});

Deno.test("404: disabled endpoint and paths that are not the webhook route", async () => {
  const disabled = setup({ enabled: false });
  await expectStatus(await disabled.handler(await signed()), 404, { ok: false, error: "Not Found" });
  await expectStatus(await disabled.handler(new Request(`${URL_BASE}/health`)), 404);
  const { handler, seen } = setup();
  for (
    const path of [
      "http://127.0.0.1:8000/",
      "http://127.0.0.1:8000/gateway",
      "http://127.0.0.1:8000/gateway/webhooks/sales",
      "http://127.0.0.1:8000/other/webhook/sales",
      `${URL_BASE}/..%2Fx`,
      `${URL_BASE}/sales/..%2F..%2Fetc`,
      `${URL_BASE}/%2e%2e`,
      `${URL_BASE}/a%00b`,
      `${URL_BASE}/%E0%A4%A`,
      `${URL_BASE}/sales/not-an/event`,
      `${URL_BASE}/sales/messages-upsert/extra`,
      `${URL_BASE}/sales/%2E%2E%2F`,
      `${URL_BASE}/${"x".repeat(201)}`,
    ]
  ) {
    const response = await handler(
      new Request(path, { method: "POST", body: "{}", headers: { "content-type": "application/json" } }),
    );
    strictEqual(response.status, 404, path);
    await response.body?.cancel();
  }
  strictEqual(seen.length, 0);
});

Deno.test("405: other methods on the route, with Allow", async () => {
  const { handler } = setup();
  for (const method of ["GET", "PUT", "DELETE", "PATCH", "OPTIONS"]) {
    const response = await handler(new Request(`${URL_BASE}/sales`, { method }));
    await expectStatus(response, 405, { ok: false, error: "Method Not Allowed" });
    strictEqual(response.headers.get("allow"), "POST");
  }
  const health = await handler(new Request(`${URL_BASE}/health`, { method: "PUT" }));
  strictEqual(health.status, 405);
  strictEqual(health.headers.get("allow"), "GET, HEAD, POST");
  await health.body?.cancel();
});

Deno.test("GET <prefix>/health answers 200; POST to /health is a webhook for an instance named health", async () => {
  const { handler, seen } = setup();
  await expectStatus(await handler(new Request(`${URL_BASE}/health`)), 200, { ok: true, status: "ok" });
  strictEqual((await handler(new Request(`${URL_BASE}/health`, { method: "HEAD" }))).status, 200);
  await expectStatus(await handler(await signed("/health", envelope({ instance: undefined }))), 200);
  strictEqual(seen[0].instance, "health");
  const custom = setup({ routePrefix: "/hooks/wa/" });
  await expectStatus(await custom.handler(new Request("http://h/hooks/wa/health")), 200);
  const body = JSON.stringify(envelope());
  const headers = await signWebhook({ body, secret: SECRET, timestamp: NOW / 1000 });
  await expectStatus(
    await custom.handler(new Request("http://h/hooks/wa/sales", { method: "POST", headers, body })),
    200,
  );
  const root = setup({ routePrefix: "" });
  await expectStatus(
    await root.handler(new Request("http://h/sales?x=1", { method: "POST", headers, body })),
    200,
  );
});

Deno.test("413: over maxBodyBytes, by content-length or counted while streaming", async () => {
  const { handler, seen } = setup({ maxBodyBytes: 64 });
  const big = JSON.stringify(envelope({ data: { text: "x".repeat(100) } }));
  await expectStatus(await handler(await signed("/sales", big)), 413, {
    ok: false,
    error: "Payload Too Large",
  });
  let pulled = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      pulled++;
      controller.enqueue(new Uint8Array(40).fill(32));
      if (pulled > 1000) controller.close();
    },
  });
  const headers = await signWebhook({ body: big, secret: SECRET, timestamp: NOW / 1000 });
  const streamed = new Request(`${URL_BASE}/sales`, { method: "POST", headers, body: stream });
  strictEqual(streamed.headers.get("content-length"), null);
  await expectStatus(await handler(streamed), 413);
  ok(pulled <= 3, `read ${pulled} chunks after the limit`);
  const small = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(new TextEncoder().encode('{"event":'));
      controller.enqueue(new TextEncoder().encode('"call"}'));
      controller.close();
    },
  });
  const smallHeaders = await signWebhook({ body: '{"event":"call"}', secret: SECRET, timestamp: NOW / 1000 });
  await expectStatus(
    await handler(new Request(`${URL_BASE}/sales`, { method: "POST", headers: smallHeaders, body: small })),
    200,
  );
  strictEqual(seen.length, 1);
});

Deno.test("415: content types other than JSON", async () => {
  const { handler, seen } = setup();
  for (
    const type of [
      "text/plain",
      "application/x-www-form-urlencoded",
      "multipart/form-data; boundary=x",
      "json",
    ]
  ) {
    const response = await handler(await signed("/sales", envelope(), { headers: { "content-type": type } }));
    await expectStatus(response, 415, {
      ok: false,
      error: "Unsupported Media Type: expected application/json",
    });
  }
  // No content type at all (a Uint8Array body gets none by default).
  const body = JSON.stringify(envelope());
  const { "content-type": _type, ...noType } = await signWebhook({
    body,
    secret: SECRET,
    timestamp: NOW / 1000,
  });
  const bare = new Request(`${URL_BASE}/sales`, {
    method: "POST",
    headers: noType,
    body: new TextEncoder().encode(body),
  });
  strictEqual(bare.headers.get("content-type"), null);
  await expectStatus(await handler(bare), 415);
  for (
    const type of ["application/json; charset=utf-8", "Application/JSON", "application/cloudevents+json"]
  ) {
    await expectStatus(
      await handler(await signed("/sales", envelope(), { headers: { "content-type": type } })),
      200,
    );
  }
  strictEqual(seen.length, 3);
});

Deno.test("500: a failing handler in sync mode, so the server retries; the retry is processed", async () => {
  let fail = true;
  const processor = new WebhookProcessor({ log: false }).onAny(() => {
    if (fail) throw new Error("database down");
  });
  const store = new MemoryStore();
  const { handler, metrics } = setup({ processor, dedupe: true, store });
  await expectStatus(await handler(await signed()), 500, { ok: false, error: "Webhook processing failed" });
  fail = false;
  await expectStatus(await handler(await signed()), 200, { ok: true });
  await expectStatus(await handler(await signed()), 200, { ok: true, duplicate: true });
  strictEqual(metrics.total("gateway_webhooks_received_total", { result: "500" }), 1);
  const logs = await store.listWebhookLogs();
  deepStrictEqual(logs.map((log) => log.status).sort(), ["duplicate", "processed"]);
});

Deno.test("503: the queue or the dedupe store cannot take the event", async () => {
  const { handler, seen, metrics } = setup({
    queue: { enabled: true, kv: () => Promise.reject(new Error("kv down")) },
    dedupe: true,
  });
  const response = await handler(await signed());
  strictEqual(response.headers.get("retry-after"), "5");
  await expectStatus(response, 503, { ok: false, error: "Service Unavailable" });
  strictEqual(metrics.total("gateway_queue_jobs_total", { result: "enqueue_failed" }), 1);
  // The claim was given back: the retry is not taken for a duplicate.
  strictEqual((await handler(await signed())).status, 503);
  const broken: WebhookDedupe = {
    claim: () => Promise.reject(new Error("claims down")),
    complete: () => Promise.resolve(),
    release: () => Promise.resolve(),
  };
  const second = setup({ dedupe: broken });
  await expectStatus(await second.handler(await signed()), 503);
  strictEqual(seen.length + second.seen.length, 0);
});

Deno.test("routeMiddleware (ctx, next) runs in order before verification and can answer or replace the request", async () => {
  const order: string[] = [];
  const { handler, seen } = setup({
    routeMiddleware: [
      async (ctx, next) => {
        order.push("first");
        if (ctx.request.headers.get("x-forwarded-for") === "10.0.0.66") {
          ctx.response = new Response("forbidden", { status: 403 });
          return;
        }
        await next();
        order.push(`first-after:${ctx.response?.status}`);
      },
      (ctx, next) => {
        order.push("second");
        const headers = new Headers(ctx.request.headers);
        headers.set("x-gateway-signature", headers.get("x-alt-sig") ?? "");
        ctx.request = new Request(ctx.request, { headers });
        return next();
      },
    ],
  });
  const good = await signed();
  const moved = new Headers(good.headers);
  moved.set("x-alt-sig", good.headers.get("x-gateway-signature")!);
  moved.delete("x-gateway-signature");
  await expectStatus(await handler(new Request(good, { headers: moved })), 200);
  deepStrictEqual(order, ["first", "second", "first-after:200"]);
  const blocked = await handler(
    await signed("/sales", envelope(), { headers: { "x-forwarded-for": "10.0.0.66" } }),
  );
  strictEqual(blocked.status, 403);
  await blocked.body?.cancel();
  strictEqual(seen.length, 1);
  const throwing = setup({
    routeMiddleware: [() => {
      throw new Error("middleware bug");
    }],
  });
  await expectStatus(await throwing.handler(await signed()), 500);
  // A middleware that neither answers nor calls next() leaves no answer: 500, and no handler ran.
  const silent = setup({ routeMiddleware: [() => {}] });
  await expectStatus(await silent.handler(await signed()), 500);
  strictEqual(silent.seen.length, 0);
  // The answer seen on the way back can be replaced.
  const tagged = setup({
    routeMiddleware: [async (ctx, next) => {
      await next();
      ctx.response = new Response("tagged", { status: 299 });
    }],
  });
  const answer = await tagged.handler(await signed());
  deepStrictEqual([answer.status, await answer.text(), tagged.seen.length], [299, "tagged", 1]);
});

Deno.test("routeMiddleware sees the receiver's 500 after next() when a stage after it fails unexpectedly", async () => {
  const statuses: (number | undefined)[] = [];
  let calls = 0;
  const { handler, seen } = setup({
    // The clock is read first by the verify stage: it fails there, after the body was read.
    now: () => {
      if (++calls === 1) throw new Error("clock broken");
      return NOW;
    },
    routeMiddleware: [async (ctx, next) => {
      await next();
      statuses.push(ctx.response?.status);
    }],
  });
  await expectStatus(await handler(await signed()), 500, { ok: false, error: "Webhook processing failed" });
  await expectStatus(await handler(await signed()), 200);
  deepStrictEqual([statuses, seen.length], [[500, 200], 1]);
});

Deno.test("store: webhook logs go received → processed, inbound messages are stored", async () => {
  const store = new MemoryStore();
  const { handler } = setup({ store });
  await expectStatus(await handler(await signed()), 200);
  const logs = await store.listWebhookLogs();
  strictEqual(logs.length, 1);
  strictEqual(logs[0].status, "processed");
  strictEqual(logs[0].event, "MESSAGES_UPSERT");
  strictEqual(logs[0].instance, "sales");
  strictEqual(logs[0].receivedAt, NOW);
  strictEqual(logs[0].id.length, 64);
  const message = await store.getInbound("sales", "M1");
  strictEqual(message?.text, "hi");
  strictEqual(message?.sender, "5511999999999@s.whatsapp.net");
});

Deno.test("processing time comes from the handler's clock: the log and the histogram get the same ms", async () => {
  const store = new MemoryStore();
  let clock = NOW;
  const processor = new WebhookProcessor({ log: false }).onAny(() => void (clock += 7));
  const { handler, metrics } = setup({ store, processor, now: () => clock });
  await expectStatus(await handler(await signed()), 200);
  const [log] = await store.listWebhookLogs();
  strictEqual(log.processingMs, 7);
  strictEqual(log.updatedAt, NOW + 7);
  deepStrictEqual(metrics.snapshot().gateway_webhook_processing_ms, [
    { labels: { event: "MESSAGES_UPSERT" }, count: 1, sum: 7 },
  ]);
});

Deno.test("store: a failing store log write does not fail the webhook", async () => {
  const store = new MemoryStore();
  store.saveWebhookLog = () => Promise.reject(new Error("log store down"));
  const { handler, seen } = setup({ store });
  await expectStatus(await handler(await signed("/sales", envelope({ event: "call" }))), 200);
  strictEqual(seen.length, 1);
});

Deno.test("dedupe option forms: a claim set, settings, or true", async () => {
  const dedupe = new MemoryWebhookDedupe();
  const { handler } = setup({ dedupe });
  await expectStatus(await handler(await signed()), 200);
  strictEqual(dedupe.size, 1);
  const settings = setup({ dedupe: { windowSeconds: 60 } });
  await expectStatus(await settings.handler(await signed()), 200);
  await expectStatus(await settings.handler(await signed()), 200, { ok: true, duplicate: true });
});

Deno.test("configuration errors are thrown at creation", () => {
  const cases: [WebhookHandlerOptions, RegExp][] = [
    [{ signature: { secret: " s" } }, /leading or trailing whitespace/],
    [
      { signature: { secret: "s", toleranceSeconds: NaN } },
      /"signature.toleranceSeconds" must be a non-negative number, got "NaN"/,
    ],
    [{ signature: { secret: "s" }, maxBodyBytes: 0 }, /"maxBodyBytes" must be a positive integer/],
    [{ signature: { secret: "s" }, maxBodyBytes: 1.5 }, /maxBodyBytes/],
    [
      { signature: { secret: "s" }, bodyTimeoutMs: 0 },
      /"bodyTimeoutMs" must be an integer from 1 to 2147483647/,
    ],
    [{ signature: { secret: "s" }, bodyTimeoutMs: 2 ** 31 }, /bodyTimeoutMs/],
    [{ signature: { secret: "s" }, routePrefix: "a b" }, /routePrefix/],
    [{ signature: { secret: "s" }, routeMiddleware: ["x" as unknown as never] }, /routeMiddleware/],
    [{ signature: { secret: "s" }, dedupe: { windowSeconds: -1 } }, /dedupe.windowSeconds/],
    [{ signature: { secret: "s", scheme: "rsa" as "hmac" } }, /unknown signature scheme "rsa"/],
    [
      { signature: { secret: "s" }, queue: { maxAttempts: 0 } },
      /"queue.maxAttempts" must be a positive integer/,
    ],
  ];
  for (const [options, pattern] of cases) {
    throws(
      () => createWebhookHandler(options),
      (e: unknown) => e instanceof ConfigurationException && pattern.test(e.message),
    );
  }
});

Deno.test("handleWebhook: Workers bindings as the second argument configure the default handler", async () => {
  const seen: string[] = [];
  const fn = (p: WebhookPayloadDto) => void seen.push(p.instance);
  webhookProcessor().onAny(fn);
  try {
    const env = {
      GATEWAY_WEBHOOK_SECRET: "bindings-secret",
      GATEWAY_WEBHOOK_ROUTE_PREFIX: "hooks",
      OTHER: {},
    };
    const body = JSON.stringify(envelope());
    const headers = await signWebhook({ body, secret: "bindings-secret" });
    const ok200 = await handleWebhook(
      new Request("http://w/hooks/sales", { method: "POST", headers, body }),
      env,
      {
        waitUntil: () => {},
      },
    );
    await expectStatus(ok200, 200);
    const wrong = await signWebhook({ body, secret: "another-secret" });
    await expectStatus(
      await handleWebhook(new Request("http://w/hooks/sales", { method: "POST", headers: wrong, body }), env),
      401,
    );
    const badEnv = { GATEWAY_WEBHOOK_SECRET: "s", GATEWAY_WEBHOOK_TOLERANCE_SECONDS: "soon" };
    await expectStatus(
      await handleWebhook(
        new Request("http://w/gateway/webhook/sales", { method: "POST", headers, body }),
        badEnv,
      ),
      503,
      {
        ok: false,
        error:
          'Webhook receiver misconfigured: Invalid environment variable GATEWAY_WEBHOOK_TOLERANCE_SECONDS: expected a number, got "soon"',
        setting: "GATEWAY_WEBHOOK_TOLERANCE_SECONDS",
      },
    );
    deepStrictEqual(seen, ["sales"]);
  } finally {
    webhookProcessor().removeHandler(fn);
  }
});

// Deno's connection info as the second argument, and Deno.env read: tests/integration/webhook_serve_test.ts
// (in a child process, so that no test changes the environment every parallel file shares).

Deno.test("webhookOptionsFromEnv: every variable, rotation lists, trimming, and clear errors", () => {
  const env: Record<string, string> = {
    GATEWAY_WEBHOOK_SECRET: " new-one , old-one,",
    GATEWAY_WEBHOOK_SCHEME: "Standard",
    GATEWAY_WEBHOOK_HEADER: "x-sig",
    GATEWAY_WEBHOOK_TOLERANCE_SECONDS: "60",
    GATEWAY_WEBHOOK_REQUIRE_TIMESTAMP: "yes",
    GATEWAY_WEBHOOK_ENABLED: "true",
    GATEWAY_WEBHOOK_ROUTE_PREFIX: "/hooks/",
    GATEWAY_WEBHOOK_MAX_BODY_BYTES: "2048",
    GATEWAY_WEBHOOK_DEDUPE: "1",
    GATEWAY_WEBHOOK_DEDUPE_WINDOW_SECONDS: "120",
    GATEWAY_WEBHOOK_QUEUE: "on",
    GATEWAY_WEBHOOK_QUEUE_MAX_ATTEMPTS: "3",
  };
  env.GATEWAY_WEBHOOK_BODY_TIMEOUT_MS = "2500";
  deepStrictEqual(webhookOptionsFromEnv((name) => env[name]), {
    enabled: true,
    routePrefix: "/hooks/",
    signature: {
      secret: ["new-one", "old-one"],
      scheme: "standard",
      header: "x-sig",
      toleranceSeconds: 60,
      requireTimestamp: true,
    },
    maxBodyBytes: 2048,
    bodyTimeoutMs: 2500,
    dedupe: { windowSeconds: 120 },
    queue: { enabled: true, maxAttempts: 3 },
  });
  deepStrictEqual(webhookOptionsFromEnv(() => undefined), {});
  deepStrictEqual(webhookOptionsFromEnv((name) => ({ GATEWAY_WEBHOOK_DEDUPE: "false" })[name]), {});
  throws(
    () => webhookOptionsFromEnv((name) => ({ GATEWAY_WEBHOOK_QUEUE: "maybe" })[name]),
    /GATEWAY_WEBHOOK_QUEUE: expected true or false/,
  );
  throws(
    () => webhookOptionsFromEnv((name) => ({ GATEWAY_WEBHOOK_MAX_BODY_BYTES: "1MB" })[name]),
    /expected a number/,
  );
});

Deno.test("event names the server does not know are counted under OTHER, bounding the metric series", async () => {
  const metrics = new MetricsCollector();
  const handler = createWebhookHandler({ signature: { secret: "s3cret" }, metrics });
  for (const name of ["made.up.one", "made.up.two"]) {
    const body = JSON.stringify({ event: name, instance: "sales", data: {} });
    const request = new Request(`${URL_BASE}/sales`, {
      method: "POST",
      headers: { ...(await signWebhook({ body, secret: "s3cret" })), "content-type": "application/json" },
      body,
    });
    strictEqual((await handler(request)).status, 200);
  }
  strictEqual(metrics.total("gateway_webhooks_received_total", { event: "OTHER", result: "200" }), 2);
  strictEqual(metrics.snapshot().gateway_webhooks_received_total.length, 1);
});

Deno.test("handleWebhook: an empty GATEWAY_WEBHOOK_SECRET binding is 503 'empty'; a wrong signature stays 401", async () => {
  resetMisconfigurationReports();
  const lines: string[] = [];
  const original = console.error;
  console.error = (...args: unknown[]) => void lines.push(args.map(String).join(" "));
  try {
    const body = JSON.stringify(envelope());
    const headers = await signWebhook({ body, secret: "s3cret" });
    const request = () => new Request(`${URL_BASE}/sales`, { method: "POST", headers, body });
    const empty = { GATEWAY_WEBHOOK_SECRET: "" };
    for (let i = 0; i < 2; i++) {
      const response = await handleWebhook(request(), empty);
      strictEqual(response.status, 503);
      const answer = await response.json();
      strictEqual(answer.setting, "GATEWAY_WEBHOOK_SECRET");
      ok(
        answer.error.startsWith('Webhook receiver misconfigured: the secret is empty for the "auto" scheme'),
      );
    }
    strictEqual(lines.length, 1);
    const wrong = { GATEWAY_WEBHOOK_SECRET: "another" };
    strictEqual((await handleWebhook(request(), wrong)).status, 401);
  } finally {
    console.error = original;
  }
});

Deno.test("unknown option keys are refused with a suggestion, like the configuration file", async () => {
  const refused = (fn: () => unknown, message: string, setting: string) =>
    throws(fn, (e: unknown) => {
      ok(e instanceof ConfigurationException, String(e));
      strictEqual(e.message, message);
      strictEqual(e.setting, setting);
      return true;
    });
  const cases: [Record<string, unknown>, string, string][] = [
    [{ secret: "s3cret" }, '"secret" is not an option; did you mean "signature.secret"?', "secret"],
    [{ routePrefx: "hooks" }, '"routePrefx" is not an option; did you mean "routePrefix"?', "routePrefx"],
    [
      { signature: { secret: "s", tolerance: 5 } },
      '"signature.tolerance" is not an option; did you mean "signature.toleranceSeconds"?',
      "signature.tolerance",
    ],
    [
      { signature: { secret: "s" }, queue: { maxAttempt: 3 } },
      '"queue.maxAttempt" is not an option; did you mean "queue.maxAttempts"?',
      "queue.maxAttempt",
    ],
    [
      { signature: { secret: "s" }, dedupe: { window: 60 } },
      '"dedupe.window" is not an option; did you mean "dedupe.windowSeconds"?',
      "dedupe.window",
    ],
    [
      { signature: { secret: "s" }, scheme: "jwt" },
      '"scheme" is not an option; did you mean "signature.scheme"?',
      "scheme",
    ],
    [{ signature: { secret: "s" }, zzz: 1 }, '"zzz" is not an option', "zzz"],
  ];
  for (const [options, message, setting] of cases) {
    refused(
      () => createWebhookHandler(options as WebhookHandlerOptions),
      `createWebhookHandler: ${message}`,
      setting,
    );
  }
  // Class instances and `true` are not options objects: their keys are not checked.
  createWebhookHandler({ signature: { secret: "s" }, dedupe: new MemoryWebhookDedupe(), queue: false });
  await rejects(
    verifyWebhook("{}", new Headers(), { signature: { secret: "s", secrets: ["a"] } } as never),
    /^ConfigurationException: verifyWebhook: "signature.secrets" is not an option; did you mean "signature.secret"\?$/,
  );
  refused(
    () => new WebhookVerifier({ secret: "s", jwtLeeway: 3 } as never),
    'WebhookVerifier: "jwtLeeway" is not an option; did you mean "jwtLeewaySeconds"?',
    "jwtLeeway",
  );
  refused(
    () => new MemoryWebhookDedupe({ windowSecond: 5 } as never),
    'new MemoryWebhookDedupe: "windowSecond" is not an option; did you mean "windowSeconds"?',
    "windowSecond",
  );
  const kv = await Deno.openKv(":memory:");
  try {
    refused(
      () => new KvWebhookDedupe(kv, { lease: 5 } as never),
      'new KvWebhookDedupe: "lease" is not an option; did you mean "leaseSeconds"?',
      "lease",
    );
    refused(
      () => new KvWebhookQueue(kv, { attempts: 3 } as never),
      'new KvWebhookQueue: "attempts" is not an option; did you mean "maxAttempts"?',
      "attempts",
    );
    refused(
      () => startWebhookWorker(kv, new WebhookProcessor(), { backoff: [1] } as never),
      'startWebhookWorker: "backoff" is not an option; did you mean "backoffMs"?',
      "backoff",
    );
  } finally {
    kv.close();
  }
});

Deno.test("secrets are checked when the receiver is built, naming the setting, never the value", () => {
  const cases: [WebhookSignatureOptions, string][] = [
    [{ secret: 42 as unknown as string }, "Invalid webhook secret: expected a string or an array of strings"],
    [{ secret: ["ok-secret", 7 as unknown as string] }, "Invalid webhook secret #2: expected a string"],
    [
      { secret: "hidden-value\n" },
      "Invalid webhook secret: it has leading or trailing whitespace (a newline copied with it?); the signer " +
      "uses the exact bytes, so trim it where it is stored",
    ],
    [
      { scheme: "standard", secret: "hidden-value!" },
      'Invalid webhook secret: a Standard Webhooks secret is "whsec_" followed by base64 (the secret itself is not shown)',
    ],
    [
      { secret: "whsec_hidden-value!" },
      'Invalid webhook secret: a Standard Webhooks secret is "whsec_" followed by base64 (the secret itself is not shown)',
    ],
  ];
  for (const [signature, message] of cases) {
    throws(() => createWebhookHandler({ signature }), (e: unknown) => {
      ok(e instanceof ConfigurationException);
      strictEqual(e.message, message);
      strictEqual(e.setting, "signature.secret");
      return true;
    });
  }
});

Deno.test("handleWebhook: a refused variable value is reported under the variable's name (its own or its former)", async () => {
  const body = JSON.stringify(envelope());
  const headers = await signWebhook({ body, secret: "env-secret-0123" });
  const cases: [Record<string, string>, string, string][] = [
    [
      { GATEWAY_WEBHOOK_SECRET: "env-secret-0123", GATEWAY_WEBHOOK_HEADER: "x-sig" },
      "GATEWAY_WEBHOOK_HEADER",
      'Webhook receiver misconfigured: Invalid webhook configuration: "signature.header" applies to one scheme; ' +
      'set "signature.scheme" (hmac, jwt or token) with it, the default "auto" reads each scheme\'s own headers ' +
      "(set by GATEWAY_WEBHOOK_HEADER)",
    ],
    [
      { GATEWAY_WEBHOOK_SECRET: "env-secret-0123", GATEWAY_WEBHOOK_SIGNATURE_HEADER: "x-sig" },
      "GATEWAY_WEBHOOK_SIGNATURE_HEADER",
      'Webhook receiver misconfigured: Invalid webhook configuration: "signature.header" applies to one scheme; ' +
      'set "signature.scheme" (hmac, jwt or token) with it, the default "auto" reads each scheme\'s own headers ' +
      "(set by GATEWAY_WEBHOOK_SIGNATURE_HEADER)",
    ],
    [
      { GATEWAY_WEBHOOK_SECRET: "env-secret-0123", GATEWAY_WEBHOOK_SIGNATURE_SCHEME: "hmac256" },
      "GATEWAY_WEBHOOK_SIGNATURE_SCHEME",
      'Webhook receiver misconfigured: Invalid webhook configuration: unknown signature scheme "hmac256" ' +
      "(expected one of auto, hmac, standard, jwt, token, none) (set by GATEWAY_WEBHOOK_SIGNATURE_SCHEME)",
    ],
    [
      { GATEWAY_WEBHOOK_SECRET: "env-secret-0123", GATEWAY_WEBHOOK_SCHEME: "hmac256" },
      "GATEWAY_WEBHOOK_SCHEME",
      'Webhook receiver misconfigured: Invalid webhook configuration: unknown signature scheme "hmac256" ' +
      "(expected one of auto, hmac, standard, jwt, token, none) (set by GATEWAY_WEBHOOK_SCHEME)",
    ],
    [
      { GATEWAY_WEBHOOK_SECRET: "whsec_not base64!" },
      "GATEWAY_WEBHOOK_SECRET",
      'Webhook receiver misconfigured: Invalid webhook secret: a Standard Webhooks secret is "whsec_" followed ' +
      "by base64 (the secret itself is not shown) (set by GATEWAY_WEBHOOK_SECRET)",
    ],
  ];
  const original = console.error;
  console.error = () => {};
  try {
    for (const [env, setting, error] of cases) {
      const response = await handleWebhook(
        new Request(`${URL_BASE}/sales`, { method: "POST", headers, body }),
        env,
      );
      strictEqual(response.status, 503);
      deepStrictEqual(await response.json(), { ok: false, error, setting });
    }
  } finally {
    console.error = original;
  }
});

Deno.test("signedWebhookRequest: extra headers ride along, and the request passes the default scheme", async () => {
  const { signedWebhookRequest } = await import("../../src/testing/webhook_request.ts");
  const { handler, seen } = setup();
  const request = await signedWebhookRequest(`${URL_BASE}/sales`, envelope(), {
    secret: SECRET,
    timestamp: NOW / 1000,
    headers: { "x-request-id": "r-1" },
  });
  strictEqual(request.headers.get("x-request-id"), "r-1");
  await expectStatus(await handler(request), 200, { ok: true });
  strictEqual(seen.length, 1);
});
