// The webhook receiver mounted in node:http and in Hono (@hono/node-server): every signature scheme is
// verified, a bad signature is refused.
import { deepStrictEqual, strictEqual } from "node:assert/strict";
import { serve } from "@hono/node-server";
import { Hono } from "hono";
import { createWebhookHandler, WebhookProcessor } from "@gw/gateway";
import { signWebhook } from "@gw/gateway/testing";
import { serveNode } from "./helpers.mjs";
import { test } from "./runner.mjs";

const SECRETS = {
  hmac: "portable-webhook-secret",
  standard: `whsec_${btoa("portable-standard-secret-32-bytes")}`,
  jwt: "portable-jwt-key",
  token: "portable-token",
};
const body = JSON.stringify({
  event: "messages.upsert",
  instance: "sales",
  data: { key: { id: "P1", remoteJid: "5511999999999@s.whatsapp.net" }, message: { conversation: "hi" } },
});

function receiver(scheme, secret = SECRETS[scheme]) {
  const texts = [];
  const processor = new WebhookProcessor({ log: false }).on("messages.upsert", (payload) => {
    texts.push(payload.text);
  });
  const handler = createWebhookHandler({ signature: { scheme, secret }, processor, metrics: false });
  return { handler, texts };
}

async function post(url, headers, content = body) {
  const response = await fetch(`${url}/gateway/webhook/sales`, { method: "POST", headers, body: content });
  return `${response.status} ${await response.text()}`;
}

for (const scheme of ["hmac", "standard", "jwt", "token"]) {
  test(`webhooks in node:http: the ${scheme} scheme is verified; a tampered body is refused`, async () => {
    const { handler, texts } = receiver(scheme);
    const server = await serveNode(handler);
    try {
      const headers = await signWebhook({ body, secret: SECRETS[scheme], scheme });
      strictEqual(await post(server.url, headers), '200 {"ok":true}');
      deepStrictEqual(texts, ["hi"]);
      const other = scheme === "standard"
        ? `whsec_${btoa("another-secret-of-thirty-two-byte")}`
        : "not-the-secret";
      const wrong = await signWebhook({ body, secret: other, scheme });
      strictEqual((await post(server.url, wrong)).slice(0, 4), "401 ");
      deepStrictEqual(texts, ["hi"]);
    } finally {
      await server.close();
      await handler.close();
    }
  });
}

test("webhooks in Hono on Node (@hono/node-server): verified and processed, refused without a signature", async () => {
  const { handler, texts } = receiver("hmac");
  const app = new Hono();
  app.all("/gateway/webhook/*", (c) => handler(c.req.raw));
  const server = await new Promise((resolve) => {
    const s = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, () => resolve(s));
  });
  const url = `http://127.0.0.1:${server.address().port}`;
  try {
    const headers = await signWebhook({ body, secret: SECRETS.hmac });
    strictEqual(await post(url, headers), '200 {"ok":true}');
    strictEqual((await post(url, { "content-type": "application/json" })).slice(0, 4), "401 ");
    deepStrictEqual(texts, ["hi"]);
  } finally {
    server.closeAllConnections?.();
    await new Promise((resolve) => server.close(resolve));
    await handler.close();
  }
});
