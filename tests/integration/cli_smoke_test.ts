// One spawned run per CLI command with exactly its deno.json task's permission flags: proves that the
// flags are enough for the command's ordinary work (config file, KV file, network, environment). Everything
// else about the commands runs in-process (runCli) in the other cli_* files; `connect` and `serve` are
// spawned in cli_instances_test.ts and cli_serve_test.ts, which also need a real process (signals, a
// live standard output).
import { deepStrictEqual, match, strictEqual } from "node:assert/strict";
import { KvStore } from "../../src/store/kv.ts";
import { MockGatewayServer } from "../../src/testing/mod.ts";
import { spawnCli, tempDir } from "./cli_helpers.ts";

const KEY = "test-key";

Deno.test("cli smoke: every command runs with its task's permission flags", async (t) => {
  await using mock = await MockGatewayServer.start({ apiKey: KEY, port: 0 });
  mock.addInstance("sales", { open: true, number: "5511988887777" });
  const now = Math.floor(Date.now() / 1000);
  mock.simulateInboundMessage("sales", {
    from: "5511999990001",
    text: "missed",
    id: "M1",
    timestamp: now - 60,
  });
  await using dir = await tempDir();
  const cwd = dir.path;

  await t.step("install writes gateway-api.json", async () => {
    const run = await spawnCli(
      "install",
      ["--server-url", mock.url, "--api-key", KEY, "--instance", "sales"],
      {
        cwd,
      },
    );
    strictEqual(run.code, 0, run.stderr);
    strictEqual(run.stdout.split("\n")[0], `Wrote gateway-api.json (server ${mock.url}, instance "sales").`);
    strictEqual(JSON.parse(await Deno.readTextFile(`${cwd}/gateway-api.json`)).server_url, mock.url);
  });

  await t.step("health reads it and reaches the server", async () => {
    const run = await spawnCli("health", [], { cwd });
    strictEqual(run.code, 0, run.stderr);
    strictEqual(run.stdout.trimEnd().split("\n").at(-1), "1 connection healthy");
  });

  await t.step("status lists the instance", async () => {
    const run = await spawnCli("status", ["sales"], { cwd });
    strictEqual(run.code, 0, run.stderr);
    deepStrictEqual(run.stdout.trimEnd().split("\n")[1].split(/\s{2,}/).slice(0, 2), ["sales", "open"]);
  });

  await t.step("send reads its file, sends, and records in gateway.kv", async () => {
    await Deno.writeTextFile(
      `${cwd}/items.jsonl`,
      JSON.stringify({ idempotencyKey: "smoke-1", to: "5511900000001", text: "smoke" }) + "\n",
    );
    const run = await spawnCli("send", [
      "items.jsonl",
      "--min-gap",
      "0",
      "--jitter",
      "0",
      "--no-typing",
      "--json",
    ], { cwd });
    strictEqual(run.code, 0, run.stderr);
    deepStrictEqual([JSON.parse(run.stdout).sent, mock.sentMessages.map((m) => m.text)], [1, ["smoke"]]);
  });

  await t.step("prune, retry-failed and reconcile-sends open gateway.kv", async () => {
    const prune = await spawnCli("prune", ["--dry-run", "--json"], { cwd });
    strictEqual(prune.code, 0, prune.stderr);
    strictEqual(JSON.parse(prune.stdout).total, 0);
    const retry = await spawnCli("retry-failed", ["--dry-run", "--json"], { cwd });
    strictEqual(retry.code, 0, retry.stderr);
    strictEqual(JSON.parse(retry.stdout).attempted, 0);
    const settle = await spawnCli("reconcile-sends", ["--dry-run", "--json"], { cwd });
    strictEqual(settle.code, 0, settle.stderr);
    deepStrictEqual(JSON.parse(settle.stdout).results, []);
  });

  await t.step("reconcile stores the inbound message the receiver never got", async () => {
    const run = await spawnCli("reconcile", ["--json"], { cwd });
    strictEqual(run.code, 0, run.stderr);
    deepStrictEqual([JSON.parse(run.stdout).seen, JSON.parse(run.stdout).recovered], [1, 1]);
    const kv = await Deno.openKv(`${cwd}/gateway.kv`);
    try {
      strictEqual((await new KvStore(kv).getInbound("sales", "M1"))?.text, "missed");
    } finally {
      kv.close();
    }
  });
});

Deno.test("cli smoke: a path the task's permissions do not cover is exit 2 with a hint", async (t) => {
  await using dir = await tempDir();
  const hint = "(the task's permissions do not allow it; see docs/cli.md)";

  await t.step("install --config other.json", async () => {
    const run = await spawnCli("install", ["--config", "other.json"], { cwd: dir.path });
    strictEqual(run.code, 2);
    match(
      run.stderr,
      /^error: .*other\.json.*\(the task's permissions do not allow it; see docs\/cli\.md\)\n$/,
    );
  });

  await t.step("prune with GATEWAY_KV_PATH=other.kv", async () => {
    await Deno.writeTextFile(
      `${dir.path}/gateway-api.json`,
      JSON.stringify({ server_url: "http://127.0.0.1:9", api_key: KEY }),
    );
    const run = await spawnCli("prune", [], { cwd: dir.path, env: { GATEWAY_KV_PATH: "other.kv" } });
    strictEqual(run.code, 2);
    strictEqual(
      run.stderr,
      `error: Requires read access to "other.kv", run again with the --allow-read flag ${hint}\n`,
    );
  });
});
