// What every command promises on the command line: a usage line that lists every flag, an unknown flag that
// points to --help, and --json that prints JSON also when the command fails.
import { deepStrictEqual, ok, strictEqual } from "node:assert/strict";
import { COMMON_FLAGS } from "../../src/cli/args.ts";
import type { CliCommand } from "../../src/cli/command.ts";
import { ConnectCommand } from "../../src/cli/connect.ts";
import { CreateCommand } from "../../src/cli/create.ts";
import { HealthCommand } from "../../src/cli/health.ts";
import { InstallCommand } from "../../src/cli/install.ts";
import { COMMAND_NAMES, main } from "../../src/cli/main.ts";
import { isolatedIo, tempDir } from "../integration/cli_helpers.ts";
import { memoryIo } from "../../src/cli/io.ts";
import { PruneCommand } from "../../src/cli/prune.ts";
import { ReconcileCommand } from "../../src/cli/reconcile.ts";
import { ReconcileSendsCommand } from "../../src/cli/reconcile_sends.ts";
import { RetryFailedCommand } from "../../src/cli/retry_failed.ts";
import { SendCommand } from "../../src/cli/send.ts";
import { ServeCommand } from "../../src/cli/serve.ts";
import { InstanceStatusCommand } from "../../src/cli/status.ts";
import { MockGatewayServer } from "../../src/testing/mod.ts";

const COMMANDS: CliCommand[] = [
  new InstallCommand(),
  new CreateCommand(),
  new HealthCommand(),
  new InstanceStatusCommand(),
  new ConnectCommand(),
  new SendCommand(),
  new PruneCommand(),
  new RetryFailedCommand(),
  new ReconcileSendsCommand(),
  new ReconcileCommand(),
  new ServeCommand(),
];

Deno.test("cli: every command's usage line and flag list name every flag it accepts", async () => {
  deepStrictEqual(COMMANDS.map((command) => command.name), [...COMMAND_NAMES]);
  for (const command of COMMANDS) {
    const io = isolatedIo();
    strictEqual(await main([command.name, "--help"], io), 0);
    const help = io.out();
    strictEqual(help, command.help);
    const usage = help.split("\n")[0];
    ok(usage.startsWith(`Usage: deno task ${command.name}`), usage);
    for (const [name, spec] of Object.entries({ ...command.flags, ...COMMON_FLAGS })) {
      const word = spec.short !== undefined && spec.type === "boolean" ? `-${spec.short}` : `--${name}`;
      ok(usage.includes(`[${word}`), `${command.name}: usage line lacks ${word}: ${usage}`);
      ok(
        new RegExp(`^  (-\\w, )?--${name}\\b`, "m").test(help),
        `${command.name}: --help does not describe --${name}`,
      );
    }
  }
});

Deno.test("cli: the command list shows each command with the summary the command itself carries", async () => {
  const io = isolatedIo();
  strictEqual(await main(["--help"], io), 0);
  for (const command of COMMANDS) {
    ok(
      new RegExp(`^  ${command.name} +${RegExp.escape(command.summary)}$`, "m").test(io.out()),
      command.name,
    );
  }
});

Deno.test("cli: an unknown flag is exit 2 with one line that points to the command's --help", async () => {
  for (const command of COMMANDS) {
    const io = isolatedIo();
    strictEqual(await main([command.name, "--bogus"], io), 2);
    strictEqual(
      io.err(),
      `error: Cannot parse arguments: Unknown option "--bogus" (see "${command.name} --help")\n`,
    );
  }
});

Deno.test("cli: status --json prints a JSON document on standard output when it fails", async () => {
  const noConfig = isolatedIo();
  strictEqual(await main(["status", "--json"], noConfig), 2);
  deepStrictEqual(JSON.parse(noConfig.out()), {
    error: {
      message: 'Cannot configure gateway: no "gateway-api.json" found and GATEWAY_API_URL is not set ' +
        '(run the "install" command to create one)',
      exitCode: 2,
    },
  });
  ok(noConfig.err().startsWith("error: Cannot configure gateway"), noConfig.err());

  const badFlag = isolatedIo();
  strictEqual(await main(["status", "--json", "--bogus"], badFlag), 2);
  deepStrictEqual(JSON.parse(badFlag.out()), {
    error: { message: 'Cannot parse arguments: Unknown option "--bogus" (see "status --help")', exitCode: 2 },
  });

  // Port 1 on the loopback refuses the connection: the server cannot be asked.
  const down = isolatedIo({ env: { GATEWAY_API_URL: "http://127.0.0.1:1", GATEWAY_API_KEY: "key" } });
  strictEqual(await main(["status", "--json", "--timeout", "2000"], down), 1);
  const report = JSON.parse(down.out());
  deepStrictEqual(Object.keys(report), ["error"]);
  strictEqual(report.error.exitCode, 1);
  ok(report.error.message.startsWith("Cannot reach gateway server for GET /instance/fetchInstances"), report);
  ok(!down.out().includes('key"'), "the api key is not printed");
});

Deno.test("cli: a command that printed its JSON report and then fails adds no second document", async () => {
  // health prints its report (the connection is down) and exits 1; the output stays one JSON document.
  const io = isolatedIo({ env: { GATEWAY_API_URL: "http://127.0.0.1:1", GATEWAY_API_KEY: "key" } });
  strictEqual(await main(["health", "--json", "--timeout", "2000"], io), 1);
  const report = JSON.parse(io.out());
  strictEqual(report.ok, false);
  strictEqual(report.error, undefined);
});

Deno.test("cli: status --json for an instance that does not exist prints the error document, exit 1", async () => {
  await using mock = await MockGatewayServer.start({ apiKey: "test-key" });
  mock.addInstance("sales", { open: true });
  const io = isolatedIo({ env: { GATEWAY_API_URL: mock.url, GATEWAY_API_KEY: "test-key" } });
  strictEqual(await main(["status", "ghost", "--json"], io), 1);
  deepStrictEqual(JSON.parse(io.out()), {
    error: {
      message: 'Instance "ghost" does not exist on connection "default" (create it: deno task create ghost)',
      exitCode: 1,
    },
  });
  const found = isolatedIo({ env: { GATEWAY_API_URL: mock.url, GATEWAY_API_KEY: "test-key" } });
  strictEqual(await main(["status", "sales", "--json"], found), 0);
  strictEqual(JSON.parse(found.out()).instances[0].name, "sales");
});

Deno.test("cli: an in-process run reads its files from io.cwd, never from the process's directory", async () => {
  await using dir = await tempDir();
  await Deno.writeTextFile(
    `${dir.path}/gateway-api.json`,
    JSON.stringify({ server_url: "http://127.0.0.1:1", api_key: "key", kv: { path: "records.kv" } }),
  );
  const here = memoryIo({ cwd: dir.path });
  strictEqual(await main(["status", "--json", "--timeout", "2000"], here), 1);
  ok(JSON.parse(here.out()).error.message.startsWith("Cannot reach gateway server"), here.out());
  // Files written by a run land there too.
  const written = memoryIo({ cwd: dir.path });
  strictEqual(
    await main(["install", "--config", "other.json", "--server-url", "http://127.0.0.1:1"], written),
    0,
  );
  strictEqual(JSON.parse(await Deno.readTextFile(`${dir.path}/other.json`)).server_url, "http://127.0.0.1:1");
  // An empty directory has no configuration, whatever the process's own directory holds.
  const empty = isolatedIo();
  strictEqual(await main(["status", "--json"], empty), 2);
  strictEqual(
    JSON.parse(empty.out()).error.message,
    'Cannot configure gateway: no "gateway-api.json" found and GATEWAY_API_URL is not set ' +
      '(run the "install" command to create one)',
  );
});

Deno.test("cli: status and health close the KV file they opened when they fail before asking the server", async () => {
  await using dir = await tempDir();
  (await Deno.openKv(`${dir.path}/gateway.kv`)).close();
  // No configuration: the store was opened, then the service could not be built.
  for (const command of ["status", "health"]) {
    const io = memoryIo({ cwd: dir.path });
    strictEqual(await main([command], io), 2, command);
    ok(io.err().startsWith("error: Cannot configure gateway"), io.err());
  }
  // An unknown connection: refused after the store was opened.
  await Deno.writeTextFile(
    `${dir.path}/gateway-api.json`,
    '{"server_url": "http://127.0.0.1:1", "api_key": "k"}',
  );
  for (const command of ["status", "health"]) {
    const io = memoryIo({ cwd: dir.path });
    strictEqual(await main([command, "--connection", "nope"], io), 2, command);
    strictEqual(io.err(), 'error: Unknown connection "nope" (configured: "default")\n');
  }
  // The test's resource sanitizer fails it if a KV was left open.
});
