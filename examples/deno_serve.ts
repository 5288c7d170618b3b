/**
 * Receive the gateway server's webhooks with `Deno.serve`.
 *
 *   GATEWAY_WEBHOOK_SECRET=... deno run --allow-net=127.0.0.1 --allow-env examples/deno_serve.ts
 *
 * The gateway server then POSTs to http://<this host>:8000/gateway/webhook/<instance>. With the reference
 * server's own mechanism, set its webhook `headers: { "jwt_key": "<secret>" }` and GATEWAY_WEBHOOK_SIGNATURE_SCHEME=jwt.
 */

import { createWebhookHandler, WebhookProcessor } from "../mod.ts";
import { webhookOptionsFromEnv } from "../src/webhooks/mod.ts";

const processor = new WebhookProcessor()
  .on("messages.upsert", (payload) => {
    // Inbound private messages usually arrive as @lid chats: senderJid resolves the phone-number JID.
    if (payload.isInboundMessage) {
      console.log(`message from ${payload.senderJid}: ${payload.text ?? "(media)"}`);
    }
  })
  .on("connection.update", (payload) => console.log(`${payload.instance} is ${payload.connectionState}`))
  .on("qrcode.updated", (payload) => console.log(`scan the QR code for ${payload.instance}`));

const handler = createWebhookHandler({
  ...webhookOptionsFromEnv((name) => Deno.env.get(name)),
  processor,
  dedupe: true, // the server retries up to 10 times; redeliveries are answered 200 without running handlers
});

Deno.serve({ hostname: "127.0.0.1", port: Number(Deno.env.get("PORT") ?? 8000) }, handler);
