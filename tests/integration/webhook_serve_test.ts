/**
 * handleWebhook under real servers on 127.0.0.1: `Deno.serve(handleWebhook)` (the second argument is
 * Deno's connection info, not bindings), `deno serve` with `export default { fetch: handleWebhook }`, and a
 * process without env permission (the secret is then unreadable: 503 naming the variable, no crash, no prompt).
 */

import { deepStrictEqual, ok, strictEqual } from "node:assert/strict";
import { handleWebhook, webhookProcessor } from "../../src/webhooks/default_handler.ts";
import type { WebhookPayloadDto } from "../../src/webhooks/payload.ts";
import { signWebhook } from "../../src/webhooks/signature.ts";

const ROOT = new URL("../../", import.meta.url).pathname;

Deno.test("Deno.serve over handleWebhook: signed → 200, unsigned → 401, chunked body over the limit → 413", async () => {
  const seen: WebhookPayloadDto[] = [];
  const fn = (payload: WebhookPayloadDto) => void seen.push(payload);
  webhookProcessor().onAny(fn);
  // The variables as bindings: Deno.env is process-wide and shared by the files running in parallel (the
  // Deno.env path is the child processes' below).
  const env = { GATEWAY_WEBHOOK_SECRET: "serve-secret", GATEWAY_WEBHOOK_MAX_BODY_BYTES: "4096" };
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    (request) => handleWebhook(request, env),
  );
  try {
    const url = `http://127.0.0.1:${server.addr.port}/gateway/webhook/sales`;
    const body = JSON.stringify({
      event: "messages.upsert",
      instance: "sales",
      data: { message: { conversation: "é 👋" } },
    });
    const signed = await fetch(url, {
      method: "POST",
      headers: await signWebhook({ body, secret: "serve-secret" }),
      body,
    });
    deepStrictEqual([signed.status, await signed.json()], [200, { ok: true }]);
    const unsigned = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
    });
    deepStrictEqual([unsigned.status, await unsigned.json()], [401, { ok: false, error: "Unauthorized" }]);
    let chunks = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (++chunks > 100) controller.close();
        else controller.enqueue(new Uint8Array(1024).fill(0x20));
      },
    });
    const streamed = await fetch(url, {
      method: "POST",
      headers: await signWebhook({ body: "x", secret: "serve-secret" }),
      body: stream,
    });
    strictEqual(streamed.status, 413);
    await streamed.body?.cancel();
    // (How much the server read is checked in-process; here the client's socket buffers absorb the rest.)
    const health = await fetch(`http://127.0.0.1:${server.addr.port}/gateway/webhook/health`);
    deepStrictEqual([health.status, await health.json()], [200, { ok: true, status: "ok" }]);
    strictEqual(seen.length, 1);
    strictEqual(seen[0].text, "é 👋");
  } finally {
    await server.shutdown();
    webhookProcessor().removeHandler(fn);
  }
});

async function runFixture(args: string[], env: Record<string, string> = {}): Promise<string> {
  return (await runFixtureWithStderr(args, env)).stdout;
}

async function runFixtureWithStderr(
  args: string[],
  env: Record<string, string>,
): Promise<{ stdout: string; stderr: string }> {
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--no-prompt", ...args, "tests/fixtures/webhook_env_fixture.ts"],
    cwd: ROOT,
    env,
    stdout: "piped",
    stderr: "piped",
  }).output();
  strictEqual(code, 0, new TextDecoder().decode(stderr));
  return { stdout: new TextDecoder().decode(stdout).trim(), stderr: new TextDecoder().decode(stderr) };
}

Deno.test("handleWebhook without env permission answers 503 instead of throwing or prompting", async () => {
  strictEqual(
    await runFixture(["--allow-read"], { GATEWAY_WEBHOOK_SECRET: "fixture-secret-0123456789abcdef-32" }),
    "503",
  );
  // Read from Deno.env (Deno.serve's connection info is not taken for bindings), surrounding spaces trimmed.
  strictEqual(
    await runFixture(["--allow-read", "--allow-env=GATEWAY_WEBHOOK_SECRET"], {
      GATEWAY_WEBHOOK_SECRET: "fixture-secret-0123456789abcdef-32 ",
    }),
    "200",
  );
});

Deno.test("GATEWAY_WEBHOOK_* variables that may not be read are named in one stderr line; none with the wildcard", async () => {
  const env = { GATEWAY_WEBHOOK_SECRET: "fixture-secret-0123456789abcdef-32", GATEWAY_WEBHOOK_SCHEME: "jwt" };
  const narrow = await runFixtureWithStderr(["--allow-read", "--allow-env=GATEWAY_WEBHOOK_SECRET"], env);
  // The scheme could not be read, so the default (auto) verified the fixture's hmac signature.
  strictEqual(narrow.stdout, "200");
  const unread = [
    "WEBHOOK_ENABLED",
    "WEBHOOK_ROUTE_PREFIX",
    "WEBHOOK_SIGNATURE_SCHEME",
    "WEBHOOK_SIGNATURE_HEADER",
    "WEBHOOK_SIGNATURE_TOLERANCE_SECONDS",
    "WEBHOOK_SIGNATURE_JWT_MAX_AGE_SECONDS",
    "WEBHOOK_SIGNATURE_REQUIRE_TIMESTAMP",
    "WEBHOOK_MAX_BODY_BYTES",
    "WEBHOOK_BODY_TIMEOUT_MS",
    "WEBHOOK_DEDUPE",
    "WEBHOOK_DEDUPE_WINDOW_SECONDS",
    "QUEUE_ENABLED",
  ].map((name) => `GATEWAY_${name}`).join(", ");
  deepStrictEqual(narrow.stderr.trim().split("\n"), [
    `[gateway] Webhook receiver: ${unread} cannot be read without permission, so their defaults apply; if you ` +
    'set any of them, allow them with --allow-env (e.g. --allow-env="GATEWAY_WEBHOOK_*,GATEWAY_QUEUE_*")',
  ]);
  const wide = await runFixtureWithStderr(["--allow-read", "--allow-env=GATEWAY_WEBHOOK_*,GATEWAY_QUEUE_*"], {
    ...env,
    GATEWAY_WEBHOOK_SCHEME: "hmac",
  });
  deepStrictEqual(wide, { stdout: "200", stderr: "" });
});

Deno.test("deno serve with `export default { fetch: handleWebhook }`", async () => {
  const probe = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (probe.addr as Deno.NetAddr).port;
  probe.close();
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "serve",
      "--host",
      "127.0.0.1",
      "--port",
      String(port),
      "--allow-env",
      "--allow-read",
      "tests/fixtures/webhook_serve_default.ts",
    ],
    cwd: ROOT,
    env: { GATEWAY_WEBHOOK_SECRET: "deno-serve-secret" },
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  const stderr = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  let drainStderr: Promise<void> = Promise.resolve();
  try {
    // deno serve reports where it listens on stderr: wait for that line, not for a time.
    let stderrText = "";
    while (!stderrText.includes("Listening on")) {
      const { done, value } = await stderr.read();
      if (done) throw new Error(`deno serve exited: ${stderrText}`);
      stderrText += value;
    }
    drainStderr = (async () => {
      while (!(await stderr.read()).done);
    })();
    const body = JSON.stringify({ event: "connection.update", instance: "ops", data: { state: "open" } });
    const response = await fetch(`http://127.0.0.1:${port}/gateway/webhook/ops`, {
      method: "POST",
      headers: await signWebhook({ body, secret: "deno-serve-secret" }),
      body,
    });
    deepStrictEqual([response.status, await response.json()], [200, { ok: true }]);
    let out = "";
    while (!out.includes("handled")) {
      const { done, value } = await lines.read();
      if (done) break;
      out += value;
    }
    ok(out.includes("handled CONNECTION_UPDATE for ops"), out);
  } finally {
    child.kill("SIGTERM");
    await child.status;
    await lines.cancel();
    await drainStderr.catch(() => {});
  }
});
