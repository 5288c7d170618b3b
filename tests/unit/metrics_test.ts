import { deepStrictEqual, strictEqual } from "node:assert/strict";
import { metrics as otelMetrics } from "@opentelemetry/api";
import { METRIC_DESCRIPTIONS, MetricsCollector } from "../../src/metrics.ts";

Deno.test("metrics: snapshot holds one series per label set, with histogram count and sum", () => {
  const metrics = new MetricsCollector();
  metrics.request("POST", "/message/sendText/{instance}", 201, 120);
  metrics.request("POST", "/message/sendText/{instance}", 201, 30);
  metrics.request("GET", "/instance/fetchInstances", "error", 5);
  metrics.retry("timeout");
  metrics.retry("timeout");
  metrics.retry("status_503");
  metrics.error("ConnectionException");
  metrics.rateLimit("messages", "waited");
  metrics.messageSent("text");
  metrics.webhookReceived("messages.upsert", "200");
  metrics.webhookProcessed("messages.upsert", 7.5);
  metrics.queueJob("processed");
  deepStrictEqual(metrics.snapshot(), {
    gateway_requests_total: [
      { labels: { method: "POST", route: "/message/sendText/:instance", status: "201" }, count: 2 },
      { labels: { method: "GET", route: "/instance/fetchInstances", status: "error" }, count: 1 },
    ],
    gateway_request_duration_ms: [
      { labels: { method: "POST", route: "/message/sendText/:instance" }, count: 2, sum: 150 },
      { labels: { method: "GET", route: "/instance/fetchInstances" }, count: 1, sum: 5 },
    ],
    gateway_retries_total: [
      { labels: { reason: "timeout" }, count: 2 },
      { labels: { reason: "status_503" }, count: 1 },
    ],
    gateway_errors_total: [{ labels: { exception: "ConnectionException" }, count: 1 }],
    gateway_rate_limit_total: [{ labels: { bucket: "messages", decision: "waited" }, count: 1 }],
    gateway_messages_sent_total: [{ labels: { type: "text" }, count: 1 }],
    gateway_webhooks_received_total: [{ labels: { event: "messages.upsert", result: "200" }, count: 1 }],
    gateway_webhook_processing_ms: [{ labels: { event: "messages.upsert" }, count: 1, sum: 7.5 }],
    gateway_queue_jobs_total: [{ labels: { result: "processed" }, count: 1 }],
  });
});

Deno.test("metrics: snapshot is a copy", () => {
  const metrics = new MetricsCollector();
  metrics.messageSent("text");
  const snapshot = metrics.snapshot();
  snapshot.gateway_messages_sent_total[0].count = 99;
  snapshot.gateway_messages_sent_total[0].labels.type = "changed";
  deepStrictEqual(metrics.snapshot().gateway_messages_sent_total, [{ labels: { type: "text" }, count: 1 }]);
});

Deno.test("metrics: route templates in either form share one label", () => {
  const metrics = new MetricsCollector();
  metrics.request("GET", "/group/participants/{instance}", 200, 1);
  metrics.request("GET", "/group/participants/:instance", 200, 1);
  strictEqual(metrics.total("gateway_requests_total", { route: "/group/participants/:instance" }), 2);
});

Deno.test("metrics: label sets whose values contain separators stay apart", () => {
  const metrics = new MetricsCollector();
  metrics.increment("gateway_queue_jobs_total", { a: "x,b=y" });
  metrics.increment("gateway_queue_jobs_total", { a: "x", b: "y" });
  strictEqual(metrics.snapshot().gateway_queue_jobs_total.length, 2);
  // Label order does not matter.
  metrics.increment("gateway_queue_jobs_total", { b: "y", a: "x" });
  deepStrictEqual(metrics.snapshot().gateway_queue_jobs_total[1], { labels: { a: "x", b: "y" }, count: 2 });
});

Deno.test("metrics: total sums the series matching the given labels", () => {
  const metrics = new MetricsCollector();
  metrics.rateLimit("messages", "allowed");
  metrics.rateLimit("messages", "allowed");
  metrics.rateLimit("media", "allowed");
  metrics.rateLimit("messages", "refused");
  strictEqual(metrics.total("gateway_rate_limit_total"), 4);
  strictEqual(metrics.total("gateway_rate_limit_total", { decision: "allowed" }), 3);
  strictEqual(metrics.total("gateway_rate_limit_total", { bucket: "messages", decision: "allowed" }), 2);
  strictEqual(metrics.total("gateway_rate_limit_total", { bucket: "default" }), 0);
  strictEqual(metrics.total("gateway_unknown_total"), 0);
  metrics.increment("gateway_queue_jobs_total", { result: "enqueued" }, 5);
  strictEqual(metrics.total("gateway_queue_jobs_total"), 5);
});

Deno.test("metrics: counters ignore negative and non-finite increments, histograms ignore NaN", () => {
  const metrics = new MetricsCollector();
  metrics.increment("gateway_queue_jobs_total", { result: "processed" }, -1);
  metrics.increment("gateway_queue_jobs_total", { result: "processed" }, Number.NaN);
  metrics.increment("gateway_queue_jobs_total", { result: "processed" }, Infinity);
  metrics.webhookProcessed("call", Number.NaN);
  deepStrictEqual(metrics.snapshot(), {});
});

Deno.test("metrics: reset forgets every series", () => {
  const metrics = new MetricsCollector();
  metrics.messageSent("text");
  metrics.webhookProcessed("call", 3);
  metrics.reset();
  deepStrictEqual(metrics.snapshot(), {});
  strictEqual(metrics.toPrometheus(), "");
  strictEqual(metrics.total("gateway_messages_sent_total"), 0);
  metrics.messageSent("media");
  deepStrictEqual(metrics.snapshot(), {
    gateway_messages_sent_total: [{ labels: { type: "media" }, count: 1 }],
  });
  // The webhook series kept for the hot path start again from zero too.
  metrics.webhookReceived("CALL", "200");
  metrics.webhookProcessed("CALL", 4);
  metrics.reset();
  metrics.rateLimit("messages", "allowed");
  metrics.reset();
  metrics.webhookReceived("CALL", "200");
  metrics.webhookProcessed("CALL", 6);
  metrics.rateLimit("messages", "allowed");
  strictEqual(metrics.total("gateway_webhooks_received_total", { event: "CALL" }), 1);
  strictEqual(metrics.total("gateway_rate_limit_total", { bucket: "messages", decision: "allowed" }), 1);
  deepStrictEqual(
    metrics.snapshot().gateway_webhook_processing_ms.map(({ count, sum }) => [count, sum]),
    [[1, 6]],
  );
});

Deno.test("metrics: a disabled collector records nothing", () => {
  const metrics = new MetricsCollector({ enabled: false });
  metrics.request("GET", "/", 200, 3);
  metrics.retry("timeout");
  metrics.error("GatewayApiException");
  metrics.rateLimit("default", "allowed");
  metrics.messageSent("text");
  metrics.webhookReceived("call", "200");
  metrics.webhookProcessed("call", 1);
  metrics.queueJob("processed");
  metrics.increment("x_total", {});
  metrics.observe("y_ms", {}, 1);
  deepStrictEqual(metrics.snapshot(), {});
  strictEqual(metrics.toPrometheus(), "");
  strictEqual(metrics.total("gateway_requests_total"), 0);
});

Deno.test("metrics: Prometheus text of counters, exactly", () => {
  const metrics = new MetricsCollector();
  metrics.request("POST", "/message/sendText/{instance}", 201, 1);
  metrics.retry("timeout");
  metrics.retry("timeout");
  metrics.rateLimit("messages", "refused");
  strictEqual(
    metrics.toPrometheus().split("\n").filter((line) => !line.startsWith("gateway_request_duration")).join(
      "\n",
    ),
    [
      "# HELP gateway_requests_total Outbound requests by method, route and status",
      "# TYPE gateway_requests_total counter",
      'gateway_requests_total{method="POST",route="/message/sendText/:instance",status="201"} 1',
      "# HELP gateway_request_duration_ms Outbound request duration",
      "# TYPE gateway_request_duration_ms histogram",
      "# HELP gateway_retries_total Retried attempts by reason",
      "# TYPE gateway_retries_total counter",
      'gateway_retries_total{reason="timeout"} 2',
      "# HELP gateway_rate_limit_total Rate-limit decisions by bucket and decision",
      "# TYPE gateway_rate_limit_total counter",
      'gateway_rate_limit_total{bucket="messages",decision="refused"} 1',
      "",
    ].join("\n"),
  );
});

Deno.test("metrics: Prometheus histogram buckets are cumulative, with +Inf, sum and count", () => {
  const metrics = new MetricsCollector();
  for (const ms of [3, 5, 7, 100, 100.5, 20_000]) metrics.webhookProcessed("messages.upsert", ms);
  const l = 'event="messages.upsert"';
  strictEqual(
    metrics.toPrometheus(),
    [
      "# HELP gateway_webhook_processing_ms Webhook processing time by event",
      "# TYPE gateway_webhook_processing_ms histogram",
      `gateway_webhook_processing_ms_bucket{${l},le="5"} 2`,
      `gateway_webhook_processing_ms_bucket{${l},le="10"} 3`,
      `gateway_webhook_processing_ms_bucket{${l},le="25"} 3`,
      `gateway_webhook_processing_ms_bucket{${l},le="50"} 3`,
      `gateway_webhook_processing_ms_bucket{${l},le="100"} 4`,
      `gateway_webhook_processing_ms_bucket{${l},le="250"} 5`,
      `gateway_webhook_processing_ms_bucket{${l},le="500"} 5`,
      `gateway_webhook_processing_ms_bucket{${l},le="1000"} 5`,
      `gateway_webhook_processing_ms_bucket{${l},le="2500"} 5`,
      `gateway_webhook_processing_ms_bucket{${l},le="5000"} 5`,
      `gateway_webhook_processing_ms_bucket{${l},le="10000"} 5`,
      `gateway_webhook_processing_ms_bucket{${l},le="+Inf"} 6`,
      `gateway_webhook_processing_ms_sum{${l}} 20215.5`,
      `gateway_webhook_processing_ms_count{${l}} 6`,
      "",
    ].join("\n"),
  );
});

Deno.test("metrics: Prometheus escapes label values, help text and names", () => {
  const metrics = new MetricsCollector();
  metrics.webhookReceived('say "hi"\\now\nplease', "400");
  metrics.increment("custom.metric-total", { "bad-label": "v" });
  metrics.observe("infinite_ms", {}, Infinity);
  metrics.increment("two\\lines\nname", {});
  const text = metrics.toPrometheus();
  strictEqual(
    text.includes(
      "# HELP two_lines_name two\\\\lines\\nname\n# TYPE two_lines_name counter\ntwo_lines_name 1\n",
    ),
    true,
  );
  strictEqual(
    text.split("\n")[2],
    'gateway_webhooks_received_total{event="say \\"hi\\"\\\\now\\nplease",result="400"} 1',
  );
  strictEqual(text.includes("# HELP custom_metric_total custom.metric-total\n"), true);
  strictEqual(text.includes('custom_metric_total{bad_label="v"} 1\n'), true);
  strictEqual(
    text.includes('infinite_ms_bucket{le="+Inf"} 1\ninfinite_ms_sum +Inf\ninfinite_ms_count 1\n'),
    true,
  );
  // Every non-comment line is `name{labels} value` or `name value`.
  for (const line of text.trimEnd().split("\n")) {
    if (line.startsWith("#")) continue;
    strictEqual(/^[a-zA-Z_:][a-zA-Z0-9_:]*(\{.*\})? \S+$/.test(line), true, line);
  }
});

Deno.test("metrics: every described metric has help text and a kind", () => {
  for (const [name, description] of Object.entries(METRIC_DESCRIPTIONS)) {
    strictEqual(/^gateway_[a-z_]+$/.test(name), true, name);
    strictEqual(description.help.length > 0, true);
    strictEqual(description.kind === "counter" ? name.endsWith("_total") : name.endsWith("_ms"), true, name);
  }
});

Deno.test("metrics: also recorded through the OpenTelemetry API, even with a provider registered late", () => {
  const recorded: [string, string, number, Record<string, string>][] = [];
  const meters: string[] = [];
  const provider = {
    getMeter(name: string) {
      meters.push(name);
      return {
        createCounter: (metric: string) => ({
          add: (value: number, attributes: Record<string, string>) =>
            recorded.push(["counter", metric, value, attributes]),
        }),
        createHistogram: (metric: string) => ({
          record: (value: number, attributes: Record<string, string>) =>
            recorded.push(["histogram", metric, value, attributes]),
        }),
      };
    },
  };
  const metrics = new MetricsCollector();
  metrics.messageSent("text"); // before any provider: the no-op one
  try {
    strictEqual(otelMetrics.setGlobalMeterProvider(provider as never), true);
    metrics.messageSent("text");
    metrics.request("GET", "/chat/findChats/{instance}", 200, 12);
    new MetricsCollector({ enabled: false }).messageSent("text");
  } finally {
    otelMetrics.disable();
  }
  deepStrictEqual(meters.every((name) => name === "@gw/gateway"), true);
  deepStrictEqual(recorded, [
    ["counter", "gateway_messages_sent_total", 1, { type: "text" }],
    ["counter", "gateway_requests_total", 1, {
      method: "GET",
      route: "/chat/findChats/:instance",
      status: "200",
    }],
    ["histogram", "gateway_request_duration_ms", 12, { method: "GET", route: "/chat/findChats/:instance" }],
  ]);
  strictEqual(metrics.total("gateway_messages_sent_total"), 2);
});
