/**
 * The documented worker (docs/webhooks.md "Receiving from the real server", and README.md's when it has one),
 * run exactly as written (`deno serve` with its permissions): it accepts the JWT the reference server sends
 * and an hmac signature with the default scheme, refuses a wrong secret with 401 and says so on stderr; and
 * without `--allow-env` it answers 503 naming the variable and the flag, and says so once on stderr.
 */

import { deepStrictEqual, ok, strictEqual } from "node:assert/strict";
import { signWebhook } from "../../src/webhooks/signature.ts";
import {
  type DocumentedWorker,
  documentedWorker,
  serveDocumentedWorker,
} from "../helpers/documented_worker.ts";

const SECRET = "readme-worker-secret-0123456789abcdef";

async function post(
  url: string,
  secret: string,
  scheme: "hmac" | "jwt",
): Promise<{ status: number; body: Record<string, unknown> }> {
  const body = JSON.stringify({ event: "connection.update", instance: "ops", data: { state: "open" } });
  const response = await fetch(`${url}/gateway/webhook/ops`, {
    method: "POST",
    headers: await signWebhook({ body, secret, scheme }),
    body,
  });
  return { status: response.status, body: await response.json() };
}

async function check(documented: DocumentedWorker): Promise<void> {
  const secret = /GATEWAY_WEBHOOK_SECRET=(\S+)/.exec(documented.line)?.[1] ?? SECRET;
  ok(/--allow-env\S*GATEWAY_WEBHOOK_/.test(documented.line), documented.line);

  const denied = await serveDocumentedWorker(documented, { GATEWAY_WEBHOOK_SECRET: secret }, {
    withoutAllowEnv: true,
  });
  try {
    const message =
      "Webhook receiver misconfigured: GATEWAY_WEBHOOK_SECRET cannot be read without permission; " +
      "run Deno with --allow-env=GATEWAY_WEBHOOK_SECRET (every webhook is answered 503 until then)";
    for (let i = 0; i < 3; i++) {
      deepStrictEqual(await post(denied.url, secret, "jwt"), {
        status: 503,
        body: { ok: false, error: message, setting: "GATEWAY_WEBHOOK_SECRET" },
      });
    }
    const health = await fetch(`${denied.url}/gateway/webhook/health`);
    strictEqual(health.status, 503);
    await health.body?.cancel();
    await denied.stop();
    const lines = denied.stderr().split("\n").filter((line) => line.includes("misconfigured"));
    deepStrictEqual(lines, [`[gateway] ${message}`], documented.source);
  } finally {
    await denied.stop();
  }

  const allowed = await serveDocumentedWorker(documented, { GATEWAY_WEBHOOK_SECRET: secret });
  try {
    deepStrictEqual(await post(allowed.url, secret, "jwt"), { status: 200, body: { ok: true } });
    deepStrictEqual(await post(allowed.url, secret, "hmac"), { status: 200, body: { ok: true } });
    deepStrictEqual(await post(allowed.url, "not-the-secret-0123456789abcdef", "jwt"), {
      status: 401,
      body: { ok: false, error: "Unauthorized" },
    });
    const health = await fetch(`${allowed.url}/gateway/webhook/health`);
    deepStrictEqual({ status: health.status, body: await health.json() }, {
      status: 200,
      body: { ok: true, status: "ok" },
    });
  } finally {
    await allowed.stop();
  }
  const stderr = allowed.stderr();
  strictEqual(stderr.includes("misconfigured"), false, stderr);
  // The documented --allow-env covers every variable the receiver reads: no "cannot be read" line.
  strictEqual(stderr.includes("cannot be read without permission"), false, stderr);
  strictEqual(stderr.includes(secret), false, stderr);
  ok(stderr.includes("[gateway] Webhook refused (401 signature_mismatch)"), stderr);
}

Deno.test("docs/webhooks.md worker: 503 without --allow-env; as documented the JWT and hmac pass, a wrong secret is 401", async () => {
  const documented = await documentedWorker("docs/webhooks.md", "## Receiving from the real server");
  ok(documented !== null, "docs/webhooks.md has the worker and its deno serve line");
  strictEqual(
    documented.line,
    'deno serve --allow-env="GATEWAY_WEBHOOK_*,GATEWAY_QUEUE_*" --port 8000 worker.ts',
  );
  await check(documented);
});

Deno.test("README.md worker: the same text as docs/webhooks.md, and it behaves the same", async () => {
  const readme = await documentedWorker("README.md", "## Receiving the server's webhooks");
  ok(readme !== null, "README.md has the worker and its deno serve line");
  const docs = await documentedWorker("docs/webhooks.md", "## Receiving from the real server");
  strictEqual(readme.worker, docs?.worker);
  strictEqual(readme.line, docs?.line);
  await check(readme);
});
