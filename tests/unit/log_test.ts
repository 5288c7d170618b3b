import { deepStrictEqual, ok, rejects, strictEqual } from "node:assert/strict";
import { type LogRecord, reset } from "@logtape/logtape";
import { ConnectionManager, GatewayApiException, GatewayClient, GatewayService } from "../../mod.ts";
import { redact } from "../../src/log.ts";
import { fakeTime, json, scriptedFetch } from "../helpers/scripted_fetch.ts";
import { captureLogs } from "../helpers/logs.ts";

const KEY = "log-secret-key-987";

Deno.test("client log records carry method, route, status and attempts, never the api key", async () => {
  const records: LogRecord[] = [];
  await captureLogs(records);
  try {
    const time = fakeTime();
    const { fetch } = scriptedFetch([
      json(500, { message: `echo ${KEY}` }),
      json(201, { key: { id: "ID1" }, apikey: KEY }),
      json(401, { status: 401, error: "Unauthorized", response: { message: "Unauthorized" } }),
    ]);
    const client = new GatewayClient({}, {
      connections: new ConnectionManager({ server_url: "http://127.0.0.1:9", api_key: KEY, instance: "s" }),
      fetch,
      now: time.now,
      sleep: time.sleep,
      random: () => 0,
    });
    await client.request("GET", "/instance/connectionState/{instance}");
    await rejects(client.request("GET", "/instance/fetchInstances"), GatewayApiException);

    const infos = records.filter((record) => record.level === "info");
    deepStrictEqual(
      infos.map((record) => [record.properties.route, record.properties.status, record.properties.attempts]),
      [
        ["/instance/connectionState/{instance}", 201, 2],
        ["/instance/fetchInstances", 401, 1],
      ],
    );
    strictEqual(records.filter((record) => record.level === "debug").length, 3);
    const serialised = JSON.stringify(records, (_k, v) => (typeof v === "function" ? String(v) : v));
    ok(!serialised.includes(KEY), "a log record contains the api key");
  } finally {
    await reset();
  }
});

Deno.test("redact hides secrets and truncates base64 media", () => {
  const media = "A".repeat(5000);
  deepStrictEqual(
    redact({ apikey: "a", api_key: "b", headers: { authorization: "Bearer x", jwt_key: "j" }, text: "hi" }),
    {
      apikey: "[REDACTED]",
      api_key: "[REDACTED]",
      headers: { authorization: "[REDACTED]", jwt_key: "[REDACTED]" },
      text: "hi",
    },
  );
  deepStrictEqual(redact({ media }), { media: `${"A".repeat(16)}…[5000 chars]` });
});

Deno.test("debug records show the request with the key redacted and base64 media truncated", async () => {
  const records: LogRecord[] = [];
  await captureLogs(records);
  try {
    const { fetch } = scriptedFetch([json(201, { key: { id: "M1" } })]);
    const client = new GatewayClient({}, {
      connections: new ConnectionManager({ server_url: "http://127.0.0.1:9", api_key: KEY, instance: "s" }),
      fetch,
    });
    const media = "B".repeat(10_000);
    await client.request("POST", "/message/sendMedia/{instance}", { body: { number: "1", media } });
    const debug = records.find((record) => record.level === "debug")!;
    strictEqual((debug.properties.headers as Record<string, string>).apikey, "[REDACTED]");
    strictEqual((debug.properties.body as Record<string, string>).media, `${"B".repeat(16)}…[10000 chars]`);
    ok(!JSON.stringify(records).includes(KEY));
  } finally {
    await reset();
  }
});

Deno.test("the logging section sets the category and the level of each request's record", async () => {
  const records: LogRecord[] = [];
  await captureLogs(records);
  try {
    const { fetch } = scriptedFetch([
      json(200, {}),
      json(200, {}),
    ]);
    const tenant = new GatewayService({
      server_url: "http://127.0.0.1:9",
      api_key: KEY,
      logging: { category: ["tenant-a"], level: "debug" },
      rate_limiting: {
        on_limit_reached: "throw",
        limits: { default: { max_attempts: 2, decay_seconds: 60 } },
      },
      retry: { max_retries: 0 },
    }, { fetch });
    await tenant.info();
    await tenant.info();
    await rejects(tenant.info());
    const summary = records.map((record) => [record.category.join("."), record.level, record.rawMessage]);
    deepStrictEqual(summary, [
      ["gateway.tenant-a.client", "debug", "{method} {route} attempt {attempt}"],
      [
        "gateway.tenant-a.client",
        "debug",
        "{method} {route} {status} in {durationMs} ms after {attempts} attempt(s)",
      ],
      ["gateway.tenant-a.client", "debug", "{method} {route} attempt {attempt}"],
      [
        "gateway.tenant-a.client",
        "debug",
        "{method} {route} {status} in {durationMs} ms after {attempts} attempt(s)",
      ],
      [
        "gateway.tenant-a.client",
        "debug",
        "{method} {route} failed: {status} after {attempts} attempt(s) in {durationMs} ms",
      ],
    ]);
    // At the default level "info", an application that only listens from info up still gets one record per request.
    records.length = 0;
    await captureLogs(records, ["gateway"], "info");
    const { fetch: fetch2 } = scriptedFetch([json(200, {})]);
    await new GatewayService({ server_url: "http://127.0.0.1:9", api_key: KEY }, { fetch: fetch2 }).info();
    deepStrictEqual(records.map((record) => [record.category.join("."), record.level]), [[
      "gateway.client",
      "info",
    ]]);
  } finally {
    await reset();
  }
});
