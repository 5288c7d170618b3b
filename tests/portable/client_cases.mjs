// The outbound client against the simulated gateway server over real HTTP (node:http): sends, typed
// errors, retries.
import { deepStrictEqual, rejects, strictEqual } from "node:assert/strict";
import { AuthenticationException, GatewayService, InstanceNotFoundException } from "@gw/gateway";
import { GatewaySimulator } from "@gw/gateway/testing";
import { serveNode } from "./helpers.mjs";
import { test } from "./runner.mjs";

const KEY = "portable-key";

async function withGateway(body) {
  const simulator = new GatewaySimulator({ apiKey: KEY });
  const server = await serveNode((request) => simulator.handle(request));
  try {
    simulator.addInstance("sales", { open: true });
    const gw = GatewayService.make({
      server_url: server.url,
      api_key: KEY,
      instance: "sales",
      retry: { base_delay_ms: 1, max_delay_ms: 2 },
    });
    await body(gw, simulator, server.url);
  } finally {
    await server.close();
    await simulator.close();
  }
}

test("client: sends a text message and reads the server's answer", async () => {
  await withGateway(async (gw, simulator) => {
    const response = await gw.messages().text("5511999999999", "Hello from the portable suite");
    strictEqual(response.status, 201);
    strictEqual(response.json("key.remoteJid"), "5511999999999@s.whatsapp.net");
    strictEqual(simulator.sentMessages.length, 1);
    deepStrictEqual(simulator.requests.map((r) => `${r.method} ${r.path}`), ["POST /message/sendText/sales"]);
  });
});

test("client: a wrong api key is an AuthenticationException, an unknown instance an InstanceNotFoundException", async () => {
  await withGateway(async (gw, _simulator, url) => {
    const wrongKey = GatewayService.make({ server_url: url, api_key: "wrong", instance: "sales" });
    await rejects(wrongKey.instances().connectionState(), AuthenticationException);
    await rejects(gw.instance("ghost").messages().text("5511999999999", "hi"), (error) => {
      strictEqual(error instanceof InstanceNotFoundException, true);
      strictEqual(error.status, 404);
      return true;
    });
  });
});

test("client: a 503 on a safe request is retried until it succeeds", async () => {
  await withGateway(async (gw, simulator) => {
    simulator.failNext({ route: "GET /instance/connectionState", status: 503, times: 2 });
    const response = await gw.instances().connectionState();
    strictEqual(response.status, 200);
    strictEqual(simulator.requests.length, 3);
  });
});

test("client: a send answered 503 (not processed) is retried; a 400 is a GatewayApiException at once, not retried", async () => {
  await withGateway(async (gw, simulator) => {
    simulator.failNext({ route: "POST /message/sendText", status: 503 });
    strictEqual((await gw.messages().text("5511999999999", "once")).status, 201);
    strictEqual(simulator.requests.length, 2);
    strictEqual(simulator.sentMessages.length, 1);
    simulator.failNext({ route: "POST /message/sendText", status: 400 });
    await rejects(gw.messages().text("5511999999999", "bad"), { name: "GatewayApiException", status: 400 });
    strictEqual(simulator.requests.length, 3);
  });
});
