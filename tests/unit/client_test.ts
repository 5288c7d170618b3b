import { deepStrictEqual, ok, rejects, strictEqual, throws } from "node:assert/strict";
import {
  AuthenticationException,
  ConnectionException,
  ConnectionManager,
  GatewayApiException,
  GatewayClient,
  type GatewayConfig,
  InstanceAlreadyExistsException,
  InstanceNotFoundException,
  MessageException,
  RateLimitException,
  ValidationException,
} from "../../mod.ts";
import { fakeTime, hang, json, scriptedFetch, type Step } from "../helpers/scripted_fetch.ts";

const KEY = "super-secret-key-123";
const BASE = "http://127.0.0.1:9";

function makeClient(steps: Step[], config: GatewayConfig = {}, random = () => 0.5) {
  const time = fakeTime();
  const { fetch, calls } = scriptedFetch(steps);
  const client = new GatewayClient(config, {
    connections: new ConnectionManager({ server_url: BASE, api_key: KEY, instance: "sales", ...config }),
    fetch,
    now: time.now,
    sleep: time.sleep,
    random,
  });
  return { client, calls, time };
}

Deno.test("client sends apikey, accept, content-type and user-agent headers, with fetch called without this", async () => {
  const { client, calls } = makeClient([json(201, { key: { id: "ABC" } })]);
  const res = await client.request("POST", "/message/sendText/{instance}", {
    body: { number: "1", text: "hi" },
  });
  strictEqual(res.status, 201);
  strictEqual(res.json("key.id"), "ABC");
  strictEqual(res.attempts, 1);
  strictEqual(calls[0].url, `${BASE}/message/sendText/sales`);
  strictEqual(calls[0].method, "POST");
  strictEqual(calls[0].headers.get("apikey"), KEY);
  strictEqual(calls[0].headers.get("accept"), "application/json");
  strictEqual(calls[0].headers.get("content-type"), "application/json");
  strictEqual(calls[0].headers.get("user-agent"), "gw-gateway/0.1.0");
  strictEqual(calls[0].body, '{"number":"1","text":"hi"}');
  strictEqual(calls[0].thisValue, undefined);
});

Deno.test("client leaves content-type off a request without a body and appends the query", async () => {
  const { client, calls } = makeClient([json(200, [])]);
  await client.request("GET", "/instance/fetchInstances", {
    query: { instanceName: "a b", number: undefined },
  });
  strictEqual(calls[0].url, `${BASE}/instance/fetchInstances?instanceName=a+b`);
  strictEqual(calls[0].headers.has("content-type"), false);
});

Deno.test("client percent-encodes user values so they cannot change the route", async () => {
  const { client, calls } = makeClient([json(200, {}), json(200, {}), json(200, {})]);
  await client.request("GET", "/instance/connectionState/{instance}", { instance: "a/../b" });
  await client.request("GET", "/instance/connectionState/{instance}", { instance: "x?y#z" });
  await client.request("GET", "/typebot/fetch/{id}/{instance}", { params: { id: "1 2" } });
  deepStrictEqual(calls.map((call) => new URL(call.url).pathname), [
    "/instance/connectionState/a%2F..%2Fb",
    "/instance/connectionState/x%3Fy%23z",
    "/typebot/fetch/1%202/sales",
  ]);
  await rejects(
    client.request("GET", "/instance/connectionState/{instance}", { instance: ".." }),
    ValidationException,
  );
  strictEqual(calls.length, 3);
});

Deno.test("client throws InstanceNotFoundException before any request when no instance is known", async () => {
  const time = fakeTime();
  const { fetch, calls } = scriptedFetch([]);
  const client = new GatewayClient({}, {
    connections: new ConnectionManager({ server_url: BASE, api_key: KEY }),
    fetch,
    now: time.now,
    sleep: time.sleep,
  });
  await rejects(client.request("POST", "/message/sendText/{instance}", { body: {} }), (error: unknown) => {
    ok(error instanceof InstanceNotFoundException);
    ok(error.message.includes('connection "default"'));
    return true;
  });
  strictEqual(calls.length, 0);
});

const STATUS_TABLE: Array<[string, number, unknown, (error: unknown) => boolean]> = [
  [
    "401 string message",
    401,
    { status: 401, error: "Unauthorized", response: { message: "Unauthorized" } },
    (e) => e instanceof AuthenticationException && e.status === 401 && e.messages[0] === "Unauthorized",
  ],
  [
    "403 duplicate name",
    403,
    { status: 403, error: "Forbidden", response: { message: ['This name "x" is already in use.'] } },
    (e) =>
      e instanceof InstanceAlreadyExistsException && !(e instanceof AuthenticationException) &&
      e.status === 403 && e.instance === "x" && e.messages[0] === 'This name "x" is already in use.' &&
      e.message === 'Cannot create instance "x": the name is already in use',
  ],
  [
    "404 missing instance",
    404,
    { status: 404, error: "Not Found", response: { message: ['The "sales" instance does not exist'] } },
    (e) => e instanceof InstanceNotFoundException && e.instance === "sales",
  ],
  [
    "404 unknown route",
    404,
    { status: 404, error: "Not Found", response: { message: ["Cannot POST /nope"] } },
    (e) => e instanceof GatewayApiException && e.constructor === GatewayApiException && e.status === 404,
  ],
  [
    "400 nested validation array",
    400,
    { status: 400, error: "Bad Request", response: { message: [['instance requires property "text"']] } },
    (e) => e instanceof ValidationException && e.messages.join() === 'instance requires property "text"',
  ],
  [
    "400 group property list",
    400,
    {
      status: 400,
      error: "Bad Request",
      response: { message: [{ property: "instance.subject", message: "is required" }] },
    },
    (e) => e instanceof ValidationException && e.messages[0] === "subject: is required",
  ],
  [
    "422",
    422,
    { message: "bad" },
    (e) => e instanceof ValidationException && e.status === 422,
  ],
  [
    "400 not on WhatsApp",
    400,
    {
      status: 400,
      error: "Bad Request",
      response: { message: [{ jid: "5511@s.whatsapp.net", exists: false, number: "5511" }] },
    },
    (e) => e instanceof MessageException && e.reason === "not_on_whatsapp",
  ],
  [
    "500 Connection Closed",
    500,
    { status: 500, error: "Internal Server Error", response: { message: "Connection Closed" } },
    (e) => e instanceof MessageException && e.reason === "not_connected" && e.status === 500,
  ],
  [
    "400 business error",
    400,
    { status: 400, error: "Bad Request", response: { message: ["Text is required"] } },
    (e) =>
      (e as Error).constructor === GatewayApiException &&
      (e as GatewayApiException).messages[0] === "Text is required",
  ],
  [
    "200 with error: true",
    200,
    { error: true, message: "[object Object]" },
    (e) => (e as Error).constructor === GatewayApiException && (e as GatewayApiException).status === 200,
  ],
];

for (const [name, status, body, check] of STATUS_TABLE) {
  Deno.test(`client maps ${name} to its exception`, async () => {
    const { client, calls } = makeClient([json(status, body)]);
    await rejects(
      client.request("POST", "/message/sendText/{instance}", { body: { text: "x" } }),
      (error) => {
        ok(check(error), `unexpected ${String(error)}`);
        return true;
      },
    );
    strictEqual(calls.length, 1);
  });
}

Deno.test("client maps 5xx to ConnectionException after retrying an idempotent request", async () => {
  const { client, calls, time } = makeClient([json(502, "bad"), json(500, "boom"), json(500, "boom")]);
  await rejects(client.request("GET", "/instance/fetchInstances"), (error) => {
    ok(error instanceof ConnectionException);
    strictEqual(error.reason, "server_error");
    strictEqual(error.status, 500);
    strictEqual(error.attempts, 3);
    return true;
  });
  strictEqual(calls.length, 3);
  deepStrictEqual(time.sleeps, [375, 750]);
});

Deno.test("client backoff doubles up to max_delay_ms with the injected random", async () => {
  const steps = Array.from({ length: 6 }, () => json(503, {}));
  const { client, time } = makeClient(
    steps,
    { retry: { max_retries: 5, base_delay_ms: 1000, max_delay_ms: 4000 } },
    () => 1,
  );
  await rejects(client.request("GET", "/"), ConnectionException);
  deepStrictEqual(time.sleeps, [1000, 2000, 4000, 4000, 4000]);
});

Deno.test("client honours Retry-After in seconds, as an HTTP date, and retry-after-ms", async () => {
  const time = fakeTime(Date.parse("2026-01-01T00:00:00Z"));
  const { fetch } = scriptedFetch([
    json(429, {}, { "retry-after": "2" }),
    json(429, {}, { "retry-after": "Thu, 01 Jan 2026 00:00:07 GMT" }),
    json(503, {}, { "retry-after-ms": "150" }),
    json(200, { ok: true }),
  ]);
  const client = new GatewayClient({ retry: { max_retries: 3 } }, {
    connections: new ConnectionManager({ server_url: BASE, api_key: KEY }),
    fetch,
    now: time.now,
    sleep: time.sleep,
  });
  const res = await client.request("GET", "/");
  strictEqual(res.attempts, 4);
  deepStrictEqual(time.sleeps, [2000, 5000, 150]);
});

Deno.test("client throws RateLimitException at once when Retry-After is over the cap", async () => {
  const { client, calls, time } = makeClient([json(429, {}, { "retry-after": "120" })]);
  await rejects(client.request("GET", "/"), (error) => {
    ok(error instanceof RateLimitException);
    strictEqual(error.getRetryAfter(), 120);
    strictEqual(error.status, 429);
    return true;
  });
  strictEqual(calls.length, 1);
  deepStrictEqual(time.sleeps, []);
});

Deno.test("client reports the last 429 with its Retry-After when retries run out", async () => {
  const { client } = makeClient([json(429, {}, { "retry-after": "1" })], { retry: { max_retries: 0 } });
  await rejects(client.request("GET", "/"), (error) => {
    ok(error instanceof RateLimitException);
    strictEqual(error.getRetryAfter(), 1);
    return true;
  });
});

Deno.test("client stops retrying at the overall deadline", async () => {
  const { client, calls } = makeClient(
    [json(500, {}), json(500, {}), json(500, {}), json(500, {})],
    { http: { deadline_ms: 1000 }, retry: { max_retries: 3 } },
  );
  await rejects(client.request("GET", "/"), (error) => {
    ok(error instanceof ConnectionException);
    strictEqual(error.attempts, 2);
    return true;
  });
  // 375 ms then 750 ms: the second wait would end past the 1000 ms deadline, so it is not taken.
  strictEqual(calls.length, 2);
});

Deno.test("client abort during a backoff sleep rejects at once with the abort reason", async () => {
  const controller = new AbortController();
  const { fetch, calls } = scriptedFetch([json(500, {}), json(200, {})]);
  const client = new GatewayClient({}, {
    connections: new ConnectionManager({ server_url: BASE, api_key: KEY }),
    fetch,
    sleep: (_ms, signal) =>
      new Promise((_, reject) => {
        signal?.addEventListener("abort", () => reject(signal.reason), { once: true });
        controller.abort(new Error("user cancelled"));
      }),
  });
  await rejects(client.request("GET", "/", { signal: controller.signal }), /user cancelled/);
  strictEqual(calls.length, 1);
});

Deno.test("client never retries a message send whose outcome is unknown", async () => {
  const { client, calls } = makeClient([new TypeError("connection reset by peer")]);
  await rejects(
    client.request("POST", "/message/sendText/{instance}", { body: { text: "x" }, idempotent: false }),
    (error) => {
      ok(error instanceof ConnectionException);
      strictEqual(error.outcomeUnknown, true);
      strictEqual(error.timedOut, false);
      return true;
    },
  );
  strictEqual(calls.length, 1);
});

Deno.test("client retries a send refused before sending, and after 429 or 503, but not after 500", async () => {
  const refused = new TypeError(
    "error sending request: tcp connect error: Connection refused (os error 111)",
  );
  const { client, calls } = makeClient([
    refused,
    json(429, {}),
    json(503, {}),
    json(201, { key: { id: "X" } }),
  ], {
    retry: { max_retries: 3 },
  });
  const res = await client.request("POST", "/message/sendText/{instance}", { body: {}, idempotent: false });
  strictEqual(res.attempts, 4);
  strictEqual(calls.length, 4);

  const second = makeClient([json(500, "Internal")]);
  await rejects(
    second.client.request("POST", "/message/sendText/{instance}", { body: {}, idempotent: false }),
    ConnectionException,
  );
  strictEqual(second.calls.length, 1);
});

Deno.test("client attempt timeout on a send throws ConnectionException with timedOut and outcomeUnknown", async () => {
  const { client, calls } = makeClient([hang()]);
  await rejects(
    client.request("POST", "/message/sendText/{instance}", { body: {}, idempotent: false, timeoutMs: 1 }),
    (error) => {
      ok(error instanceof ConnectionException);
      strictEqual(error.timedOut, true);
      strictEqual(error.outcomeUnknown, true);
      strictEqual(error.reason, "timeout");
      return true;
    },
  );
  strictEqual(calls.length, 1);
});

Deno.test("client retries an idempotent request after an attempt timeout", async () => {
  const { client, calls } = makeClient([hang(), json(200, { state: "open" })]);
  const res = await client.request("GET", "/", { timeoutMs: 1 });
  strictEqual(res.json("state"), "open");
  strictEqual(calls.length, 2);
});

Deno.test("client never retries a LICENSE_REQUIRED 503 and names the register URL", async () => {
  const { client, calls } = makeClient([
    json(503, {
      error: "service not activated",
      code: "LICENSE_REQUIRED",
      register_url: "https://license.example/register",
      message: "activate",
    }),
  ]);
  await rejects(client.request("GET", "/"), (error) => {
    ok(error instanceof ConnectionException);
    strictEqual(error.reason, "license_required");
    ok(error.message.includes('"https://license.example/register"'));
    return true;
  });
  strictEqual(calls.length, 1);
});

Deno.test("client cancels a discarded response body before the next attempt", async () => {
  let cancelled = false;
  const stream = new ReadableStream({
    pull(controller) {
      controller.enqueue(new TextEncoder().encode("x"));
    },
    cancel() {
      cancelled = true;
    },
  });
  const { client } = makeClient([new Response(stream, { status: 502 }), json(200, {})]);
  await client.request("GET", "/");
  strictEqual(cancelled, true);
});

Deno.test("client errors never contain the api key, even when the server echoes it", async () => {
  const { client } = makeClient([
    json(400, { status: 400, error: "Bad Request", response: { message: [`bad ${KEY}`] } }),
  ]);
  await rejects(client.request("POST", "/x", { body: {} }), (error) => {
    ok(error instanceof GatewayApiException);
    ok(!String(error).includes(KEY));
    ok(!JSON.stringify(error).includes(KEY));
    ok(!error.message.includes(KEY));
    ok(!(error.stack ?? "").includes(KEY));
    return true;
  });
  const network = makeClient([new TypeError("connection reset")]);
  await rejects(network.client.request("POST", "/x", { body: {} }), (error) => {
    ok(!JSON.stringify(error).includes(KEY));
    return true;
  });
});

Deno.test("client returns null data for an empty or non-JSON success body", async () => {
  const { client } = makeClient([new Response("", { status: 200 }), new Response("plain", { status: 200 })]);
  strictEqual((await client.request("GET", "/")).data, null);
  strictEqual((await client.request("GET", "/")).data, null);
});

Deno.test("resolveInstance refuses blank names", () => {
  const { client } = makeClient([]);
  throws(() => client.resolveInstance("  "), ValidationException);
  strictEqual(client.resolveInstance(), "sales");
  strictEqual(client.resolveInstance("other"), "other");
});

Deno.test("client marks a 5xx other than 503 on a send as outcome unknown, and a 503 as known", async () => {
  const { client } = makeClient([new Response("<html>gateway timeout</html>", { status: 504 })]);
  await rejects(
    client.request("POST", "/message/sendText/{instance}", { body: {}, idempotent: false }),
    (error) => {
      ok(error instanceof ConnectionException);
      strictEqual(error.status, 504);
      strictEqual(error.outcomeUnknown, true);
      return true;
    },
  );
  const unavailable = makeClient([json(503, {})], { retry: { max_retries: 0 } });
  await rejects(
    unavailable.client.request("POST", "/message/sendText/{instance}", { body: {}, idempotent: false }),
    (error) => {
      ok(error instanceof ConnectionException);
      strictEqual(error.outcomeUnknown, false);
      return true;
    },
  );
});

Deno.test("client retries an idempotent request whose body stalls past the attempt timeout", async () => {
  const stalled: Step = (_call, signal) =>
    Promise.resolve(
      new Response(
        new ReadableStream({
          pull: () =>
            new Promise((_, reject) =>
              signal?.addEventListener("abort", () => reject(signal.reason), { once: true })
            ),
        }),
        { status: 200 },
      ),
    );
  const { client, calls } = makeClient([stalled, json(200, { instance: { state: "open" } })]);
  const res = await client.request("GET", "/instance/connectionState/{instance}", { timeoutMs: 1 });
  strictEqual(res.json("instance.state"), "open");
  strictEqual(calls.length, 2);
});

Deno.test("client names the missing instance from the server's message when the route has none", async () => {
  const { client } = makeClient([
    json(404, { status: 404, error: "Not Found", response: { message: ['Instance "ghost" not found'] } }),
  ]);
  await rejects(
    client.request("GET", "/instance/fetchInstances", { query: { instanceName: "ghost" } }),
    (error) => {
      ok(error instanceof InstanceNotFoundException);
      strictEqual(error.instance, "ghost");
      return true;
    },
  );
});
