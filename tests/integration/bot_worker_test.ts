// The ten-line echo bot (examples/bot/echo.ts) unchanged in the real Workers runtime (workerd through npm
// `miniflare`): configuration from the env bindings (only the secret: the default scheme verifies the Bearer
// JWT the real server signs with the webhook's jwt_key), the reply sent through the service built from the bindings. The Worker's
// outbound fetches go to the simulated gateway server.
import { deepStrictEqual, strictEqual } from "node:assert/strict";
import { Miniflare } from "../npm/miniflare.ts";
import { GatewaySimulator } from "../../src/testing/mod.ts";
import { signWebhook } from "../../src/webhooks/signature.ts";
import { bundleWorker } from "../helpers/cloudflare.ts";

Deno.env.set("WRANGLER_SEND_METRICS", "false");
const SECRET = "echo-worker-jwt-key-0123456789";
const API_KEY = "worker-api-key";

Deno.test({
  name: "examples/bot/echo.ts runs in workerd: verified webhook in, reply out, its echoes ignored",
  // miniflare's client keeps keep-alive timers of its own: the sanitizers are off here.
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    const sim = new GatewaySimulator({ apiKey: API_KEY });
    sim.addInstance("demo", { open: true, number: "5511900000000" });
    const mf = new Miniflare({
      modules: true,
      script: await bundleWorker("examples/bot/echo.ts"),
      compatibilityDate: "2025-09-01",
      bindings: {
        GATEWAY_WEBHOOK_SECRET: SECRET,
        GATEWAY_API_URL: "http://gateway.test",
        GATEWAY_API_KEY: API_KEY,
        GATEWAY_INSTANCE: "demo",
      },
      outboundService: (request: Request) => sim.handle(request),
    });
    try {
      const post = async (body: Record<string, unknown>, signed = true) => {
        const raw = JSON.stringify(body);
        const headers = signed
          ? await signWebhook({ body: raw, secret: SECRET, scheme: "jwt" })
          : { "content-type": "application/json" };
        const res = await mf.dispatchFetch("http://127.0.0.1/gateway/webhook/demo", {
          method: "POST",
          headers: { "content-type": "application/json", ...headers },
          body: raw,
        });
        await res.arrayBuffer();
        return res.status;
      };
      const inbound = sim.simulateInboundMessage("demo", { from: "5511999999999", text: "hello worker" });
      const envelope = { event: "messages.upsert", instance: "demo", sender: "5511900000000@s.whatsapp.net" };
      strictEqual(await post({ ...envelope, data: inbound }), 200);
      strictEqual(await post({ ...envelope, data: inbound }), 200); // a redelivery: handled once
      strictEqual(await post({ ...envelope, data: inbound }, false), 401);
      deepStrictEqual(sim.sentMessages.map((m) => [m.operation, m.remoteJid, m.text]), [
        ["sendText", "5511999999999@s.whatsapp.net", "hello worker"],
      ]);
      // The server's echo of the reply (send.message) reaches the bot and is ignored.
      const reply = sim.sentMessages[0].message;
      strictEqual(await post({ ...envelope, event: "send.message", data: reply }), 200);
      strictEqual(sim.sentMessages.length, 1);
    } finally {
      await mf.dispose();
      await sim.close();
    }
  },
});
