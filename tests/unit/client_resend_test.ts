// The runtime must never send a message twice by itself. Deno's fetch retries, once and silently, a request
// whose reused (pooled) connection closed before the answer: a send the server had read in full went out again
// and the caller saw one 201 after "1 attempt". These tests use the runtime's real fetch (nothing injected)
// against a hand-written HTTP/1.1 server that reads the second send in full and closes without answering.

import { deepStrictEqual, ok, rejects, strictEqual } from "node:assert/strict";
import {
  ConnectionException,
  ConnectionManager,
  GatewayApiException,
  GatewayClient,
  GatewayService,
} from "../../mod.ts";
import { rawHttpServer } from "../helpers/raw_http_server.ts";

const KEY = "resend-test-key-0123456789";

function clientFor(url: string): GatewayClient {
  return new GatewayClient({}, {
    connections: new ConnectionManager({ server_url: url, api_key: KEY, instance: "sales" }),
  });
}

Deno.test("a send whose connection closes after the server read it is read once and fails outcome-unknown", async () => {
  const server = rawHttpServer([{ answer: 201, body: '{"key":{"id":"A"}}' }, "close"]);
  try {
    const client = clientFor(server.url);
    const first = await client.request("POST", "/message/sendText/{instance}", {
      body: { number: "5511999999999", text: "first" },
    });
    strictEqual(first.status, 201);
    await rejects(
      client.request("POST", "/message/sendText/{instance}", {
        body: { number: "5511999999999", text: "second" },
      }),
      (thrown: unknown) => {
        ok(thrown instanceof ConnectionException, String(thrown));
        strictEqual(thrown.outcomeUnknown, true);
        strictEqual(thrown.attempts, 1);
        strictEqual(thrown.reason, "network");
        return true;
      },
    );
    deepStrictEqual(server.requests.map((request) => request.body), [
      '{"number":"5511999999999","text":"first"}',
      '{"number":"5511999999999","text":"second"}',
    ]);
    // Both sends went out on one kept-alive connection: the case in which the runtime would retry.
    strictEqual(server.requests[1].connection, server.requests[0].connection);
  } finally {
    await server.close();
  }
});

Deno.test("messages().text through the service: the send the server read is never delivered a second time", async () => {
  const server = rawHttpServer([
    { answer: 200, body: '{"instance":{"state":"open"}}' },
    { answer: 201, body: '{"key":{"id":"A"}}' },
    "close",
  ]);
  try {
    const gw = new GatewayService({ server_url: server.url, api_key: KEY, instance: "sales" });
    await gw.getClient().request("GET", "/instance/connectionState/{instance}");
    const sent = await gw.messages().text("5511999999999", "first");
    deepStrictEqual(sent.data, { key: { id: "A" } });
    await rejects(
      gw.messages().text("5511999999999", "second"),
      (thrown: unknown) => thrown instanceof ConnectionException && thrown.outcomeUnknown === true,
    );
    const texts = server.requests.filter((request) => request.head.startsWith("POST"))
      .map((request) => JSON.parse(request.body).text);
    deepStrictEqual(texts, ["first", "second"]);
  } finally {
    await server.close();
  }
});

Deno.test("a safe read whose reused connection closes unanswered may be sent again: it is answered", async () => {
  const server = rawHttpServer([
    { answer: 200, body: '{"instance":{"state":"open"}}' },
    "close",
    { answer: 200, body: '{"instance":{"state":"close"}}' },
  ]);
  try {
    const client = clientFor(server.url);
    await client.request("GET", "/instance/connectionState/{instance}");
    const again = await client.request("GET", "/instance/connectionState/{instance}");
    strictEqual(again.json("instance.state"), "close");
    strictEqual(server.requests.length, 3);
  } finally {
    await server.close();
  }
});

Deno.test("a send answered 307 or 308 goes once to the new location with its body (a proxy's http → https move)", async () => {
  const bodies: string[] = [];
  const target = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
    bodies.push(`${new URL(request.url).pathname} ${await request.text()}`);
    return Response.json({ key: { id: "A" } }, { status: 201 });
  });
  let hops = 0;
  const proxy = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
    await request.body?.cancel();
    const status = hops++ === 0 ? 307 : 308;
    const location = `http://127.0.0.1:${target.addr.port}${new URL(request.url).pathname}`;
    return new Response(null, { status, headers: { location } });
  });
  try {
    const client = clientFor(`http://127.0.0.1:${proxy.addr.port}`);
    for (const text of ["first", "second"]) {
      const sent = await client.request("POST", "/message/sendText/{instance}", {
        body: { number: "5511999999999", text },
      });
      strictEqual(sent.status, 201);
    }
    deepStrictEqual(bodies, [
      '/message/sendText/sales {"number":"5511999999999","text":"first"}',
      '/message/sendText/sales {"number":"5511999999999","text":"second"}',
    ]);
  } finally {
    await proxy.shutdown();
    await target.shutdown();
  }
});

Deno.test("a send redirected to another host is not followed: the api key never leaves for it", async () => {
  let reached = 0;
  const other = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
    await request.body?.cancel();
    reached++;
    return Response.json({ key: { id: "A" } }, { status: 201 });
  });
  const proxy = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
    await request.body?.cancel();
    return new Response(null, {
      status: 308,
      headers: { location: `http://localhost:${other.addr.port}/x` },
    });
  });
  try {
    const client = clientFor(`http://127.0.0.1:${proxy.addr.port}`);
    await rejects(
      client.request("POST", "/message/sendText/{instance}", {
        body: { number: "5511999999999", text: "hi" },
      }),
      (error: unknown) => {
        ok(error instanceof GatewayApiException, String(error));
        strictEqual(error.status, 308);
        return true;
      },
    );
    strictEqual(reached, 0);
  } finally {
    await proxy.shutdown();
    await other.shutdown();
  }
});

Deno.test("a GET that is not safe to repeat (groups().acceptInvite) goes out without a body and is answered", async () => {
  // A GET cannot carry the stream that defeats the runtime's retry: fetch refused it ("Request with GET/HEAD
  // method cannot have body") and the call always failed.
  const server = rawHttpServer([{ answer: 200, body: '{"accepted":true}' }]);
  try {
    const gw = new GatewayService({ server_url: server.url, api_key: KEY, instance: "sales" });
    const res = await gw.groups().acceptInvite("AbCdEfGhIjKlMnOpQrStUv");
    deepStrictEqual(res.data, { accepted: true });
    strictEqual(server.requests.length, 1);
    ok(
      server.requests[0].head.startsWith("GET /group/acceptInviteCode/sales?inviteCode="),
      server.requests[0].head,
    );
    strictEqual(server.requests[0].body, "");
  } finally {
    await server.close();
  }
});

// Every send kind goes through the same request loop; each is checked, so that a kind marked idempotent by
// mistake (or sent with a body fetch can replay) shows here.
const N = "5511999999999";
const SEND_KINDS: Record<string, (gw: GatewayService) => Promise<unknown>> = {
  text: (gw) => gw.messages().text(N, "second"),
  image: (gw) => gw.messages().image(N, "https://example.com/a.png", "second"),
  document: (gw) => gw.messages().document(N, "https://example.com/a.pdf", "a.pdf"),
  audio: (gw) => gw.messages().audio(N, "https://example.com/a.ogg"),
  ptv: (gw) => gw.messages().ptv(N, "https://example.com/a.mp4"),
  sticker: (gw) => gw.messages().sticker(N, "https://example.com/a.webp"),
  location: (gw) => gw.messages().location(N, -23.5, -46.6, "Shop", "Main St"),
  contact: (gw) => gw.messages().contact(N, [{ fullName: "Ana", phoneNumber: "5511988887777" }]),
  reaction: (gw) =>
    gw.messages().reaction({ id: "3EB0", remoteJid: `${N}@s.whatsapp.net`, fromMe: true }, "👍"),
  poll: (gw) => gw.messages().poll(N, "Which?", ["a", "b"]),
  list: (gw) =>
    gw.messages().list({
      number: N,
      title: "Menu",
      description: "Pick",
      buttonText: "Open",
      footerText: "f",
      sections: [{ title: "s", rows: [{ title: "r", rowId: "1" }] }],
    }),
  status: (gw) =>
    gw.messages().status({
      type: "text",
      content: "hi",
      allContacts: true,
      backgroundColor: "#000000",
      font: 1,
    }),
};

for (const [kind, send] of Object.entries(SEND_KINDS)) {
  Deno.test(`a ${kind} send the server read before its connection closed is read once: outcome-unknown`, async () => {
    const server = rawHttpServer([{ answer: 201, body: '{"key":{"id":"A"}}' }, "close"]);
    try {
      const gw = new GatewayService({ server_url: server.url, api_key: KEY, instance: "sales" });
      await gw.messages().text(N, "first");
      await rejects(
        send(gw),
        (thrown: unknown) => thrown instanceof ConnectionException && thrown.outcomeUnknown === true,
      );
      strictEqual(server.requests.length, 2);
      strictEqual(server.requests[1].connection, server.requests[0].connection);
    } finally {
      await server.close();
    }
  });
}

Deno.test("sendMany: an item the server read before its connection closed is read once and reported unknown", async () => {
  const server = rawHttpServer([{ answer: 201, body: '{"key":{"id":"A"}}' }, "close"]);
  try {
    const gw = new GatewayService({ server_url: server.url, api_key: KEY, instance: "sales" });
    const report = await gw.messages().sendMany([
      { idempotencyKey: "bulk-1", to: N, text: "first" },
      { idempotencyKey: "bulk-2", to: "5511988887777", text: "second" },
    ], { minGapMs: 0, jitterMs: 0, recipientIntervalMs: 0, typing: false, sleep: () => Promise.resolve() });
    deepStrictEqual(report.items.map((item) => item.status), ["sent", "unknown"]);
    const texts = server.requests.map((request) => JSON.parse(request.body).text);
    deepStrictEqual(texts, ["first", "second"]);
  } finally {
    await server.close();
  }
});
