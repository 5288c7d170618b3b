// `create <instance>` and the "does not exist / is not connected" errors that point to the next command,
// run in-process against the simulated server on loopback.
import { deepStrictEqual, ok, rejects, strictEqual } from "node:assert/strict";
import { GatewayService, InstanceDisconnectedException, InstanceNotFoundException } from "../../mod.ts";
import { main } from "../../src/cli/main.ts";
import { isolatedIo } from "../integration/cli_helpers.ts";
import { MockGatewayServer } from "../../src/testing/mod.ts";

const KEY = "test-key";

function env(url: string, key = KEY): Record<string, string> {
  return { GATEWAY_API_URL: url, GATEWAY_API_KEY: key };
}

Deno.test("cli create: creates the instance, then says it exists already (exit 0 both times)", async () => {
  await using mock = await MockGatewayServer.start({ apiKey: KEY });
  const first = isolatedIo({ env: env(mock.url) });
  strictEqual(await main(["create", "sales"], first), 0, first.err());
  strictEqual(first.err(), "");
  strictEqual(
    first.out(),
    'Created instance "sales" on connection "default" (state "close").\n\n' +
      "Next step:\n  Pair it with a phone: deno task connect sales\n",
  );
  const created = mock.requests.filter((r) => r.method === "POST" && r.path === "/instance/create");
  strictEqual(created.length, 1);

  const again = isolatedIo({ env: env(mock.url) });
  strictEqual(await main(["create", "sales"], again), 0, again.err());
  strictEqual(
    again.out(),
    'Instance "sales" already exists on connection "default" (state "close"); nothing to create.\n\n' +
      "Next step:\n  Pair it with a phone: deno task connect sales\n",
  );

  // Once paired, the next step is sending.
  mock.addInstance("open-one", { open: true });
  const open = isolatedIo({ env: env(mock.url) });
  strictEqual(await main(["create", "open-one", "--json"], open), 0, open.err());
  deepStrictEqual(JSON.parse(open.out()), {
    connection: "default",
    instance: "open-one",
    created: false,
    state: "open",
    nextSteps: ["It is connected already: send messages from a file with deno task send <file>"],
  });
});

Deno.test("cli create --json: the report, never the instance's own api key", async () => {
  await using mock = await MockGatewayServer.start({ apiKey: KEY });
  const io = isolatedIo({ env: env(mock.url) });
  strictEqual(await main(["create", "support", "--json"], io), 0, io.err());
  deepStrictEqual(JSON.parse(io.out()), {
    connection: "default",
    instance: "support",
    created: true,
    state: "close",
    nextSteps: ["Pair it with a phone: deno task connect support"],
  });
  const row = (await (await fetch(`${mock.url}/instance/fetchInstances?instanceName=support`, {
    headers: { apikey: KEY },
  })).json())[0];
  strictEqual(typeof row.token, "string");
  strictEqual(io.out().includes(row.token), false);
});

Deno.test("cli create: bad usage is exit 2, a refused key exit 1 with one line", async () => {
  await using mock = await MockGatewayServer.start({ apiKey: KEY });
  const missing = isolatedIo({ env: env(mock.url) });
  strictEqual(await main(["create"], missing), 2);
  strictEqual(missing.err(), 'error: Missing argument: <instance> (see "create --help")\n');
  const two = isolatedIo({ env: env(mock.url) });
  strictEqual(await main(["create", "a", "b"], two), 2);
  strictEqual(two.err(), 'error: Cannot parse arguments: unexpected argument "b" (see "create --help")\n');

  const refused = isolatedIo({ env: env(mock.url, "wrong-key") });
  strictEqual(await main(["create", "sales", "--json"], refused), 1);
  const report = JSON.parse(refused.out());
  deepStrictEqual([Object.keys(report), report.error.exitCode], [["error"], 1]);
  ok(report.error.message.startsWith("Gateway refused POST /instance/create (401)"), report.error.message);
  strictEqual(refused.err().split("\n").length, 2, refused.err());
  const rows = await (await fetch(`${mock.url}/instance/fetchInstances`, { headers: { apikey: KEY } }))
    .json();
  deepStrictEqual(rows, []);
});

Deno.test("cli connect and status: an instance that does not exist names the create command", async () => {
  await using mock = await MockGatewayServer.start({ apiKey: KEY });
  for (const command of ["connect", "status"]) {
    const io = isolatedIo({ env: env(mock.url) });
    strictEqual(await main([command, "ghost"], io), 1);
    strictEqual(
      io.err(),
      'error: Instance "ghost" does not exist on connection "default" (create it: deno task create ghost)\n',
    );
  }
});

Deno.test("library errors name the instance and the next command: not found → create, not connected → connect", async () => {
  await using mock = await MockGatewayServer.start({ apiKey: KEY });
  mock.addInstance("sales", { open: false });
  const gw = GatewayService.make({ server_url: mock.url, api_key: KEY, retry: { max_retries: 0 } });
  await rejects(gw.instance("ghost").instances().connectionState(), (error: unknown) => {
    ok(error instanceof InstanceNotFoundException);
    strictEqual(
      error.message,
      'Instance "ghost" not found for GET /instance/connectionState/ghost: ' +
        'The "ghost" instance does not exist (create it: deno task create ghost)',
    );
    return true;
  });
  await rejects(gw.instances().fetch("ghost"), {
    message: 'Instance "ghost" not found for GET /instance/fetchInstances: Instance "ghost" not found ' +
      "(create it: deno task create ghost)",
  });
  await rejects(gw.instance("sales").messages().text("5511999999999", "Hi"), (error: unknown) => {
    ok(error instanceof InstanceDisconnectedException);
    ok(error.message.startsWith('Cannot send: instance "sales" is not connected'), error.message);
    ok(error.message.endsWith(" (pair it: deno task connect sales)"), error.message);
    return true;
  });
});
