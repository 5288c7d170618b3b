/**
 * Against the real gateway server (Evolution API 2.3.x), when GW_REAL_URL and GW_REAL_KEY are set: the worker
 * of docs/webhooks.md "Receiving from the real server", run with its documented `deno serve` line and
 * `GATEWAY_WEBHOOK_SECRET`, receives the `CONNECTION_UPDATE` the server sends when an instance whose webhook
 * was set with `webhooks().secure({ url, secret, events })` starts connecting. The server signs it with its
 * own `jwt_key` JWT; the worker's default scheme (`auto`) must accept it, or the server drops the event.
 */

import { deepStrictEqual, ok, strictEqual } from "node:assert/strict";
import { GatewayService } from "../../mod.ts";
import { generateWebhookSecret } from "../../src/webhooks/signature.ts";
import { documentedWorker, serveDocumentedWorker } from "../helpers/documented_worker.ts";

const url = Deno.env.get("GW_REAL_URL");
const key = Deno.env.get("GW_REAL_KEY");

Deno.test({
  name:
    "real server: the documented worker receives CONNECTION_UPDATE (connecting) signed by the server's JWT; a webhook with another secret is a 401 named on stderr",
  ignore: !url || !key,
  async fn() {
    const documented = await documentedWorker("docs/webhooks.md", "## Receiving from the real server");
    ok(documented !== null, "docs/webhooks.md has the worker and its deno serve line");
    // The docs make the secret with `openssl rand -hex 32`: 64 hex characters, like this.
    const secret = generateWebhookSecret("jwt");
    const worker = await serveDocumentedWorker(documented, { GATEWAY_WEBHOOK_SECRET: secret });
    const name = `gw-receiver-${crypto.randomUUID().slice(0, 8)}`;
    const other = `${name}-b`;
    const gw = GatewayService.make({ server_url: url!, api_key: key!, instance: name });
    try {
      await gw.instances().create(name);
      // As the docs' set_webhook.ts does, with this worker's URL.
      await gw.webhooks().secure({
        url: `${worker.url}/gateway/webhook/${name}`,
        events: ["MESSAGES_UPSERT", "CONNECTION_UPDATE"],
        secret,
      });
      await gw.instances().connect(name);
      // Without WhatsApp the instance stays "connecting" and the server sends one CONNECTION_UPDATE per
      // attempt; the bound is the server's, not a measurement.
      const seen = await worker.waitForStdout(new RegExp(`^${name} connecting$`, "m"), 60_000);
      ok(seen.split("\n").includes(`${name} connecting`), seen);
      const stderr = worker.stderr();
      strictEqual(stderr.includes("Webhook refused"), false, stderr);
      strictEqual(stderr.includes("misconfigured"), false, stderr);

      // An instance whose webhook holds another secret: the server's JWT is refused (401), and the worker
      // says so on stderr (the server drops an event answered 401, so silence would lose it unseen).
      await gw.instances().create(other);
      await gw.instance(other).webhooks().secure({
        url: `${worker.url}/gateway/webhook/${other}`,
        events: ["CONNECTION_UPDATE"],
        secret: `x${secret}`,
      });
      await gw.instances().connect(other);
      await worker.waitForStderr(/Webhook refused \(401 signature_mismatch\)/, 60_000);
      const refused = worker.stderr().split("\n").filter((line) => line.includes("Webhook refused"));
      deepStrictEqual(refused, [
        '[gateway] Webhook refused (401 signature_mismatch): expected scheme "auto" (authorization: Bearer ' +
        "<JWT>, x-gateway-signature, or webhook-id/-timestamp/-signature); signature headers received: " +
        "authorization; Cannot verify webhook: the JWT signature does not match (is the secret the webhook's " +
        "jwt_key?)",
      ]);
      strictEqual(worker.stdout().includes(`${other} connecting`), false);
      strictEqual(worker.stderr().includes(secret), false, "the secret is never printed");
    } finally {
      await gw.instances().delete(name).catch(() => {});
      await gw.instances().delete(other).catch(() => {});
      await worker.stop();
    }
  },
});
