import { deepStrictEqual, match, strictEqual } from "node:assert/strict";
import { KvStore } from "../../src/backends/kv/store.ts";
import { MockGatewayServer, signWebhook } from "../../src/testing/mod.ts";
import { InstanceHealth } from "../../mod.ts";
import { cliCommand, lineReader, runCli, tempDir, writeConfig } from "./cli_helpers.ts";

const KEY = "test-key";
const SECRET = "0123456789abcdef0123456789abcdef";

/** Start `serve` on a free port; resolves with the base URL, the child, and the rest of its output. */
async function startServe(cwd: string, env: Record<string, string> = {}, args: string[] = []) {
  const child = cliCommand("serve", ["--port", "0", ...args], { cwd, env }).spawn();
  const stdout = lineReader(child.stdout);
  const stderr = (async () => {
    let text = "";
    for await (const chunk of child.stderr.pipeThrough(new TextDecoderStream())) text += chunk;
    return text;
  })();
  const url = await stdout.until((line) => /^Listening on (http:\/\/\S+)\//.exec(line)?.[1]);
  const summary = await stdout.until((line) => line.startsWith("Store: ") ? line : undefined);
  return { child, url, summary, rest: () => stdout.rest(), stderr: () => stderr };
}

Deno.test("cli serve: receives the mock server's signed webhooks, records them, stops on SIGTERM", async () => {
  await using mock = await MockGatewayServer.start({ apiKey: KEY, port: 0 });
  const sales = mock.addInstance("sales", { open: true });
  await using dir = await tempDir();
  await writeConfig(dir.path, {
    server_url: mock.url,
    api_key: KEY,
    instance: "sales",
    webhook: { secret: SECRET, signature: { scheme: "jwt" } },
    tasks: { prune: { schedule: "0 4 * * *", days: 10 }, retry_failed: false },
  });
  const serve = await startServe(dir.path);
  strictEqual(
    serve.summary,
    "Store: gateway.kv; queue: off; tasks: gateway-prune (0 4 * * *), gateway-reconcile-sends (*/10 * * * *)",
  );

  // The gateway server signs with a JWT made from `jwt_key` in the instance's webhook headers.
  const set = await fetch(`${mock.url}/webhook/set/sales`, {
    method: "POST",
    headers: { apikey: KEY, "content-type": "application/json" },
    body: JSON.stringify({
      webhook: {
        enabled: true,
        url: `${serve.url}/gateway/webhook/sales`,
        headers: { jwt_key: SECRET },
        events: ["MESSAGES_UPSERT", "CONNECTION_UPDATE"],
      },
    }),
  });
  strictEqual(set.status, 201);
  await set.body?.cancel();
  const message = mock.simulateInboundMessage("sales", { from: "5511999999999", text: "Hi there" });
  await mock.webhooksIdle();
  // WhatsApp bans the number: the connection.update feeds the health senders share through the KV file.
  mock.simulateDisconnect("sales", 403);
  await mock.webhooksIdle();
  deepStrictEqual(mock.deliveries.map((d) => [d.event, d.status, d.state]), [
    ["messages.upsert", 200, "delivered"],
    ["connection.update", 200, "delivered"],
  ]);

  const unsigned = await fetch(`${serve.url}/gateway/webhook/sales`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ event: "messages.upsert", instance: "sales", data: {} }),
  });
  strictEqual(unsigned.status, 401);
  await unsigned.body?.cancel();
  const health = await fetch(`${serve.url}/gateway/webhook/health`);
  deepStrictEqual([health.status, await health.json()], [200, { ok: true, status: "ok" }]);

  serve.child.kill("SIGTERM");
  const { code } = await serve.child.status;
  // The unsigned request's 401 is the one line on stderr (one per cause per minute).
  strictEqual(
    await serve.stderr(),
    '[gateway] Webhook refused (401 missing_signature): expected scheme "jwt" (authorization: Bearer <JWT>); ' +
      'signature headers received: none; Cannot verify webhook: header "authorization" is missing\n',
  );
  strictEqual(code, 0);
  strictEqual(await serve.rest(), "Shutting down: finishing requests in flight\nStopped\n");

  const kv = await Deno.openKv(`${dir.path}/gateway.kv`);
  try {
    const store = new KvStore(kv);
    const id = (message.key as { id: string }).id;
    const inbound = await store.getInbound("sales", id);
    deepStrictEqual([inbound?.instance, inbound?.text], ["sales", "Hi there"]);
    const logs = await store.listWebhookLogs({ status: "processed" });
    deepStrictEqual(logs.map((log) => [log.event, log.instance]).sort(), [
      ["CONNECTION_UPDATE", "sales"],
      ["MESSAGES_UPSERT", "sales"],
    ]);
    const health = await new InstanceHealth(store.state).get({ connection: "default", instance: "sales" });
    deepStrictEqual([health.status, health.breaker, health.reason?.name], ["banned", "open", "forbidden"]);
  } finally {
    kv.close();
  }
  strictEqual(sales.name, "sales");
});

/** Poll the serve process's KV file until `read` returns a value (the worker runs in the other process). */
async function untilStored<T>(path: string, read: (store: KvStore) => Promise<T | undefined>): Promise<T> {
  const kv = await Deno.openKv(path);
  try {
    const store = new KvStore(kv);
    for (let attempt = 0; attempt < 500; attempt++) {
      const value = await read(store);
      if (value !== undefined) return value;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    throw new Error("the queued webhook was not processed within 10 s");
  } finally {
    kv.close();
  }
}

Deno.test("cli serve: queue mode answers 202; bad settings exit 2", async (t) => {
  await using dir = await tempDir();
  await writeConfig(dir.path, { webhook: { secret: SECRET } });

  await t.step(
    "GATEWAY_WEBHOOK_QUEUE=true: 202, the worker processes the job, clean shutdown; no retry task",
    async () => {
      const serve = await startServe(dir.path, { GATEWAY_WEBHOOK_QUEUE: "true" });
      strictEqual(serve.summary, "Store: gateway.kv; queue: on; tasks: gateway-prune (0 3 * * *)");
      const body = JSON.stringify({
        event: "messages.upsert",
        instance: "sales",
        data: {
          key: { remoteJid: "5511988887777@s.whatsapp.net", fromMe: false, id: "QUEUED1" },
          message: { conversation: "from the queue" },
          messageType: "conversation",
          messageTimestamp: 1760000000,
        },
      });
      const response = await fetch(`${serve.url}/gateway/webhook/sales`, {
        method: "POST",
        headers: await signWebhook({ body, secret: SECRET }),
        body,
      });
      deepStrictEqual([response.status, await response.json()], [202, { ok: true, queued: true }]);
      // Answered before processing: the worker stores the message and marks the log processed afterwards.
      const inbound = await untilStored(`${dir.path}/gateway.kv`, async (store) => {
        const processed = await store.listWebhookLogs({ status: "processed" });
        return processed.length === 1 ? await store.getInbound("sales", "QUEUED1") ?? undefined : undefined;
      });
      deepStrictEqual(
        [inbound.instance, inbound.sender, inbound.text, inbound.timestamp],
        ["sales", "5511988887777@s.whatsapp.net", "from the queue", 1760000000000],
      );
      serve.child.kill("SIGINT");
      strictEqual((await serve.child.status).code, 0);
      match(await serve.rest(), /Stopped\n$/);
      strictEqual(await serve.stderr(), "");
    },
  );

  await t.step("--no-tasks, and bad settings", async () => {
    const badPort = await runCli("serve", ["--port", "70000"], { cwd: dir.path });
    strictEqual(badPort.code, 2);
    strictEqual(
      badPort.stderr,
      'error: Cannot parse arguments: "--port" must be at most 65535, got "70000"\n',
    );
    const badScheme = await runCli("serve", ["--port", "0"], {
      cwd: dir.path,
      env: { GATEWAY_WEBHOOK_SCHEME: "md5" },
    });
    strictEqual(badScheme.code, 2);
    match(badScheme.stderr, /^error: [^\n]*md5[^\n]*\n$/);
    await writeConfig(dir.path, {
      webhook: { secret: SECRET },
      tasks: { prune: { schedule: "not a cron" } },
    });
    const badCron = await runCli("serve", ["--port", "0"], { cwd: dir.path });
    strictEqual(badCron.code, 2);
    match(badCron.stderr, /^error: Cannot schedule tasks: [^\n]+\n$/);
    const serve = await startServe(dir.path, {}, ["--no-tasks"]);
    strictEqual(serve.summary, "Store: gateway.kv; queue: off; tasks: off");
    serve.child.kill("SIGTERM");
    strictEqual((await serve.child.status).code, 0);
    await serve.rest();
    strictEqual(await serve.stderr(), "");
  });
});

Deno.test("cli serve: no usable webhook secret is said at startup, before any webhook", async (t) => {
  await using dir = await tempDir();
  const hint =
    "If you set GATEWAY_WEBHOOK_SECRET in this shell, export it (export GATEWAY_WEBHOOK_SECRET=...): " +
    "a shell variable that is not exported does not reach the process.";
  const cases: Array<[string, Record<string, string>, string]> = [
    [
      "unset",
      {},
      "warning: no webhook secret is set: set GATEWAY_WEBHOOK_SECRET, or webhook.secret in gateway-api.json " +
      "(deno task install writes one); until then every webhook is answered 503 and the server retries it. " +
      hint,
    ],
    [
      "empty",
      { GATEWAY_WEBHOOK_SECRET: " " },
      "warning: the webhook secret is empty: set GATEWAY_WEBHOOK_SECRET, or webhook.secret in " +
      "gateway-api.json (deno task install writes one); until then every webhook is answered 503 and the " +
      "server retries it.",
    ],
  ];
  for (const [name, env, line] of cases) {
    await t.step(name, async () => {
      await writeConfig(dir.path, { tasks: { prune: false } });
      const serve = await startServe(dir.path, env);
      serve.child.kill("SIGTERM");
      strictEqual((await serve.child.status).code, 0);
      await serve.rest();
      // The line comes before "Listening on": no webhook was needed to see it.
      strictEqual(await serve.stderr(), `${line}\n`);
    });
  }
  await t.step("a secret, or the scheme none, says nothing", async () => {
    await writeConfig(dir.path, { webhook: { signature: { scheme: "none" } }, tasks: { prune: false } });
    const none = await startServe(dir.path);
    none.child.kill("SIGTERM");
    await none.child.status;
    await none.rest();
    strictEqual(await none.stderr(), "");
    await writeConfig(dir.path, { tasks: { prune: false } });
    const set = await startServe(dir.path, { GATEWAY_WEBHOOK_SECRET: SECRET });
    set.child.kill("SIGTERM");
    await set.child.status;
    await set.rest();
    strictEqual(await set.stderr(), "");
  });
});
