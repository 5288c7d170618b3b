// A GATEWAY_* variable the permissions do not allow is treated as unset and named once per process, never a
// raw NotCapable (GatewayService.fromEnv, fromFile and the CLI read through envReader).
import { deepStrictEqual, strictEqual } from "node:assert/strict";
import { envReader } from "../../src/env_access.ts";

Deno.test("envReader: an unreadable variable reads as unset, is listed, and is named once across readers", () => {
  const values: Record<string, string> = { GATEWAY_API_URL: "http://127.0.0.1:9" };
  const access = (name: string) =>
    name === "GATEWAY_TIMEOUT_MS"
      ? { value: undefined, denied: true }
      : { value: values[name], denied: false };
  const lines: string[] = [];
  const named = new Set<string>();
  const first = envReader({ access, warn: (line) => lines.push(line), named });
  deepStrictEqual(
    [first.get("GATEWAY_API_URL"), first.get("GATEWAY_TIMEOUT_MS"), first.get("GATEWAY_TIMEOUT_MS")],
    ["http://127.0.0.1:9", undefined, undefined],
  );
  deepStrictEqual(first.denied, ["GATEWAY_TIMEOUT_MS"]);
  const second = envReader({ access, warn: (line) => lines.push(line), named });
  strictEqual(second.get("GATEWAY_TIMEOUT_MS"), undefined);
  deepStrictEqual(second.denied, ["GATEWAY_TIMEOUT_MS"]);
  deepStrictEqual(lines, [
    "[gateway] Cannot read GATEWAY_TIMEOUT_MS: not allowed by --allow-env; treated as unset " +
    "(add it to --allow-env to use it)",
  ]);
});
