// The runnable examples keep working: each runs as a subprocess against local mock servers.
import { ok, strictEqual } from "node:assert/strict";

Deno.test("examples/multi_tenant.ts sends through each tenant's own server and instance", async () => {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-net=127.0.0.1", "examples/multi_tenant.ts"],
    cwd: new URL("../..", import.meta.url).pathname,
    env: { NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stdout = new TextDecoder().decode(output.stdout);
  strictEqual(output.code, 0, new TextDecoder().decode(output.stderr));
  for (const line of [/^eu\/acme: [0-9A-F]+$/m, /^eu\/globex: [0-9A-F]+$/m, /^us\/initech: [0-9A-F]+$/m]) {
    ok(line.test(stdout), `${line} not in:\n${stdout}`);
  }
  ok(stdout.includes("eu received 2 messages, us received 1"), stdout);
});
