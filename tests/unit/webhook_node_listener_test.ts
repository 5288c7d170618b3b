import { deepStrictEqual, strictEqual } from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { createWebhookHandler } from "../../src/webhooks/handler.ts";
import { toNodeListener } from "../../src/webhooks/node_listener.ts";
import { WebhookProcessor } from "../../src/webhooks/processor.ts";
import { signWebhook } from "../../src/webhooks/signature.ts";

async function withNodeServer(
  listener: ReturnType<typeof toNodeListener>,
  body: (url: string) => Promise<void>,
): Promise<void> {
  const server = createServer((req, res) => void listener(req, res));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  try {
    await body(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}

Deno.test("toNodeListener: the webhook receiver in node:http verifies, processes and answers", async () => {
  const texts: string[] = [];
  const processor = new WebhookProcessor({ log: false }).on("messages.upsert", (payload) => {
    texts.push(payload.text ?? "");
  });
  const handler = createWebhookHandler({
    signature: { secret: "node-secret" },
    processor,
    metrics: false,
    maxBodyBytes: 1000,
  });
  await withNodeServer(toNodeListener(handler), async (url) => {
    const body = JSON.stringify({
      event: "messages.upsert",
      instance: "sales",
      data: { message: { conversation: "oi" } },
    });
    const headers = await signWebhook({ body, secret: "node-secret" });
    const ok = await fetch(`${url}/gateway/webhook/sales`, { method: "POST", headers, body });
    deepStrictEqual([ok.status, ok.headers.get("content-type"), await ok.text()], [
      200,
      "application/json",
      '{"ok":true}',
    ]);
    deepStrictEqual(texts, ["oi"]);
    const unsigned = await fetch(`${url}/gateway/webhook/sales`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
    });
    strictEqual(unsigned.status, 401);
    await unsigned.body?.cancel();
    // The size limit applies to the streamed body.
    const big = JSON.stringify({ event: "messages.upsert", data: { text: "x".repeat(5000) } });
    const tooBig = await fetch(`${url}/gateway/webhook/sales`, {
      method: "POST",
      headers: await signWebhook({ body: big, secret: "node-secret" }),
      body: big,
    });
    strictEqual(tooBig.status, 413);
    await tooBig.body?.cancel();
  });
  await handler.close();
});

Deno.test("toNodeListener: a handler that throws is answered 500", async () => {
  await withNodeServer(toNodeListener(() => Promise.reject(new Error("boom"))), async (url) => {
    const response = await fetch(`${url}/anything`, { method: "POST", body: "x" });
    deepStrictEqual([response.status, await response.text()], [500, '{"ok":false,"error":"Internal error"}']);
  });
});
