import { deepStrictEqual, ok, rejects, strictEqual } from "node:assert/strict";
import { MockGatewayServer } from "../../src/testing/mod.ts";

const KEY = "test-key";

function post(url: string, body: unknown, key = KEY, signal?: AbortSignal): Promise<Response> {
  return fetch(url, {
    method: "POST",
    headers: { apikey: key, "content-type": "application/json" },
    body: JSON.stringify(body),
    signal,
  });
}

/** A local webhook receiver that resolves each POST in turn. */
function receiver(status = 200) {
  const received: { url: string; headers: Headers; body: Record<string, unknown> }[] = [];
  let notify: (() => void) | undefined;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    received.push({ url: req.url, headers: req.headers, body: await req.json() });
    notify?.();
    return new Response("ok", { status });
  });
  const waitFor = async (count: number) => {
    while (received.length < count) await new Promise<void>((resolve) => notify = resolve);
  };
  return { url: `http://127.0.0.1:${server.addr.port}`, received, waitFor, close: () => server.shutdown() };
}

Deno.test("mock server: listens on a free local port and serves the simulated routes", async () => {
  await using mock = await MockGatewayServer.start({ apiKey: KEY });
  ok(/^http:\/\/127\.0\.0\.1:\d+$/.test(mock.url), mock.url);
  strictEqual(mock.serverUrl, mock.url);
  const root = await fetch(`${mock.url}/`);
  strictEqual(root.status, 200);
  strictEqual(root.headers.get("content-type"), "application/json; charset=utf-8");
  strictEqual((await root.json()).version, "2.3.6");

  const created = await post(`${mock.url}/instance/create`, {
    instanceName: "sales",
    integration: "WHATSAPP-BAILEYS",
  });
  strictEqual(created.status, 201);
  const { hash } = await created.json();
  const qr = await fetch(`${mock.url}/instance/connect/sales`, { headers: { apikey: hash } });
  strictEqual((await qr.json()).count, 1);
  mock.simulateScan("sales");
  const sent = await post(
    `${mock.url}/message/sendText/sales`,
    { number: "5511999999999", text: "Hi" },
    hash,
  );
  strictEqual(sent.status, 201);
  strictEqual((await sent.json()).key.remoteJid, "5511999999999@s.whatsapp.net");
  strictEqual(mock.sentMessages.length, 1);
  const ghost = await post(`${mock.url}/message/sendText/ghost`, {}, "wrong");
  strictEqual(ghost.status, 404);
  deepStrictEqual(await ghost.json(), {
    status: 404,
    error: "Not Found",
    response: { message: ['The "ghost" instance does not exist'] },
  });
});

Deno.test("mock server: dropConnection closes the socket before any response", async () => {
  await using mock = await MockGatewayServer.start({ apiKey: KEY });
  mock.addInstance("sales", { open: true });
  mock.dropConnection("POST /message/sendText");
  await rejects(
    () => post(`${mock.url}/message/sendText/sales`, { number: "5511999999999", text: "Hi" }),
    TypeError,
  );
  // The next request gets through on a new connection.
  const res = await post(`${mock.url}/message/sendText/sales`, { number: "5511999999999", text: "Hi" });
  strictEqual(res.status, 201);
  await res.body?.cancel();
  strictEqual(mock.requests.length, 2);
});

Deno.test("mock server: failNext and delay work over HTTP; a client timeout ends the delay", async () => {
  await using mock = await MockGatewayServer.start({ apiKey: KEY });
  mock.addInstance("sales", { open: true });
  mock.failNext({ route: "/instance/connectionState", status: 503, retryAfter: 2 });
  const failed = await fetch(`${mock.url}/instance/connectionState/sales`, { headers: { apikey: KEY } });
  strictEqual(failed.status, 503);
  strictEqual(failed.headers.get("retry-after"), "2");
  await failed.body?.cancel();
  mock.delay("/instance/connectionState", 60_000);
  await rejects(
    () =>
      fetch(`${mock.url}/instance/connectionState/sales`, {
        headers: { apikey: KEY },
        signal: AbortSignal.timeout(50),
      }),
    (error: unknown) => error instanceof DOMException && error.name === "TimeoutError",
  );
  mock.clearFaults();
});

Deno.test("mock server: webhooks reach a real receiver with the envelope, suffix and JWT", async () => {
  const hook = receiver();
  try {
    await using mock = await MockGatewayServer.start({ apiKey: KEY });
    const created = await post(`${mock.url}/instance/create`, {
      instanceName: "sales",
      integration: "WHATSAPP-BAILEYS",
      webhook: { url: `${hook.url}/hooks`, byEvents: true, headers: { jwt_key: "secret" }, events: [] },
    });
    const { hash } = await created.json();
    await fetch(`${mock.url}/instance/connect/sales`, { headers: { apikey: KEY } }).then((r) =>
      r.body?.cancel()
    );
    mock.simulateScan("sales", { number: "5511988887777" });
    await post(`${mock.url}/message/sendText/sales`, { number: "5511999999999", text: "Hi" }).then((r) =>
      r.body?.cancel()
    );
    await mock.webhooksIdle();
    await hook.waitFor(5);
    deepStrictEqual(hook.received.map((r) => new URL(r.url).pathname), [
      "/hooks/instance-create",
      "/hooks/connection-update",
      "/hooks/qrcode-updated",
      "/hooks/connection-update",
      "/hooks/send-message",
    ]);
    const last = hook.received[4];
    strictEqual(last.body.event, "send.message");
    strictEqual(last.body.instance, "sales");
    strictEqual(last.body.destination, `${hook.url}/hooks`);
    strictEqual(last.body.sender, "5511988887777@s.whatsapp.net");
    strictEqual(last.body.server_url, mock.url);
    strictEqual(last.body.apikey, hash);
    ok(last.headers.get("authorization")?.startsWith("Bearer "));
    strictEqual(last.headers.get("jwt_key"), null);
    deepStrictEqual(mock.deliveries.map((d) => d.state), Array(5).fill("delivered"));
  } finally {
    await hook.close();
  }
});

Deno.test("mock server: a receiver answering 404 is not retried", async () => {
  const hook = receiver(404);
  try {
    await using mock = await MockGatewayServer.start({
      apiKey: KEY,
      webhookRetry: { initialDelayMs: 60_000 },
    });
    mock.addInstance("sales", { open: true });
    await post(`${mock.url}/webhook/set/sales`, {
      webhook: { enabled: true, url: hook.url, events: ["SEND_MESSAGE"] },
    }).then((r) => r.body?.cancel());
    await post(`${mock.url}/message/sendText/sales`, { number: "5511999999999", text: "Hi" }).then((r) =>
      r.body?.cancel()
    );
    await mock.webhooksIdle();
    strictEqual(hook.received.length, 1);
    strictEqual(mock.deliveries[0].status, 404);
    strictEqual(mock.deliveries[0].state, "failed");
  } finally {
    await hook.close();
  }
});

Deno.test("mock server: close() is idempotent and frees the port", async () => {
  const mock = await MockGatewayServer.start({ apiKey: KEY });
  const port = mock.port;
  await mock.close();
  await mock.close();
  await rejects(() => fetch(`http://127.0.0.1:${port}/`), TypeError);
});
