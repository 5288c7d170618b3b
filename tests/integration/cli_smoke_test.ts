// Spawned smoke tests of what only a real process shows. One run per CLI command with exactly its deno.json
// task's permission flags (the flags are enough for the command's ordinary work: configuration file, KV
// file, network, environment), paths the flags do not cover, `--config` with another file under a task's
// permissions, and the documented line that runs the CLI from the package in a project without deno.json
// tasks. Everything else about the commands runs in-process (runCli) in the other cli_* files; `connect`
// and `serve` are also spawned in cli_instances_test.ts and cli_serve_test.ts (a live standard output,
// signals).
import { deepStrictEqual, match, ok, strictEqual } from "node:assert/strict";
import { KvStore } from "../../src/backends/kv/store.ts";
import { PACKAGE_COMMAND } from "../../src/cli/main.ts";
import { MockGatewayServer } from "../../src/testing/mod.ts";
import { type CliRun, MAIN, spawnCli, tempDir, writeConfig } from "./cli_helpers.ts";

const KEY = "test-key";
const ROOT = new URL("../../", import.meta.url);

Deno.test("deno task create: creates the instance with the task's permissions, and is safe to run again", async () => {
  await using dir = await tempDir();
  await using mock = await MockGatewayServer.start({ apiKey: KEY });
  const env = { GATEWAY_API_URL: mock.url, GATEWAY_API_KEY: KEY };
  const first = await spawnCli("create", ["sales"], { cwd: dir.path, env });
  deepStrictEqual([first.code, first.stderr], [0, ""]);
  strictEqual(
    first.stdout.split("\n")[0],
    'Created instance "sales" on connection "default" (state "close").',
  );
  const again = await spawnCli("create", ["sales", "--json"], { cwd: dir.path, env });
  deepStrictEqual([again.code, JSON.parse(again.stdout).created], [0, false]);
});

Deno.test("deno task health --config other.json: a file in the project works; one outside says how", async () => {
  await using dir = await tempDir();
  await using mock = await MockGatewayServer.start({ apiKey: KEY });
  await writeConfig(dir.path, { server_url: mock.url, api_key: KEY }, "staging.json");
  const run = await spawnCli("health", ["--config", "staging.json", "--json"], { cwd: dir.path });
  deepStrictEqual([run.code, run.stderr, JSON.parse(run.stdout).ok], [0, "", true]);

  const outside = await spawnCli("health", ["--config", "../elsewhere.json"], { cwd: dir.path });
  strictEqual(outside.code, 2);
  strictEqual(
    outside.stderr,
    'error: Cannot read configuration "../elsewhere.json": not allowed by --allow-read (the deno tasks read ' +
      'files in the project directory only; for a file elsewhere run "deno run" with ' +
      "--allow-read=../elsewhere.json, see docs/cli.md)\n",
  );
});

/** The flags of the line docs/cli.md gives for running the CLI from the package. */
function documentedFlags(): string[] {
  const docs = Deno.readTextFileSync(new URL("docs/cli.md", ROOT));
  const line = docs.split("\n").find((text) => text.endsWith(" jsr:@gw/gateway/cli health"));
  strictEqual(line, `${PACKAGE_COMMAND} health`, "docs/cli.md gives the package line");
  const words = PACKAGE_COMMAND.split(" ");
  deepStrictEqual(words.slice(0, 2), ["deno", "run"]);
  strictEqual(words.at(-1), "jsr:@gw/gateway/cli");
  // What the shell passes: the quotes keep `*` from being expanded.
  return words.slice(2, -1).map((word) => word.replace(/^"(.*)"$/, "$1"));
}

Deno.test("the CLI from the package: the documented flags suffice in a project without deno.json tasks", async () => {
  await using dir = await tempDir();
  await using mock = await MockGatewayServer.start({ apiKey: KEY });
  // A project with no deno.json: the package's own import map is what JSR would resolve its imports with.
  const { imports } = JSON.parse(Deno.readTextFileSync(new URL("deno.json", ROOT)));
  await Deno.writeTextFile(`${dir.path}/import_map.json`, JSON.stringify({ imports }));
  const flags = documentedFlags();
  const cli = async (args: string[], extraEnv: Record<string, string> = {}): Promise<CliRun> => {
    const env: Record<string, string> = { NO_COLOR: "1", ...extraEnv };
    for (const name of ["PATH", "HOME", "DENO_DIR", "XDG_CACHE_HOME"]) {
      const value = Deno.env.get(name);
      if (value !== undefined) env[name] = value;
    }
    const output = await new Deno.Command(Deno.execPath(), {
      // --no-prompt: a missing permission must fail the test, not wait for an answer.
      args: [
        "run",
        "--no-prompt",
        "--no-config",
        `--import-map=${dir.path}/import_map.json`,
        ...flags,
        MAIN,
        ...args,
      ],
      cwd: dir.path,
      env,
      clearEnv: true,
      stdin: "null",
    }).output();
    const text = new TextDecoder();
    return { code: output.code, stdout: text.decode(output.stdout), stderr: text.decode(output.stderr) };
  };
  ok(!dir.path.startsWith(new URL(".", ROOT).pathname), "runs outside the repository");

  // First run: install writes the configuration into the project directory, create uses it.
  const install = await cli(["install", "--server-url", mock.url, "--api-key", KEY, "--instance", "sales"]);
  deepStrictEqual([install.code, install.stderr], [0, ""]);
  const create = await cli(["create", "sales", "--json"]);
  deepStrictEqual([create.code, create.stderr, JSON.parse(create.stdout).created], [0, "", true]);
  // The GATEWAY_* variables are readable (the KV path comes from one), and the KV store works (--unstable-kv).
  const kv = await Deno.openKv(`${dir.path}/from-env.kv`);
  kv.close();
  const prune = await cli(["prune", "--dry-run", "--json"], { GATEWAY_KV_PATH: "from-env.kv" });
  deepStrictEqual([prune.code, prune.stderr], [0, ""]);
  deepStrictEqual([JSON.parse(prune.stdout).store, JSON.parse(prune.stdout).total], ["from-env.kv", 0]);
});

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

  await t.step("install --config ../other.json", async () => {
    const run = await spawnCli("install", ["--config", "../other.json"], { cwd: dir.path });
    strictEqual(run.code, 2);
    match(
      run.stderr,
      /^error: .*other\.json.*\(the task's permissions do not allow it; see docs\/cli\.md\)\n$/,
    );
  });

  await t.step("prune with GATEWAY_KV_PATH=../other.kv", async () => {
    await Deno.writeTextFile(
      `${dir.path}/gateway-api.json`,
      JSON.stringify({ server_url: "http://127.0.0.1:9", api_key: KEY }),
    );
    const run = await spawnCli("prune", [], { cwd: dir.path, env: { GATEWAY_KV_PATH: "../other.kv" } });
    strictEqual(run.code, 2);
    strictEqual(
      run.stderr,
      `error: Requires read access to "../other.kv", run again with the --allow-read flag ${hint}\n`,
    );
  });
});
