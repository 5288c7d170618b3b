// GatewayService.fromEnv under a narrowed --allow-env, in a real process (permissions cannot be narrowed
// in-process): a variable the user never allowed is unset and named once per call, never a raw NotCapable.
import { deepStrictEqual, strictEqual } from "node:assert/strict";

const ROOT = new URL("../../", import.meta.url).pathname;
const FIXTURE = new URL("../fixtures/from_env_fixture.ts", import.meta.url).pathname;

async function fromEnvUnder(allowEnv: string): Promise<{ out: unknown; err: string; code: number }> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--no-prompt", `--allow-env=${allowEnv}`, FIXTURE],
    cwd: ROOT,
    env: {
      GATEWAY_API_URL: "http://127.0.0.1:9",
      GATEWAY_API_KEY: "k",
      GATEWAY_TIMEOUT_MS: "2500",
      NO_COLOR: "1",
    },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  return { out: JSON.parse(decode(output.stdout)), err: decode(output.stderr), code: output.code };
}

Deno.test("GatewayService.fromEnv under a narrowed --allow-env: unset and named once per call, never NotCapable", async () => {
  const narrowed = await fromEnvUnder("GATEWAY_API_URL,GATEWAY_API_KEY");
  strictEqual(narrowed.code, 0);
  // GATEWAY_TIMEOUT_MS is set, but may not be read: the default timeout applies.
  deepStrictEqual(narrowed.out, { server_url: "http://127.0.0.1:9", timeout_ms: null });
  // Each fromEnv() names each unreadable variable once (the reader is the service's, not the process's).
  const lines = [
    "[gateway] Cannot read GATEWAY_INSTANCE: not allowed by --allow-env; treated as unset (add it to --allow-env to use it)",
    "[gateway] Cannot read GATEWAY_TIMEOUT_MS: not allowed by --allow-env; treated as unset (add it to --allow-env to use it)",
  ];
  deepStrictEqual(narrowed.err.trimEnd().split("\n"), [...lines, ...lines]);

  const noUrl = await fromEnvUnder("GATEWAY_API_KEY,GATEWAY_INSTANCE,GATEWAY_TIMEOUT_MS");
  deepStrictEqual(noUrl.out, {
    error:
      "ConfigurationException: Cannot configure gateway: GATEWAY_API_URL cannot be read (add it to --allow-env)",
  });
  strictEqual(noUrl.err.includes("Cannot read GATEWAY_API_URL: not allowed by --allow-env"), true);
});
