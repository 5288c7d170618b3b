// The bot (`@gw/gateway/bot`) on Node and Bun: served through the package's toNodeListener, it verifies the
// webhook, answers the text through a gateway server (a node:http stub here) once, also when the webhook
// comes again, and refuses an unsigned one.
import { deepStrictEqual, strictEqual } from "node:assert/strict";
import { GatewayService, MemoryStore } from "@gw/gateway";
import { Bot } from "@gw/gateway/bot";
import { signWebhook } from "@gw/gateway/testing";
import { serveNode } from "./helpers.mjs";
import { test } from "./runner.mjs";

const SECRET = "portable-bot-webhook-secret";

test("bot in node:http: a signed text is answered once through the gateway; a redelivery or an unsigned post is not", async () => {
  const sent = [];
  const gateway = await serveNode(async (request) => {
    const body = await request.json();
    sent.push({
      path: new URL(request.url).pathname,
      text: body.text,
      key: request.headers.get("idempotency-key"),
    });
    return Response.json({
      key: { remoteJid: `${body.number}@s.whatsapp.net`, fromMe: true, id: `R${sent.length}` },
    }, {
      status: 201,
    });
  });
  const store = new MemoryStore();
  const service = GatewayService.make({
    server_url: gateway.url,
    api_key: "portable-key",
    instance: "sales",
    store,
    rate_limiting: { enabled: false },
  });
  const bot = new Bot({ service, store, signature: { scheme: "hmac", secret: SECRET }, pacing: false });
  bot.on("message:text", (ctx) => ctx.reply(`echo: ${ctx.text}`));
  const server = await serveNode(bot.fetch);
  try {
    const body = JSON.stringify({
      event: "messages.upsert",
      instance: "sales",
      sender: "5511900000000@s.whatsapp.net",
      data: {
        key: { id: "PB1", remoteJid: "5511999999999@s.whatsapp.net", fromMe: false },
        message: { conversation: "hi" },
        messageType: "conversation",
        messageTimestamp: 1760000000,
      },
    });
    const post = async (headers) => {
      const response = await fetch(`${server.url}/gateway/webhook/sales`, { method: "POST", headers, body });
      return `${response.status} ${await response.text()}`;
    };
    const headers = await signWebhook({ body, secret: SECRET });
    strictEqual(await post(headers), '200 {"ok":true}');
    strictEqual(await post(headers), '200 {"ok":true}'); // the server's redelivery: handled already
    strictEqual((await post({ "content-type": "application/json" })).slice(0, 4), "401 ");
    deepStrictEqual(sent, [{ path: "/message/sendText/sales", text: "echo: hi", key: "bot:sales:PB1:0" }]);
  } finally {
    await server.close();
    await bot.close();
    await gateway.close();
  }
});
