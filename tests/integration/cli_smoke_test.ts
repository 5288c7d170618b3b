// Spawned smoke tests of what only a real process shows: the `create` task's permissions, `--config` with
// another file under a task's permissions, and the documented line that runs the CLI from the package in a
// project without deno.json tasks.
import { deepStrictEqual, ok, strictEqual } from "node:assert/strict";
import { PACKAGE_COMMAND } from "../../src/cli/main.ts";
import { MockGatewayServer } from "../../src/testing/mod.ts";
import { type CliRun, MAIN, runCli, tempDir, writeConfig } from "./cli_helpers.ts";

const KEY = "test-key";
const ROOT = new URL("../../", import.meta.url);

Deno.test("deno task create: creates the instance with the task's permissions, and is safe to run again", async () => {
  await using dir = await tempDir();
  await using mock = await MockGatewayServer.start({ apiKey: KEY });
  const env = { GATEWAY_API_URL: mock.url, GATEWAY_API_KEY: KEY };
  const first = await runCli("create", ["sales"], { cwd: dir.path, env });
  deepStrictEqual([first.code, first.stderr], [0, ""]);
  strictEqual(
    first.stdout.split("\n")[0],
    'Created instance "sales" on connection "default" (state "close").',
  );
  const again = await runCli("create", ["sales", "--json"], { cwd: dir.path, env });
  deepStrictEqual([again.code, JSON.parse(again.stdout).created], [0, false]);
});

Deno.test("deno task health --config other.json: a file in the project works; one outside says how", async () => {
  await using dir = await tempDir();
  await using mock = await MockGatewayServer.start({ apiKey: KEY });
  await writeConfig(dir.path, { server_url: mock.url, api_key: KEY }, "staging.json");
  const run = await runCli("health", ["--config", "staging.json", "--json"], { cwd: dir.path });
  deepStrictEqual([run.code, run.stderr, JSON.parse(run.stdout).ok], [0, "", true]);

  const outside = await runCli("health", ["--config", "../elsewhere.json"], { cwd: dir.path });
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
