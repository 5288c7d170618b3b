/**
 * A sender that stalls in the middle of a body gets a whole 408 with `connection: close`, under a real
 * `Deno.serve` and under the `serve` command (configured from the file's `webhook.body_timeout_ms`), and the
 * receiver goes on serving. The client is a raw TCP socket that sends the headers and half of the declared
 * body, then reads until the 408 is complete (with a guard so that a regression fails instead of hanging).
 * (Deno's HTTP/1.1 server itself keeps the socket until the sender sends more or leaves: the client closes.)
 */

import { ok, strictEqual } from "node:assert/strict";
import { createWebhookHandler } from "../../src/webhooks/handler.ts";
import { WebhookProcessor } from "../../src/webhooks/processor.ts";
import { signWebhook } from "../../src/webhooks/signature.ts";
import { cliCommand, lineReader, tempDir, writeConfig } from "./cli_helpers.ts";

const SECRET = "body-timeout-secret-0123456789abcdef";
const BODY = JSON.stringify({ event: "call", instance: "sales", data: { id: "c1" } });

/** Send the head and half the body, then read until the 408 with its body arrived; the reply as text. */
async function stall(port: number): Promise<string> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  const headers = await signWebhook({ body: BODY, secret: SECRET });
  const head = `POST /gateway/webhook/sales HTTP/1.1\r\nhost: 127.0.0.1\r\n` +
    Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`).join("") +
    `content-length: ${BODY.length}\r\n\r\n`;
  await conn.write(new TextEncoder().encode(head + BODY.slice(0, BODY.length / 2)));
  let guard: number | undefined;
  const neverClosed = new Promise<never>((_, reject) => {
    guard = setTimeout(() => reject(new Error("no 408 for the stalled body")), 20_000) as unknown as number;
  });
  try {
    const read = (async () => {
      let text = "";
      const buffer = new Uint8Array(4096);
      const decoder = new TextDecoder();
      for (let n = await conn.read(buffer); n !== null; n = await conn.read(buffer)) {
        text += decoder.decode(buffer.subarray(0, n), { stream: true });
        const length = /\r\ncontent-length: (\d+)\r\n/i.exec(text)?.[1];
        const end = text.indexOf("\r\n\r\n");
        if (length !== undefined && end >= 0 && text.length >= end + 4 + Number(length)) break;
      }
      return text;
    })();
    return await Promise.race([read, neverClosed]);
  } finally {
    clearTimeout(guard);
    conn.close();
  }
}

function checkReply(reply: string): void {
  ok(reply.startsWith("HTTP/1.1 408 "), reply);
  ok(/\r\nconnection: close\r\n/i.test(reply), reply);
  ok(reply.includes('{"ok":false,"error":"Request Timeout: the body did not arrive in time"}'), reply);
}

Deno.test("Deno.serve: a stalled body gets 408 with connection: close; a whole one is processed", async () => {
  const seen: string[] = [];
  const processor = new WebhookProcessor({ log: false }).onAny((payload) => void seen.push(payload.event));
  const handler = createWebhookHandler({ signature: { secret: SECRET }, bodyTimeoutMs: 150, processor });
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, handler);
  try {
    checkReply(await stall(server.addr.port));
    const whole = await fetch(`http://127.0.0.1:${server.addr.port}/gateway/webhook/sales`, {
      method: "POST",
      headers: await signWebhook({ body: BODY, secret: SECRET }),
      body: BODY,
    });
    strictEqual(whole.status, 200);
    await whole.body?.cancel();
    strictEqual(handler.metrics?.total("gateway_webhook_rejections_total", { status: "408" }), 1);
    strictEqual(seen.join(), "CALL");
  } finally {
    await server.shutdown();
    await handler.close();
  }
});

Deno.test("serve: webhook.body_timeout_ms from the file; a stalled body gets 408, then a signed one 200", async () => {
  await using dir = await tempDir();
  await writeConfig(dir.path, { webhook: { secret: SECRET, body_timeout_ms: 150 } });
  const child = cliCommand("serve", ["--port", "0", "--no-tasks"], { cwd: dir.path }).spawn();
  const stdout = lineReader(child.stdout);
  const stderr = (async () => {
    let text = "";
    for await (const chunk of child.stderr.pipeThrough(new TextDecoderStream())) text += chunk;
    return text;
  })();
  try {
    const port = await stdout.until((line) => /^Listening on http:\/\/127\.0\.0\.1:(\d+)\//.exec(line)?.[1]);
    checkReply(await stall(Number(port)));
    const whole = await fetch(`http://127.0.0.1:${port}/gateway/webhook/sales`, {
      method: "POST",
      headers: await signWebhook({ body: BODY, secret: SECRET }),
      body: BODY,
    });
    strictEqual(whole.status, 200);
    await whole.body?.cancel();
  } finally {
    child.kill("SIGTERM");
    await child.status;
    await stdout.rest();
  }
  strictEqual(await stderr, "");
});
