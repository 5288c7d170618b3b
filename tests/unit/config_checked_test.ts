import { deepStrictEqual, notStrictEqual, strictEqual, throws } from "node:assert/strict";
import { GatewayService } from "../../mod.ts";
import { validateConfig } from "../../src/config.ts";
import { checkSetting } from "../../src/config_schema.ts";

Deno.test("validateConfig returns a checked copy; checking that copy again returns it as is", () => {
  const input = { server_url: "http://localhost:8080", api_key: "k", http: { timeout_ms: 5000 } };
  const checked = validateConfig(input);
  notStrictEqual(checked, input);
  notStrictEqual(checked.http, input.http);
  deepStrictEqual(checked, input);
  deepStrictEqual(Object.keys(checked), ["server_url", "api_key", "http"]);
  strictEqual(validateConfig(checked), checked);
  // A section of a checked configuration is not checked again when handed on alone.
  checkSetting("http", checked.http);
});

Deno.test("a service keeps the configuration it checked: later changes to the caller's objects do not reach it", () => {
  const http = { timeout_ms: 5000 };
  const gw = new GatewayService({ server_url: "http://localhost:8080", api_key: "k", http });
  http.timeout_ms = 0;
  strictEqual(gw.getConfig().http?.timeout_ms, 5000);
});

Deno.test("a configuration checked as a file is checked again as a service's: the command line's sections are refused", () => {
  const file = validateConfig(
    { server_url: "http://localhost:8080", api_key: "k", kv: { path: "x.kv" } },
    "file",
  );
  throws(() => new GatewayService(file), {
    name: "ConfigurationException",
    message: '"kv" is read from the configuration file by the command line only, not by GatewayService',
  });
  // An object-checked configuration fits a file check (it is the stricter of the two).
  const object = validateConfig({ server_url: "http://localhost:8080", api_key: "k" });
  strictEqual(validateConfig(object, "file"), object);
});
