import { deepStrictEqual, ok, rejects, strictEqual, throws } from "node:assert/strict";
import { ConfigurationException, type GatewayConfig, GatewayService } from "../../mod.ts";
import { configFromEnv, loadConfigFile, mergeEnvConfig, validateConfig } from "../../src/config.ts";
import { parseJsonc } from "../../src/jsonc.ts";
import { loadCliConfig } from "../../src/cli/config.ts";
import { isolatedIo } from "../integration/cli_helpers.ts";

const BASE = "http://127.0.0.1:9";

/** The error a configuration throws: its class, message and setting. */
function refusal(build: () => unknown): { message: string; setting?: string } {
  try {
    build();
  } catch (error) {
    ok(error instanceof ConfigurationException, `expected a ConfigurationException, got ${error}`);
    return { message: error.message, setting: error.setting };
  }
  throw new Error("expected the configuration to be refused");
}

async function withFile<T>(text: string, use: (path: string) => Promise<T>): Promise<T> {
  const dir = await Deno.makeTempDir();
  try {
    const path = `${dir}/gateway-api.json`;
    await Deno.writeTextFile(path, text);
    return await use(path);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("config: an unknown key is refused with its path and the key that was meant", () => {
  const cases: Array<[unknown, string, string]> = [
    [
      { serverUrl: BASE, api_key: "k" },
      "serverUrl",
      '"serverUrl" is not a configuration key; did you mean "server_url"?',
    ],
    [
      { server_url: BASE, api_key: "k", rate_limiting: { maxWaitMs: 5 } },
      "rate_limiting.maxWaitMs",
      '"rate_limiting.maxWaitMs" is not a configuration key; did you mean "rate_limiting.max_wait_ms"?',
    ],
    [
      { server_url: BASE, api_key: "k", timeout: 5000 },
      "timeout",
      '"timeout" is not a configuration key; did you mean "timeout_ms"?',
    ],
    [
      { server_url: BASE, api_key: "k", http: { timeout: 5000 } },
      "http.timeout",
      '"http.timeout" is not a configuration key; did you mean "http.timeout_ms"?',
    ],
    [
      { server_url: BASE, api_key: "k", retries: 3 },
      "retries",
      '"retries" is not a configuration key; did you mean "retry"?',
    ],
    [
      { server_url: BASE, api_key: "k", retry: { maxRetries: 3 } },
      "retry.maxRetries",
      '"retry.maxRetries" is not a configuration key; did you mean "retry.max_retries"?',
    ],
    [
      { connections: { eu: { server_url: BASE, apiKey: "k" } } },
      "connections.eu.apiKey",
      '"connections.eu.apiKey" is not a configuration key; did you mean "connections.eu.api_key"?',
    ],
    [
      { server_url: BASE, api_key: "k", webhook: { signature: { schema: "hmac" } } },
      "webhook.signature.schema",
      '"webhook.signature.schema" is not a configuration key; did you mean "webhook.signature.scheme"?',
    ],
    [
      { server_url: BASE, api_key: "k", colour: "blue" },
      "colour",
      '"colour" is not a configuration key',
    ],
  ];
  for (const [config, setting, message] of cases) {
    for (const build of [() => new GatewayService(config as GatewayConfig), () => validateConfig(config)]) {
      deepStrictEqual(refusal(build), { message, setting });
    }
  }
});

Deno.test("config: GatewayService.make with camelCase keys fails when built, not at the first send", () => {
  // deno-lint-ignore no-explicit-any
  const camel = { serverUrl: BASE, apiKey: "k" } as any;
  deepStrictEqual(refusal(() => GatewayService.make(camel)), {
    message: '"serverUrl" is not a configuration key; did you mean "server_url"?',
    setting: "serverUrl",
  });
  // deno-lint-ignore no-explicit-any
  deepStrictEqual(refusal(() => GatewayService.make({ server_url: BASE } as any)), {
    message: 'Cannot configure gateway: "api_key" is missing',
    setting: "api_key",
  });
  // The shorthand's timeout_ms is the default connection's.
  const gw = GatewayService.make({ server_url: BASE, api_key: "k", timeout_ms: 1234 });
  strictEqual(gw.getConnectionManager().getConnection().timeout_ms, 1234);
});

Deno.test("config: a wrong type names the path and the expected type, never a secret", () => {
  const cases: Array<[GatewayConfig | Record<string, unknown>, string, string]> = [
    [
      { http: { timeout_ms: "30s" } },
      "http.timeout_ms",
      '"http.timeout_ms" must be an integer from 1 to 2147483647 (ms), got "30s"',
    ],
    [
      { http: { deadline_ms: 2 ** 31 } },
      "http.deadline_ms",
      '"http.deadline_ms" must be an integer from 1 to 2147483647 (ms), got 2147483648',
    ],
    [
      { retry: { max_delay_ms: 1e10 } },
      "retry.max_delay_ms",
      '"retry.max_delay_ms" must be an integer from 0 to 2147483647 (ms), got 10000000000',
    ],
    [
      { queue: { max_attempts: 0 } },
      "queue.max_attempts",
      '"queue.max_attempts" must be an integer >= 1, got 0',
    ],
    [{ instance: "" }, "instance", '"instance" must be a non-empty string, got ""'],
    [
      { metrics: { enabled: "yes" } },
      "metrics.enabled",
      '"metrics.enabled" must be true or false, got "yes"',
    ],
    [{ metrics: true }, "metrics", '"metrics" must be an object, got true'],
    [
      { webhook: { secret: 42 } },
      "webhook.secret",
      '"webhook.secret" must be a non-empty string or a non-empty array of non-empty strings, got a number',
    ],
    [
      { webhook: { secret: ["s3cret-value", ""] } },
      "webhook.secret.1",
      '"webhook.secret.1" must be a non-empty string, got a string',
    ],
    [
      { webhook: { signature: { scheme: "sha256" } } },
      "webhook.signature.scheme",
      '"webhook.signature.scheme" must be one of "auto", "hmac", "standard", "jwt", "token", "none", got "sha256"',
    ],
    [
      { logging: { level: "trace" } },
      "logging.level",
      '"logging.level" must be one of "debug", "info", got "trace"',
    ],
    [{ fetch: "globalThis.fetch" }, "fetch", '"fetch" must be a function, got "globalThis.fetch"'],
    [
      { store: {} },
      "store",
      '"store" must implement GatewayStore (missing saveOutbound, updateOutbound, listOutbound)',
    ],
    [
      { connections: { eu: "http://x" } },
      "connections.eu",
      '"connections.eu" must be an object, got a string',
    ],
    [
      { kv: { path: "gateway.kv" } },
      "kv",
      '"kv" is read from the configuration file by the command line only, not by GatewayService',
    ],
  ];
  for (const [extra, setting, message] of cases) {
    deepStrictEqual(
      refusal(() => new GatewayService({ server_url: BASE, api_key: "k", ...extra } as GatewayConfig)),
      {
        message,
        setting,
      },
    );
  }
  // An api key of the wrong type is not shown.
  const wrong = refusal(() => new GatewayService({ server_url: BASE, api_key: ["secret-key"] } as never));
  deepStrictEqual(wrong, { message: '"api_key" must be a string, got an array', setting: "api_key" });
});

Deno.test("config: fromEnv checks its variables and its overrides", () => {
  const names = ["GATEWAY_API_URL", "GATEWAY_API_KEY", "GATEWAY_INSTANCE", "GATEWAY_TIMEOUT_MS"];
  const saved = names.map((name) => [name, Deno.env.get(name)] as const);
  try {
    Deno.env.set("GATEWAY_API_URL", BASE);
    Deno.env.set("GATEWAY_API_KEY", "env-key");
    Deno.env.delete("GATEWAY_INSTANCE");
    Deno.env.set("GATEWAY_TIMEOUT_MS", "30s");
    deepStrictEqual(refusal(() => GatewayService.fromEnv()), {
      message: 'GATEWAY_TIMEOUT_MS must be an integer from 1 to 2147483647 (ms), got "30s"',
      setting: "GATEWAY_TIMEOUT_MS",
    });
    Deno.env.set("GATEWAY_TIMEOUT_MS", "2147483648");
    strictEqual(refusal(() => GatewayService.fromEnv()).setting, "GATEWAY_TIMEOUT_MS");
    Deno.env.set("GATEWAY_TIMEOUT_MS", "2500");
    strictEqual(GatewayService.fromEnv().getConfig().http?.timeout_ms, 2500);
    deepStrictEqual(refusal(() => GatewayService.fromEnv({ retry: { max_retrys: 1 } } as GatewayConfig)), {
      message: '"retry.max_retrys" is not a configuration key; did you mean "retry.max_retries"?',
      setting: "retry.max_retrys",
    });
  } finally {
    for (const [name, value] of saved) {
      value === undefined ? Deno.env.delete(name) : Deno.env.set(name, value);
    }
  }
});

Deno.test("config: JSONC keeps strings intact and drops comments and trailing commas", () => {
  const text = `// leading comment
{
  /* block
     comment */ "server_url": "http://example.com//path", // after a value
  "api_key": "a/*b*/c//d", "quote": "say \\"//hi\\" \\\\", "list": [1, 2, 3,],
  "nested": { "x": "/* not a comment */", }, // trailing comma above
}`;
  deepStrictEqual(parseJsonc(text), {
    server_url: "http://example.com//path",
    api_key: "a/*b*/c//d",
    quote: 'say "//hi" \\',
    list: [1, 2, 3],
    nested: { x: "/* not a comment */" },
  });
  deepStrictEqual(parseJsonc('{"a": ",}", "b": [","],}'), { a: ",}", b: [","] });
  throws(() => parseJsonc('{"a": 1 /* open'), {
    name: "SyntaxError",
    message: "Unterminated comment at line 1, column 9",
  });
  // A comma followed only by a comment and a brace is still a trailing comma.
  deepStrictEqual(parseJsonc('{"a": 1, // x\n /* y */ }'), { a: 1 });
  // Two commas are still an error, and the error never quotes the text (a file holds keys).
  throws(() => parseJsonc('{"api_key": "secret-123",, }'), (error: Error) => {
    ok(error instanceof SyntaxError);
    ok(!error.message.includes("secret-123"), error.message);
    return true;
  });
});

Deno.test("config: the configuration manual's block loads as gateway-api.json", async () => {
  const manual = await Deno.readTextFile(new URL("../../docs/configuration.md", import.meta.url));
  const block = /```jsonc\n([\s\S]*?)\n```/.exec(manual)?.[1];
  ok(block !== undefined, "docs/configuration.md has no jsonc block");
  ok(block.includes("//"), "the block is expected to show comments");
  await withFile(block, async (path) => {
    const config = await loadConfigFile(path);
    ok(config !== null);
    const gw = await GatewayService.fromFile(path);
    deepStrictEqual(gw.getConnectionManager().getConnectionNames(), ["main", "eu"]);
    strictEqual(gw.getConnectionName(), "main");
    strictEqual(gw.getConfig().logging?.level, "info");
  });
});

Deno.test("config: GATEWAY_* variables win over a file with named connections, on its default connection", async () => {
  const file =
    '{ "default": "main", "connections": { "main": { "server_url": "http://a.test", "api_key": "k", ' +
    '"instance": "sales" }, "eu": { "server_url": "http://eu.test", "api_key": "e" } } }';
  await withFile(file, async (path) => {
    // The command line reads the variables through its io.
    const cli = await loadCliConfig(
      isolatedIo({ env: { GATEWAY_INSTANCE: "support", GATEWAY_API_KEY: "k2" } }),
      path,
    );
    deepStrictEqual(cli.config.connections?.main, {
      server_url: "http://a.test",
      api_key: "k2",
      instance: "support",
    });
    deepStrictEqual(cli.config.connections?.eu, { server_url: "http://eu.test", api_key: "e" });
    // GatewayService.fromFile reads Deno.env.
    const saved = Deno.env.get("GATEWAY_INSTANCE");
    Deno.env.set("GATEWAY_INSTANCE", "support");
    try {
      const gw = await GatewayService.fromFile(path);
      deepStrictEqual(gw.getConnectionManager().getConnectionNames(), ["main", "eu"]);
      strictEqual(gw.getConfig().connections?.main.instance, "support");
    } finally {
      saved === undefined ? Deno.env.delete("GATEWAY_INSTANCE") : Deno.env.set("GATEWAY_INSTANCE", saved);
    }
  });
});

Deno.test("config: GATEWAY_TIMEOUT_MS wins over the default connection's own timeout_ms in a file", () => {
  const file = {
    default: "main",
    connections: {
      main: { server_url: "http://a.test", api_key: "k", timeout_ms: 20_000 },
      eu: { server_url: "http://eu.test", api_key: "e", timeout_ms: 9_000 },
    },
  };
  const merged = mergeEnvConfig(file, configFromEnv((name) => ({ GATEWAY_TIMEOUT_MS: "5000" })[name]));
  strictEqual(merged.connections?.main.timeout_ms, 5_000);
  strictEqual(merged.connections?.eu.timeout_ms, 9_000); // another connection's own setting stays
  strictEqual(merged.http?.timeout_ms, 5_000);
  // A default connection without its own timeout takes http.timeout_ms: nothing is added to it.
  const plain = mergeEnvConfig(
    { connections: { default: { server_url: "http://a.test", api_key: "k" } } },
    { http: { timeout_ms: 5_000 } },
  );
  deepStrictEqual(plain.connections?.default, { server_url: "http://a.test", api_key: "k" });
  strictEqual(plain.http?.timeout_ms, 5_000);
  // The shorthand's own timeout_ms is its connection's: the variable wins over it too.
  const shorthand = mergeEnvConfig({ server_url: "http://a.test", api_key: "k", timeout_ms: 20_000 }, {
    http: { timeout_ms: 5_000 },
  });
  strictEqual(shorthand.timeout_ms, 5_000);
  strictEqual(mergeEnvConfig({ server_url: "http://a.test", api_key: "k" }, {}).timeout_ms, undefined);
});

Deno.test("config: the file is checked when read, with its path in the message", async () => {
  await withFile(
    '{ "server_url": "http://x", "api_key": "k", "queue": { "max_attempts": 0 }, }',
    async (path) => {
      await rejects(loadConfigFile(path), (error: unknown) => {
        ok(error instanceof ConfigurationException);
        strictEqual(error.setting, "queue.max_attempts");
        strictEqual(
          error.message,
          `Invalid configuration file "${path}": "queue.max_attempts" must be an integer >= 1, got 0`,
        );
        return true;
      });
    },
  );
  // The command line's own sections are file keys, and are checked too.
  await withFile('{ "tasks": { "retry_failed": { "limit": -1 } } }', async (path) => {
    await rejects(loadCliConfig(isolatedIo(), path), (error: Error) => {
      strictEqual(
        error.message,
        `Invalid configuration file "${path}": "tasks.retry_failed.limit" must be an integer >= 0, got -1`,
      );
      return true;
    });
  });
  await withFile(
    '{ "tasks": { "retry_failed": { "instance": "" } }, "kv": { "path": "x.kv" } }',
    async (path) => {
      await rejects(
        loadCliConfig(isolatedIo(), path),
        /"tasks.retry_failed.instance" must be a non-empty string, got ""/,
      );
    },
  );
  await withFile('{ "kv": { "path": "x.kv" }, "tasks": { "prune": false } }', async (path) => {
    const cli = await loadCliConfig(isolatedIo(), path);
    strictEqual(cli.kvPath, "x.kv");
    deepStrictEqual(cli.tasks, { prune: false });
    deepStrictEqual(cli.config, {});
  });
});
