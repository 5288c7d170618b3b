// A missing --allow-net is a permission error naming the flag, not a ConnectionException (which would say the
// server cannot be reached, and call a send's outcome unknown although nothing left the process). Permissions
// cannot be narrowed in-process, so the calls run in a child process.
import { deepStrictEqual, strictEqual } from "node:assert/strict";
import { isOutcomeUnknown } from "../../mod.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
const FIXTURE = new URL("../fixtures/no_net_fixture.ts", import.meta.url).pathname;

Deno.test("without --allow-net a send and a read throw Deno's NotCapable naming the flag; nothing is sent", async () => {
  let requests = 0;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, () => {
    requests++;
    return Response.json({ instance: { state: "open" } });
  });
  try {
    const url = `http://127.0.0.1:${server.addr.port}`;
    const output = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--no-prompt",
        "--quiet",
        "--lock=tests/npm/deno.lock",
        "--allow-read",
        "--allow-env",
        FIXTURE,
        url,
      ],
      cwd: ROOT,
      env: { NO_COLOR: "1" },
      // A child that never exits (a request body left open) fails the test instead of holding it.
      signal: AbortSignal.timeout(60_000),
      stdout: "piped",
      stderr: "piped",
    }).output();
    const text = new TextDecoder().decode(output.stdout);
    strictEqual(output.code, 0, new TextDecoder().decode(output.stderr));
    const lines = text.trimEnd().split("\n").map((line) => JSON.parse(line));
    const host = `127.0.0.1:${server.addr.port}`;
    deepStrictEqual(lines, [
      {
        name: "send",
        error: "NotCapable",
        message: `Cannot send POST /message/sendText/sales: no network permission for ${host}: ` +
          `run again with --allow-net (or --allow-net=${host})`,
        notCapable: true,
        connection: false,
      },
      {
        name: "read",
        error: "NotCapable",
        message: `Cannot send GET /instance/connectionState/sales: no network permission for ${host}: ` +
          `run again with --allow-net (or --allow-net=${host})`,
        notCapable: true,
        connection: false,
      },
    ]);
    strictEqual(requests, 0);
  } finally {
    await server.shutdown();
  }
});

Deno.test("a send refused for a missing permission is not outcome-unknown: it never left the process", () => {
  strictEqual(isOutcomeUnknown(new Deno.errors.NotCapable('Requires net access to "127.0.0.1:8080"')), false);
  strictEqual(isOutcomeUnknown(new Deno.errors.PermissionDenied("net access denied")), false);
  strictEqual(isOutcomeUnknown(new TypeError("fetch failed")), true);
});
