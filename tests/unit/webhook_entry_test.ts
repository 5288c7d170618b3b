import { deepStrictEqual, ok, strictEqual } from "node:assert/strict";
import * as entry from "../../src/webhooks/mod.ts";

const ROOT = new URL("../../", import.meta.url);

// A Worker that only receives imports `@gw/gateway/webhooks`: its module graph must hold none of the
// outbound client, so that a bundle of it carries none (bench/README.md has the sizes).
Deno.test("./webhooks: deno.json exports it, and its module graph has nothing from src/client/ or src/resources/", async () => {
  const config = JSON.parse(await Deno.readTextFile(new URL("deno.json", ROOT)));
  strictEqual(config.exports["./webhooks"], "./src/webhooks/mod.ts");
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", "src/webhooks/mod.ts"],
    cwd: ROOT,
    stdout: "piped",
    stderr: "piped",
  }).output();
  strictEqual(code, 0, new TextDecoder().decode(stderr));
  const graph = JSON.parse(new TextDecoder().decode(stdout)) as { modules: { specifier: string }[] };
  const local = graph.modules
    .map((module) => module.specifier)
    .filter((specifier) => specifier.startsWith(ROOT.href))
    .map((specifier) => specifier.slice(ROOT.href.length));
  ok(local.includes("src/webhooks/handler.ts") && local.includes("src/webhooks/queue.ts"), local.join());
  deepStrictEqual(
    local.filter((path) => /^src\/(client|resources)\/|^src\/service\.ts$|^mod\.ts$/.test(path)),
    [],
  );
});

Deno.test("./webhooks: holds the receiver (handler, verification, payload, processor, queue, dedupe)", () => {
  for (
    const name of [
      "createWebhookHandler",
      "handleWebhook",
      "webhookProcessor",
      "verifyWebhook",
      "WebhookVerifier",
      "WebhookVerificationException",
      "WebhookPayloadDto",
      "WebhookProcessor",
      "AbstractWebhookHandler",
      "KvWebhookQueue",
      "startWebhookWorker",
      "runWebhookJob",
      "KvWebhookDedupe",
      "MemoryWebhookDedupe",
    ]
  ) {
    strictEqual(typeof (entry as Record<string, unknown>)[name], "function", name);
  }
  strictEqual("GatewayService" in entry, false);
});
