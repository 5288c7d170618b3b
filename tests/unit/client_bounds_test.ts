// Bounded answers and a key that never leaks: the client reads bodies as streams that stop at a limit.
import { deepStrictEqual, ok, rejects, strictEqual } from "node:assert/strict";
import {
  ConnectionException,
  ConnectionManager,
  GatewayApiException,
  GatewayClient,
  type GatewayConfig,
  GatewayService,
  isOutcomeUnknown,
  ResponseTooLargeException,
  ValidationException,
} from "../../mod.ts";
import { fakeTime, json, scriptedFetch, type Step } from "../helpers/scripted_fetch.ts";

const KEY = "super-secret-key-123";
const BASE = "http://127.0.0.1:9";
const MB = 1024 * 1024;

function makeClient(steps: Step[], config: GatewayConfig = {}) {
  const time = fakeTime();
  const { fetch, calls } = scriptedFetch(steps);
  const client = new GatewayClient(config, {
    connections: new ConnectionManager({ server_url: BASE, api_key: KEY, instance: "sales" }),
    fetch,
    now: time.now,
    sleep: time.sleep,
    random: () => 0.5,
  });
  return { client, calls };
}

/** A body of `total` bytes produced lazily, 64 KiB per pull, that counts what was pulled and cancelled. */
function endlessBody(total: number, fill = 0x61) {
  const chunk = new Uint8Array(64 * 1024).fill(fill);
  const stats = { pulled: 0, cancelled: false };
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (stats.pulled >= total) return controller.close();
      stats.pulled += chunk.byteLength;
      controller.enqueue(chunk);
    },
    cancel() {
      stats.cancelled = true;
    },
  }, { highWaterMark: 0 });
  return { stream, stats };
}

Deno.test("client stops reading a 400 MB answer at the limit and throws ResponseTooLargeException", async () => {
  const { stream, stats } = endlessBody(400 * MB);
  const { client, calls } = makeClient([new Response(stream, { status: 200 })]);
  await rejects(client.request("GET", "/instance/fetchInstances"), (error: unknown) => {
    ok(error instanceof ResponseTooLargeException);
    strictEqual(error.status, 200);
    strictEqual(error.limit, 4 * MB);
    strictEqual(
      error.message,
      "Cannot read answer of GET /instance/fetchInstances: the body is larger than 4194304 bytes (http.max_response_bytes)",
    );
    return true;
  });
  // Read up to the limit (plus the chunk that crossed it), then the stream was cancelled: never 400 MB.
  ok(stats.pulled <= 4 * MB + 2 * 64 * 1024, `pulled ${stats.pulled} bytes`);
  strictEqual(stats.cancelled, true);
  strictEqual(calls.length, 1, "a too-large answer is not retried");
});

Deno.test("client cancels an answer whose content-length is over the limit without reading it", async () => {
  const { stream, stats } = endlessBody(10 * MB);
  const response = new Response(stream, { status: 200, headers: { "content-length": String(10 * MB) } });
  const { client } = makeClient([response], { http: { max_response_bytes: MB } });
  await rejects(client.request("GET", "/instance/fetchInstances"), ResponseTooLargeException);
  strictEqual(stats.pulled, 0);
  strictEqual(stats.cancelled, true);
});

Deno.test("media reads have their own, larger limit; a call can set its own", async () => {
  const big = JSON.stringify({ base64: "A".repeat(3000), mimetype: "image/png" });
  const config = { http: { max_response_bytes: 1000, max_media_response_bytes: 5000 } };
  const { fetch, calls } = scriptedFetch([json(201, JSON.parse(big)), json(200, JSON.parse(big))]);
  const gw = new GatewayService({ server_url: BASE, api_key: KEY, instance: "sales", ...config }, { fetch });
  const media = await gw.chats().getBase64FromMediaMessage({ key: { id: "3EB0" } });
  strictEqual(media.json("mimetype"), "image/png");
  await rejects(gw.chats().findContacts(), (error: unknown) => {
    ok(error instanceof ResponseTooLargeException);
    strictEqual(error.limit, 1000);
    return true;
  });
  strictEqual(calls.length, 2);
  const { client } = makeClient([json(200, JSON.parse(big))]);
  await rejects(client.request("GET", "/x", { maxResponseBytes: 100 }), {
    name: "ResponseTooLargeException",
  });
});

Deno.test("a send whose successful answer is too large is never taken for a plain failure", async () => {
  const { stream } = endlessBody(8 * MB);
  const { client, calls } = makeClient([new Response(stream, { status: 201 })]);
  await rejects(
    client.request("POST", "/message/sendText/{instance}", { body: { number: "1", text: "hi" } }),
    (error: unknown) => {
      ok(error instanceof ResponseTooLargeException);
      strictEqual(isOutcomeUnknown(error), true);
      return true;
    },
  );
  strictEqual(calls.length, 1);
});

Deno.test("an HTML error page becomes a short excerpt in the message; its body is bounded", async () => {
  const page =
    `<!DOCTYPE html><html><head><title>502 Bad Gateway</title><style>body{color:red}</style></head>` +
    `<body><h1>Bad   Gateway</h1><p>${
      "The upstream server is not answering. ".repeat(6400)
    }</p></body></html>`;
  ok(page.length > 240_000);
  const html = () => new Response(page, { status: 502, headers: { "content-type": "text/html" } });
  const { client } = makeClient([html(), html(), html()]);
  await rejects(client.request("GET", "/instance/fetchInstances"), (error: unknown) => {
    ok(error instanceof ConnectionException);
    strictEqual(error.status, 502);
    ok(error.message.length <= 260, `message of ${error.message.length} characters`);
    ok(
      error.message.startsWith(
        "Gateway server error 502 for GET /instance/fetchInstances: 502 Bad Gateway Bad Gateway The upstream",
      ),
      error.message,
    );
    ok(error.message.endsWith("answering. The upstream server …"), error.message);
    ok(typeof error.body === "string" && error.body.length <= 64 * 1024, "the body copy is bounded");
    ok(JSON.stringify(error).length < 70_000);
    return true;
  });
});

Deno.test("the api key is scrubbed from an error's body, messages and property names", async () => {
  const echo = {
    status: 400,
    error: "Bad Request",
    response: { message: [`key ${KEY} is not allowed`] },
    headers: { [KEY]: true, [`x-${KEY}-y`]: [KEY] },
  };
  const { client } = makeClient([json(400, echo)]);
  await rejects(client.request("GET", "/instance/fetchInstances"), (error: unknown) => {
    ok(error instanceof GatewayApiException);
    const everything = `${JSON.stringify(error)} ${error.message} ${String(error)} ${error.stack}`;
    ok(!everything.includes(KEY), everything);
    deepStrictEqual((error.body as typeof echo).headers, {
      "[REDACTED]": true,
      "x-[REDACTED]-y": ["[REDACTED]"],
    });
    deepStrictEqual(error.messages, ["key [REDACTED] is not allowed"]);
    return true;
  });
});

Deno.test("a key cut in half by the error body limit is scrubbed too", async () => {
  // The error body is read up to 64 KiB; place the key so the limit cuts it.
  const text = `${"x".repeat(64 * 1024 - 10)}${KEY}${"y".repeat(1000)}`;
  const { client } = makeClient([new Response(text, { status: 400 })]);
  await rejects(client.request("GET", "/instance/fetchInstances"), (error: unknown) => {
    ok(error instanceof GatewayApiException);
    const body = String(error.body);
    strictEqual(body.length, 64 * 1024 - 10 + "[REDACTED]".length);
    ok(body.endsWith("x[REDACTED]"));
    ok(!JSON.stringify(error).includes(KEY.slice(0, 10)));
    return true;
  });
});

Deno.test("per-call timeouts beyond what a timer can hold are refused before any request", async () => {
  const { client, calls } = makeClient([]);
  for (const options of [{ timeoutMs: 2 ** 31 }, { deadlineMs: Infinity }, { timeoutMs: 0 }]) {
    await rejects(client.request("GET", "/instance/fetchInstances", options), (error: unknown) => {
      ok(error instanceof ValidationException);
      ok(/must be a number of ms from 1 to 2147483647/.test(error.message), error.message);
      return true;
    });
  }
  strictEqual(calls.length, 0);
});
