import { deepStrictEqual, match, strictEqual } from "node:assert/strict";
import { MockGatewayServer } from "../../src/testing/mod.ts";
import { closedPort, runCli, tempDir, writeConfig } from "./cli_helpers.ts";

const KEY = "test-key";

/** latencyMs varies: check it is a whole number, then pin it for exact comparisons. */
function pinLatency(report: { connections: { latencyMs: number | null }[] }): void {
  for (const item of report.connections) {
    if (item.latencyMs !== null) {
      strictEqual(Number.isInteger(item.latencyMs) && item.latencyMs >= 0, true);
      item.latencyMs = 0;
    }
  }
}

Deno.test("cli health: healthy, unreachable and refused connections, table and --json", async (t) => {
  await using mock = await MockGatewayServer.start({ apiKey: KEY, port: 0 });
  mock.addInstance("sales", { open: true });
  mock.addInstance("support");
  await using dir = await tempDir();
  const down = `http://127.0.0.1:${closedPort()}`;

  await t.step("one healthy connection: exit 0, table", async () => {
    await writeConfig(dir.path, { server_url: mock.url, api_key: KEY, instance: "sales" });
    const run = await runCli("health", [], { cwd: dir.path });
    strictEqual(run.stderr, "");
    strictEqual(run.code, 0);
    const lines = run.stdout.trimEnd().split("\n");
    match(lines[0], /^CONNECTION\s+SERVER\s+REACHABLE\s+VERSION\s+LATENCY\s+KEY\s+INSTANCES\s+RESULT$/);
    match(
      lines[1],
      new RegExp(
        `^default\\s+${mock.url}\\s+yes\\s+2\\.3\\.6\\s+\\d+ ms\\s+accepted\\s+sales \\(open\\), support \\(close, closed, breaker open\\)\\s+ok$`,
      ),
    );
    strictEqual(lines[2], "1 connection healthy");
    strictEqual(lines.length, 3);
  });

  await t.step("--json shape of a healthy connection", async () => {
    const run = await runCli("health", ["--json"], { cwd: dir.path });
    strictEqual(run.code, 0);
    const report = JSON.parse(run.stdout);
    pinLatency(report);
    deepStrictEqual(report, {
      ok: true,
      connections: [{
        name: "default",
        serverUrl: mock.url,
        ok: true,
        reachable: true,
        version: "2.3.6",
        latencyMs: 0,
        authorized: true,
        instance: "sales",
        instances: [
          { name: "sales", state: "open", health: "open", breaker: "closed", reason: null },
          { name: "support", state: "close", health: "closed", breaker: "open", reason: null },
        ],
        error: null,
      }],
    });
  });

  await t.step("an unreachable and a refused connection: exit 1, every connection reported", async () => {
    await writeConfig(dir.path, {
      default: "main",
      connections: {
        main: { server_url: mock.url, api_key: KEY },
        down: { server_url: down, api_key: KEY },
        wrong: { server_url: mock.url, api_key: "wrong-key" },
      },
    });
    const run = await runCli("health", ["--json"], { cwd: dir.path });
    strictEqual(run.code, 1);
    strictEqual(run.stderr, "");
    const report = JSON.parse(run.stdout);
    pinLatency(report);
    strictEqual(report.ok, false);
    deepStrictEqual(report.connections.map((c: { name: string; ok: boolean }) => [c.name, c.ok]), [
      ["main", true],
      ["down", false],
      ["wrong", false],
    ]);
    const [, unreachable, refused] = report.connections;
    match(unreachable.error, /^Cannot reach gateway server for GET \/: /);
    deepStrictEqual({ ...unreachable, error: null }, {
      name: "down",
      serverUrl: down,
      ok: false,
      reachable: false,
      version: null,
      latencyMs: null,
      authorized: null,
      instance: null,
      instances: [],
      error: null,
    });
    deepStrictEqual(refused, {
      name: "wrong",
      serverUrl: mock.url,
      ok: false,
      reachable: true,
      version: "2.3.6",
      latencyMs: 0,
      authorized: false,
      instance: null,
      instances: [],
      error: "api key was refused: Gateway refused GET /instance/fetchInstances (401): Unauthorized",
    });

    const text = await runCli("health", [], { cwd: dir.path });
    strictEqual(text.code, 1);
    const lines = text.stdout.trimEnd().split("\n");
    match(lines[2], /^down\s+http:\/\/127\.0\.0\.1:\d+\s+no\s+-\s+-\s+-\s+-\s+FAILED$/);
    match(lines[3], /^wrong\s+\S+\s+yes\s+2\.3\.6\s+\d+ ms\s+refused\s+-\s+FAILED$/);
    match(lines[4], /^down: Cannot reach gateway server for GET \/: /);
    strictEqual(lines[5], `wrong: ${refused.error}`);
    strictEqual(lines[6], "2 of 3 connections failed");
  });

  await t.step("--connection checks only the one named; an unknown name is bad usage", async () => {
    const run = await runCli("health", ["--connection", "main", "--json"], { cwd: dir.path });
    strictEqual(run.code, 0);
    deepStrictEqual(JSON.parse(run.stdout).connections.map((c: { name: string }) => c.name), ["main"]);
    const unknown = await runCli("health", ["--connection", "nope"], { cwd: dir.path });
    strictEqual(unknown.code, 2);
    strictEqual(unknown.stdout, "");
    strictEqual(unknown.stderr, 'error: Unknown connection "nope" (configured: "main", "down", "wrong")\n');
  });

  await t.step("a default instance that does not exist fails the check", async () => {
    await writeConfig(dir.path, { server_url: mock.url, api_key: KEY, instance: "ghost" });
    const run = await runCli("health", ["--json"], { cwd: dir.path });
    strictEqual(run.code, 1);
    const [item] = JSON.parse(run.stdout).connections;
    strictEqual(item.authorized, true);
    strictEqual(
      item.error,
      'instance "ghost" does not exist on the server (create it: deno task create ghost)',
    );
  });

  await t.step("an instance token is accepted through the instance's own routes", async () => {
    const token = mock.instance("sales")!.token;
    await writeConfig(dir.path, { server_url: mock.url, api_key: token, instance: "sales" });
    const run = await runCli("health", ["--json"], { cwd: dir.path });
    strictEqual(run.code, 0, run.stdout + run.stderr);
    const [item] = JSON.parse(run.stdout).connections;
    strictEqual(item.authorized, true);
    deepStrictEqual(item.instances.filter((i: { name: string }) => i.name === "sales"), [{
      name: "sales",
      state: "open",
      health: "open",
      breaker: "closed",
      reason: null,
    }]);
  });
});

Deno.test("cli health: configuration from the environment, missing configuration, bad flags", async (t) => {
  await using mock = await MockGatewayServer.start({ apiKey: KEY, port: 0 });
  await using dir = await tempDir();

  await t.step("GATEWAY_API_URL and GATEWAY_API_KEY without a file", async () => {
    const run = await runCli("health", ["--json"], {
      cwd: dir.path,
      env: { GATEWAY_API_URL: mock.url, GATEWAY_API_KEY: KEY },
    });
    strictEqual(run.code, 0, run.stderr);
    deepStrictEqual(JSON.parse(run.stdout).connections[0].instances, []);
  });

  await t.step("the environment overrides the file", async () => {
    await writeConfig(dir.path, { server_url: mock.url, api_key: "wrong-key" });
    const refused = await runCli("health", [], { cwd: dir.path });
    strictEqual(refused.code, 1);
    const run = await runCli("health", [], { cwd: dir.path, env: { GATEWAY_API_KEY: KEY } });
    strictEqual(run.code, 0);
    await Deno.remove(`${dir.path}/gateway-api.json`);
  });

  await t.step("no file and no environment: exit 2, one line", async () => {
    const run = await runCli("health", [], { cwd: dir.path });
    strictEqual(run.code, 2);
    strictEqual(run.stdout, "");
    strictEqual(
      run.stderr,
      'error: Cannot configure gateway: no "gateway-api.json" found and GATEWAY_API_URL is not set ' +
        '(run the "install" command to create one)\n',
    );
  });

  await t.step("--config naming a missing file, and a file that is not JSON", async () => {
    const missing = await runCli("health", ["--config", "gateway-api.json"], { cwd: dir.path });
    strictEqual(missing.code, 2);
    strictEqual(missing.stderr, 'error: Cannot read configuration: "gateway-api.json" does not exist\n');
    await Deno.writeTextFile(`${dir.path}/gateway-api.json`, "{ not json");
    const broken = await runCli("health", [], { cwd: dir.path });
    strictEqual(broken.code, 2);
    match(
      broken.stderr,
      /^error: Cannot parse configuration file "gateway-api.json": Expected property name or '}' at line 1, column 3\n$/,
    );
    await writeConfig(dir.path, { server_url: "ftp://example.com", api_key: KEY });
    const invalid = await runCli("health", [], { cwd: dir.path });
    strictEqual(invalid.code, 2);
    match(invalid.stderr, /^error: .*"server_url" must use http or https, got "ftp"\n$/);
    await Deno.remove(`${dir.path}/gateway-api.json`);
  });

  await t.step("bad flags: exit 2 with one line, no stack trace", async () => {
    const unknown = await runCli("health", ["--bogus"], { cwd: dir.path });
    strictEqual(unknown.code, 2);
    strictEqual(
      unknown.stderr,
      'error: Cannot parse arguments: Unknown option "--bogus" (see "health --help")\n',
    );
    const bad = await runCli("health", ["--timeout", "soon"], { cwd: dir.path });
    strictEqual(bad.code, 2);
    strictEqual(
      bad.stderr,
      'error: Cannot parse arguments: "--timeout" must be a positive integer, got "soon" (see "health --help")\n',
    );
    const extra = await runCli("health", ["extra"], { cwd: dir.path });
    strictEqual(extra.code, 2);
    strictEqual(
      extra.stderr,
      'error: Cannot parse arguments: unexpected argument "extra" (see "health --help")\n',
    );
  });

  await t.step("--verbose adds the stack trace", async () => {
    const run = await runCli("health", ["--verbose"], { cwd: dir.path });
    strictEqual(run.code, 2);
    match(run.stderr, /^error: CliError: Cannot configure gateway: .*\n\s+at /);
  });

  await t.step("--help: exit 0, usage on stdout", async () => {
    const run = await runCli("health", ["--help"], { cwd: dir.path });
    strictEqual(run.code, 0);
    match(run.stdout, /^Usage: deno task health \[--connection <name>\]/);
    match(run.stdout, /Exit codes: 0 ok, 1 a check failed, 2 bad usage or configuration\.\n$/);
  });
});
