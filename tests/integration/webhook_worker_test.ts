/**
 * The Cloudflare Worker example in the real Workers runtime (workerd through npm `miniflare`), offline on
 * 127.0.0.1: the example is bundled to one ES module with `deno bundle`, loaded with the Worker's env
 * bindings, and sent a signed and an unsigned webhook.
 */

import { deepStrictEqual, strictEqual } from "node:assert/strict";
import { Miniflare } from "../npm/miniflare.ts";
import { signWebhook } from "../../src/webhooks/signature.ts";

const SECRET = "worker-secret-7";
const ROOT = new URL("../../", import.meta.url);

async function bundleWorker(dir: string): Promise<string> {
  const output = `${dir}/worker.js`;
  const { code, stderr } = await new Deno.Command(Deno.execPath(), {
    args: [
      "bundle",
      "--quiet",
      "--platform",
      "browser",
      "-o",
      output,
      "examples/cloudflare_worker/worker.ts",
    ],
    cwd: ROOT.pathname,
    stdout: "null",
    stderr: "piped",
  }).output();
  strictEqual(code, 0, new TextDecoder().decode(stderr));
  return output;
}

Deno.test({
  name: "Cloudflare Worker example in workerd: signed webhook → 200 and handled, unsigned → 401",
  // miniflare itself leaves a MessagePort and an undici keep-alive timer open after dispose() (checked:
  // with the sanitizers on, those two are the only leaks reported); everything of ours is closed.
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    Deno.env.set("WRANGLER_SEND_METRICS", "false");
    const dir = await Deno.makeTempDir({ prefix: "gw_worker_" });
    const mf = new Miniflare({
      modules: true,
      // The module text, not its path: workerd refuses module names that climb out of its root with "..".
      script: await Deno.readTextFile(await bundleWorker(dir)),
      compatibilityDate: "2025-09-01",
      bindings: { GATEWAY_WEBHOOK_SECRET: SECRET, GATEWAY_WEBHOOK_SCHEME: "hmac" },
      host: "127.0.0.1",
      port: 0,
    });
    try {
      const body = JSON.stringify({
        event: "messages.upsert",
        instance: "sales",
        data: {
          key: { id: "W1", remoteJid: "42@lid", remoteJidAlt: "5511999999999@s.whatsapp.net", fromMe: false },
          message: { conversation: "from workerd ☁️" },
        },
      });
      const headers = await signWebhook({ body, secret: SECRET });
      const signed = await mf.dispatchFetch("http://127.0.0.1/gateway/webhook/sales", {
        method: "POST",
        headers,
        body,
      });
      strictEqual(signed.status, 200);
      deepStrictEqual(await signed.json(), { ok: true });

      const unsigned = await mf.dispatchFetch("http://127.0.0.1/gateway/webhook/sales", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body,
      });
      strictEqual(unsigned.status, 401);
      deepStrictEqual(await unsigned.json(), { ok: false, error: "Unauthorized" });

      const health = await mf.dispatchFetch("http://127.0.0.1/gateway/webhook/health");
      strictEqual(health.status, 200);
      await health.arrayBuffer();

      const last = await mf.dispatchFetch("http://127.0.0.1/last");
      deepStrictEqual(await last.json(), [
        {
          event: "MESSAGES_UPSERT",
          instance: "sales",
          sender: "5511999999999@s.whatsapp.net",
          text: "from workerd ☁️",
        },
      ]);
    } finally {
      await mf.dispose();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
