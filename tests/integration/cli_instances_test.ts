import { deepStrictEqual, match, ok, strictEqual } from "node:assert/strict";
import { main, memoryIo } from "../../src/cli/main.ts";
import { InstanceDisconnectedException, InstanceHealth, KvStore } from "../../mod.ts";
import { GatewaySimulator, MockGatewayServer } from "../../src/testing/mod.ts";
import { cliCommand, closedPort, lineReader, runCli, tempDir, writeConfig } from "./cli_helpers.ts";

const KEY = "test-key";

Deno.test("cli status: instances with state, owner and profile name", async (t) => {
  await using mock = await MockGatewayServer.start({ apiKey: KEY, port: 0 });
  mock.addInstance("sales", { open: true, number: "5511988887777" });
  mock.addInstance("support");
  await using dir = await tempDir();
  await writeConfig(dir.path, { server_url: mock.url, api_key: KEY });

  await t.step("every instance, --json", async () => {
    const run = await runCli("status", ["--json"], { cwd: dir.path });
    strictEqual(run.code, 0, run.stderr);
    deepStrictEqual(JSON.parse(run.stdout), {
      connection: "default",
      instances: [
        {
          name: "sales",
          state: "open",
          owner: "5511988887777@s.whatsapp.net",
          profileName: "Mock User",
          health: "open",
          breaker: "closed",
          reason: null,
        },
        {
          name: "support",
          state: "close",
          owner: null,
          profileName: null,
          health: "closed",
          breaker: "open",
          reason: null,
        },
      ],
    });
  });

  await t.step("one instance, as a table", async () => {
    const run = await runCli("status", ["sales"], { cwd: dir.path });
    strictEqual(run.code, 0);
    deepStrictEqual(run.stdout.trimEnd().split("\n").map((line) => line.split(/\s{2,}/)), [
      ["INSTANCE", "STATE", "HEALTH", "BREAKER", "OWNER", "PROFILE NAME"],
      ["sales", "open", "open", "closed", "5511988887777@s.whatsapp.net", "Mock User"],
    ]);
  });

  await t.step(
    "shows what senders recorded in the KV file: an instance that says open but cannot send",
    async () => {
      const kv = await Deno.openKv(`${dir.path}/gateway.kv`);
      const health = new InstanceHealth(new KvStore(kv).state);
      const closed = new InstanceDisconnectedException("Connection Closed");
      await health.recordSendFailure({ connection: "default", instance: "sales" }, closed);
      await health.recordSendFailure({ connection: "default", instance: "sales" }, closed);
      kv.close();
      const run = await runCli("status", ["sales", "--json"], { cwd: dir.path });
      strictEqual(run.code, 0, run.stderr);
      const [sales] = JSON.parse(run.stdout).instances;
      deepStrictEqual([sales.state, sales.health, sales.breaker], ["open", "suspect", "open"]);
      const table = await runCli("health", [], { cwd: dir.path });
      match(table.stdout, /sales \(open, suspect, breaker open\)/);
    },
  );

  await t.step("an unknown instance: exit 1", async () => {
    const run = await runCli("status", ["ghost"], { cwd: dir.path });
    strictEqual(run.code, 1);
    strictEqual(run.stdout, "");
    strictEqual(
      run.stderr,
      'error: Instance "ghost" does not exist on connection "default" (create it: deno task create ghost)\n',
    );
  });

  await t.step("a wrong key and an unreachable server: exit 1, one line", async () => {
    const refused = await runCli("status", [], { cwd: dir.path, env: { GATEWAY_API_KEY: "wrong" } });
    strictEqual(refused.code, 1);
    strictEqual(refused.stderr, "error: Gateway refused GET /instance/fetchInstances (401): Unauthorized\n");
    const down = await runCli("status", [], {
      cwd: dir.path,
      env: { GATEWAY_API_URL: `http://127.0.0.1:${closedPort()}` },
    });
    strictEqual(down.code, 1);
    match(down.stderr, /^error: Cannot reach gateway server for GET \/instance\/fetchInstances: [^\n]+\n$/);
  });

  await t.step("two instance arguments: bad usage", async () => {
    const run = await runCli("status", ["a", "b"], { cwd: dir.path });
    strictEqual(run.code, 2);
    strictEqual(run.stderr, 'error: Cannot parse arguments: unexpected argument "b" (see "status --help")\n');
  });
});

Deno.test("cli connect: QR code, waiting for the scan, timeout", async (t) => {
  await using mock = await MockGatewayServer.start({ apiKey: KEY, port: 0 });
  mock.addInstance("sales", { open: true });
  mock.addInstance("support");
  mock.addInstance("lonely");
  await using dir = await tempDir();
  await writeConfig(dir.path, { server_url: mock.url, api_key: KEY });

  await t.step("an open instance: exit 0 at once", async () => {
    const run = await runCli("connect", ["sales", "--json"], { cwd: dir.path });
    strictEqual(run.code, 0, run.stderr);
    deepStrictEqual(JSON.parse(run.stdout), {
      connection: "default",
      instance: "sales",
      connected: true,
      state: "open",
      alreadyConnected: true,
      qrCode: null,
      pairingCode: null,
    });
  });

  await t.step("draws the QR code, then exits 0 once the phone has scanned it", async () => {
    const child = cliCommand("connect", ["support", "--interval", "20"], { cwd: dir.path }).spawn();
    const stdout = lineReader(child.stdout);
    const stderr = child.stderr.pipeThrough(new TextDecoderStream());
    const errText = (async () => {
      let text = "";
      for await (const chunk of stderr) text += chunk;
      return text;
    })();
    const header = await stdout.until((line) => line.startsWith("Scan this QR code") ? line : undefined);
    match(
      header,
      /^Scan this QR code with WhatsApp \(Settings > Linked devices > Link a device\), code #1:$/,
    );
    // Plain style off a terminal: half blocks and spaces only.
    const firstRow = await stdout.until((line) => line.length > 0 ? line : undefined);
    match(firstRow, /^[█▀▄ ]{20,}$/);
    mock.simulateScan("support", { number: "5511977776666" });
    const { code } = await child.status;
    const rest = await stdout.rest();
    // Off a terminal the progress is a line on stderr (a terminal gets a spinner instead).
    strictEqual(await errText, 'Connecting "support": waiting for a QR code from the server (up to 120 s)\n');
    strictEqual(code, 0);
    match(rest, /Instance "support" is connected\n$/);
    strictEqual(mock.instance("support")?.state, "open");
  });

  await t.step("times out with exit 1 when nobody scans; --json still reports", async () => {
    const run = await runCli("connect", ["lonely", "--timeout", "0.2", "--interval", "20", "--json"], {
      cwd: dir.path,
    });
    strictEqual(run.code, 1);
    const report = JSON.parse(run.stdout);
    strictEqual(typeof report.qrCode, "string");
    deepStrictEqual({ ...report, qrCode: null }, {
      connection: "default",
      instance: "lonely",
      connected: false,
      state: "connecting",
      alreadyConnected: false,
      qrCode: null,
      pairingCode: null,
    });
    // The QR code went to stderr (stdout carries the JSON), then the one-line error.
    match(
      run.stderr,
      /^Connecting "lonely": waiting for a QR code from the server \(up to 0.2 s\)\nScan this QR code/,
    );
    match(run.stderr, /\nerror: Cannot connect "lonely": not paired within 0.2 s \(state "connecting"\)\n$/);
  });

  await t.step("--pairing prints the code to type, and a pairing without a number is bad usage", async () => {
    mock.addInstance("pairme");
    const child = cliCommand("connect", ["pairme", "--pairing", "5511977776666", "--interval", "20"], {
      cwd: dir.path,
    }).spawn();
    const stdout = lineReader(child.stdout);
    const line = await stdout.until((text) => text.startsWith("Enter this pairing code") ? text : undefined);
    match(
      line,
      /^Enter this pairing code on the phone \(Linked devices > Link with phone number\): [A-Z0-9]{8}$/,
    );
    mock.simulateScan("pairme");
    const { code } = await child.status;
    await child.stderr.cancel();
    strictEqual(code, 0);
    match(await stdout.rest(), /Instance "pairme" is connected\n$/);
    strictEqual(
      mock.requests.find((r) => r.instance === "pairme" && r.route === "GET /instance/connect")?.query.number,
      "5511977776666",
    );
    const empty = await runCli("connect", ["pairme", "--pairing="], { cwd: dir.path });
    strictEqual(empty.code, 2, empty.stderr);
  });

  await t.step("missing or unknown instance", async () => {
    const missing = await runCli("connect", [], { cwd: dir.path });
    strictEqual(missing.code, 2);
    strictEqual(missing.stderr, 'error: Missing argument: <instance> (see "connect --help")\n');
    const unknown = await runCli("connect", ["ghost"], { cwd: dir.path });
    strictEqual(unknown.code, 1);
    strictEqual(
      unknown.stderr,
      'error: Instance "ghost" does not exist on connection "default" (create it: deno task create ghost)\n',
    );
    const ambiguous = await runCli("connect", ["sales", "--timeout", "-1"], { cwd: dir.path });
    strictEqual(ambiguous.code, 2);
    strictEqual(
      ambiguous.stderr,
      'error: Cannot parse arguments: Option "--timeout" argument is ambiguous ' +
        '(write "--timeout=-XYZ" for a value that starts with a dash) (see "connect --help")\n',
    );
    const badTimeout = await runCli("connect", ["sales", "--timeout=-1"], { cwd: dir.path });
    strictEqual(badTimeout.code, 2);
    strictEqual(
      badTimeout.stderr,
      'error: Cannot parse arguments: "--timeout" must be a positive number, got "-1" (see "connect --help")\n',
    );
  });
});

/**
 * The simulator behind a relay that answers `fetchInstances` as the real server does for an instance whose
 * socket is still connecting: its stored row says `close` (the server writes the row on open and close
 * only), while `connectionState` says `connecting`.
 */
function realShapes(sim: GatewaySimulator): Deno.HttpServer<Deno.NetAddr> & { url: string } {
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (request) => {
    const answer = await sim.handle(request);
    if (!new URL(request.url).pathname.startsWith("/instance/fetchInstances")) return answer;
    const rows = (await answer.json()) as Array<Record<string, unknown>>;
    const stored = rows.map((row) => ({
      ...row,
      connectionStatus: row.connectionStatus === "connecting" ? "close" : row.connectionStatus,
    }));
    return Response.json(stored, { status: answer.status });
  });
  return Object.assign(server, { url: `http://127.0.0.1:${server.addr.port}` });
}

Deno.test("cli connect: a server that never produces a QR code says so; status agrees", async (t) => {
  await using sim = new GatewaySimulator({ apiKey: KEY });
  sim.setWhatsAppReachable(false);
  sim.addInstance("dark");
  await using relay = realShapes(sim);
  await using dir = await tempDir();
  await writeConfig(dir.path, { server_url: relay.url, api_key: KEY });

  await t.step(
    "connect: no countdown for a scan, progress off a terminal, an error that says what to check",
    async () => {
      const run = await runCli("connect", ["dark", "--timeout", "0.3", "--interval", "20"], {
        cwd: dir.path,
      });
      strictEqual(run.code, 1);
      strictEqual(run.stdout, "");
      strictEqual(
        run.stderr,
        'Connecting "dark": waiting for a QR code from the server (up to 0.3 s)\n' +
          'error: Cannot connect "dark": no QR code arrived within 0.3 s (state "connecting"): the server started ' +
          "the WhatsApp connection but got no code from WhatsApp; check that the server can reach WhatsApp " +
          "(its network, proxy or firewall) and look at its logs, then run connect again\n",
      );
      // The real server answered {"count":0} to every connect.
      deepStrictEqual(
        await (await sim.fetch("http://x/instance/connect/dark", { headers: { apikey: KEY } })).json(),
        {
          count: 0,
        },
      );
    },
  );

  await t.step("on a terminal the spinner waits for the server, never for a scan", async () => {
    const io = memoryIo({ terminal: true, cwd: dir.path, env: { NO_COLOR: "1" } });
    strictEqual(await main(["connect", "dark", "--timeout", "0.3", "--interval", "20"], io), 1);
    strictEqual(io.out(), "");
    ok(io.err().includes("⠙ Waiting for a QR code from the server (1 s left)"), io.err());
    ok(!io.err().includes("scan"), io.err());
    ok(!io.err().includes("Connecting"), io.err());
    ok(
      io.err().endsWith(
        'error: Cannot connect "dark": no QR code arrived within 0.3 s (state "connecting"): ' +
          "the server started the WhatsApp connection but got no code from WhatsApp; check that the server can " +
          "reach WhatsApp (its network, proxy or firewall) and look at its logs, then run connect again\n",
      ),
      io.err(),
    );
  });

  await t.step("status and health read the state that is true: connecting, as connect saw it", async () => {
    const one = await runCli("status", ["dark", "--json"], { cwd: dir.path });
    strictEqual(one.code, 0, one.stderr);
    strictEqual(JSON.parse(one.stdout).instances[0].state, "connecting");
    const all = await runCli("status", ["--json"], { cwd: dir.path });
    strictEqual(all.code, 0, all.stderr);
    deepStrictEqual(JSON.parse(all.stdout).instances.map((row: { state: string }) => row.state), [
      "connecting",
    ]);
    const table = await runCli("status", [], { cwd: dir.path });
    match(table.stdout, /\ndark +connecting /);
    // health lists the same state, and the health it records follows it.
    const health = await runCli("health", ["--json"], { cwd: dir.path });
    strictEqual(health.code, 0, health.stderr);
    deepStrictEqual(
      JSON.parse(health.stdout).connections[0].instances.map((row: { name: string; state: string }) => [
        row.name,
        row.state,
      ]),
      [["dark", "connecting"]],
    );
  });
});
