import { deepStrictEqual, match, rejects, strictEqual } from "node:assert/strict";
import { main } from "../../src/cli/main.ts";
import { memoryIo } from "../../src/cli/io.ts";
import { MockGatewayServer } from "../../src/testing/mod.ts";
import { runCli, tempDir } from "./cli_helpers.ts";

const KEY = "test-key";

Deno.test("cli install: writes a starter file, refuses to overwrite, then health works with it", async (t) => {
  await using mock = await MockGatewayServer.start({ apiKey: KEY, port: 0 });
  mock.addInstance("sales", { open: true });
  await using dir = await tempDir();
  const file = `${dir.path}/gateway-api.json`;

  await t.step("writes gateway-api.json from flags and prints the next steps", async () => {
    const run = await runCli("install", [
      "--server-url",
      `${mock.url}/`,
      "--api-key",
      KEY,
      "--instance",
      "sales",
    ], {
      cwd: dir.path,
    });
    strictEqual(run.stderr, "");
    strictEqual(run.code, 0);
    const written = JSON.parse(await Deno.readTextFile(file));
    match(written.webhook.secret, /^[0-9a-f]{64}$/);
    deepStrictEqual({ ...written, webhook: { ...written.webhook, secret: "x" } }, {
      server_url: mock.url,
      api_key: KEY,
      instance: "sales",
      webhook: { route_prefix: "gateway/webhook", secret: "x", signature: { scheme: "jwt" } },
      queue: { enabled: false },
      kv: { path: "gateway.kv" },
    });
    strictEqual((await Deno.stat(file)).mode! & 0o777, 0o600);
    const lines = run.stdout.split("\n");
    strictEqual(lines[0], `Wrote gateway-api.json (server ${mock.url}, instance "sales").`);
    strictEqual(lines[2], "Next steps:");
    strictEqual(lines[3], "  1. Check the server and key: deno task health");
    strictEqual(
      lines[4],
      "  2. Create the instance on the server, then pair it with a phone: " +
        "deno task create sales && deno task connect sales",
    );
    strictEqual(lines[5], "  3. Run the webhook receiver: deno task serve");
    match(
      lines[6],
      /^ {2}4\. Set the instance's webhook on the gateway server to <your public URL>\/gateway\/webhook\/sales with headers \{"jwt_key": "<webhook\.secret from gateway-api\.json>"\}/,
    );
    // The secret itself is never printed.
    strictEqual(run.stdout.includes(written.webhook.secret), false);
  });

  await t.step("the written file is a working configuration", async () => {
    const run = await runCli("health", [], { cwd: dir.path });
    strictEqual(run.code, 0, run.stdout + run.stderr);
  });

  await t.step("refuses to overwrite without --force (exit 1), replaces with it", async () => {
    const before = await Deno.readTextFile(file);
    const refused = await runCli("install", ["--api-key", "other"], { cwd: dir.path });
    strictEqual(refused.code, 1);
    strictEqual(refused.stdout, "");
    strictEqual(
      refused.stderr,
      'error: Cannot install: "gateway-api.json" already exists (use --force to replace it)\n',
    );
    strictEqual(await Deno.readTextFile(file), before);

    const forced = await runCli("install", [
      "--force",
      "--json",
      "--public-url",
      "https://hooks.example.com/",
    ], {
      cwd: dir.path,
    });
    strictEqual(forced.code, 0, forced.stderr);
    const report = JSON.parse(forced.stdout);
    deepStrictEqual({ ...report, nextSteps: report.nextSteps.length }, {
      path: "gateway-api.json",
      overwritten: true,
      serverUrl: "http://localhost:8080",
      apiKeyWritten: false,
      instance: null,
      webhookUrl: "https://hooks.example.com/gateway/webhook/<instance>",
      webhookConfigured: false,
      nextSteps: 6,
    });
    strictEqual(
      report.nextSteps[0],
      "Set GATEWAY_API_KEY in the environment (no api key was written to the file).",
    );
    const written = JSON.parse(await Deno.readTextFile(file));
    strictEqual(written.api_key, undefined);
    strictEqual(written.server_url, "http://localhost:8080");
  });

  await t.step("--secure-webhook configures the instance's webhook with the written secret", async () => {
    const run = await runCli("install", [
      "--force",
      "--server-url",
      mock.url,
      "--api-key",
      KEY,
      "--instance",
      "sales",
      "--public-url",
      "https://hooks.example.com",
      "--secure-webhook",
      "--json",
    ], { cwd: dir.path });
    strictEqual(run.code, 0, run.stderr);
    const report = JSON.parse(run.stdout);
    strictEqual(report.webhookConfigured, true);
    strictEqual(
      report.nextSteps[3],
      "The instance's webhook on the gateway server now posts to " +
        "https://hooks.example.com/gateway/webhook/sales, signed with webhook.secret (jwt), for events " +
        '["MESSAGES_UPSERT","MESSAGES_UPDATE","CONNECTION_UPDATE","QRCODE_UPDATED"].',
    );
    const written = JSON.parse(await Deno.readTextFile(file));
    const row = await (await fetch(`${mock.url}/webhook/find/sales`, { headers: { apikey: KEY } })).json();
    deepStrictEqual([row.url, row.headers, row.enabled], [
      "https://hooks.example.com/gateway/webhook/sales",
      { jwt_key: written.webhook.secret },
      true,
    ]);
    strictEqual(run.stdout.includes(written.webhook.secret), false);
    const missing = await runCli("install", ["--force", "--secure-webhook"], { cwd: dir.path });
    strictEqual(missing.code, 2);
    strictEqual(
      missing.stderr,
      'error: Cannot parse arguments: --secure-webhook needs --api-key, --instance and --public-url (see "install --help")\n',
    );
  });

  await t.step("bad flags: exit 2", async () => {
    const badUrl = await runCli("install", ["--force", "--server-url", "localhost:8080"], { cwd: dir.path });
    strictEqual(badUrl.code, 2);
    strictEqual(
      badUrl.stderr,
      'error: Cannot parse arguments: "--server-url" must use http or https, got "localhost:8080" (see "install --help")\n',
    );
    const unknown = await runCli("install", ["--overwrite"], { cwd: dir.path });
    strictEqual(unknown.code, 2);
    strictEqual(
      unknown.stderr,
      'error: Cannot parse arguments: Unknown option "--overwrite" (see "install --help")\n',
    );
  });

  // A path the task's permissions do not cover: cli_smoke_test.ts (spawned with the task's flags).
});

Deno.test("cli install: prompts for missing values on a terminal", async () => {
  await using dir = await tempDir();
  const path = `${dir.path}/prompted.json`;
  const io = memoryIo({ terminal: true, answers: ["https://gw.example.com", "", "support"] });
  const code = await main(["install", "--config", path], io);
  strictEqual(io.err(), "");
  strictEqual(code, 0);
  const out = io.out();
  strictEqual(
    out.split("\n")[0],
    "Gateway server URL [http://localhost:8080]: API key (empty: provide GATEWAY_API_KEY at run time): " +
      `Default instance (empty: none): Wrote ${path} (server https://gw.example.com, instance "support").`,
  );
  const written = JSON.parse(await Deno.readTextFile(path));
  deepStrictEqual([written.server_url, written.api_key, written.instance], [
    "https://gw.example.com",
    undefined,
    "support",
  ]);
});

Deno.test("cli install: --force never writes through a symbolic link, and replaces a file whole", async () => {
  await using dir = await tempDir();
  const file = `${dir.path}/gateway-api.json`;
  const target = `${dir.path}/elsewhere.txt`;
  await Deno.writeTextFile(target, "keep me\n");
  await Deno.symlink(target, file);
  const refused = await runCli("install", ["--force", "--api-key", KEY], { cwd: dir.path });
  strictEqual(refused.code, 1);
  strictEqual(
    refused.stderr,
    'error: Cannot install: "gateway-api.json" is a symbolic link, and install never writes through one ' +
      "(remove the link, or pass --config with the path of the file it points to)\n",
  );
  strictEqual(await Deno.readTextFile(target), "keep me\n");
  strictEqual((await Deno.lstat(file)).isSymlink, true);
  // A dangling link is refused too: writing would create the file it names.
  await Deno.remove(target);
  strictEqual((await runCli("install", ["--force"], { cwd: dir.path })).code, 1);
  await rejects(Deno.lstat(target), Deno.errors.NotFound);

  // A regular file is replaced by a new one (written beside it, then renamed over it), mode 0600.
  await Deno.remove(file);
  await Deno.writeTextFile(file, "{}\n", { mode: 0o644 });
  await Deno.chmod(file, 0o644);
  const forced = await runCli("install", ["--force", "--api-key", KEY], { cwd: dir.path });
  strictEqual(forced.code, 0, forced.stderr);
  strictEqual(JSON.parse(await Deno.readTextFile(file)).api_key, KEY);
  strictEqual((await Deno.stat(file)).mode! & 0o777, 0o600);
  const names = [];
  for await (const entry of Deno.readDir(dir.path)) names.push(entry.name);
  deepStrictEqual(names, ["gateway-api.json"]);

  // Something that is not a file (a directory here) is never replaced.
  await Deno.remove(file);
  await Deno.mkdir(file);
  const notFile = await runCli("install", ["--force"], { cwd: dir.path });
  strictEqual(notFile.code, 1);
  strictEqual(
    notFile.stderr,
    'error: Cannot install: "gateway-api.json" is not a regular file, and install replaces only a file\n',
  );
});
