// Secrets never leave in an error: a configuration file that is not JSON(C) is never quoted, a wrong type of a
// secret key never shows its value, and a path that is not a regular file is refused before it is read.
import { ok, rejects, strictEqual, throws } from "node:assert/strict";
import { ConfigurationException } from "../../mod.ts";
import { loadConfigFile, validateConfig } from "../../src/config.ts";
import { parseJsonc } from "../../src/jsonc.ts";

const KEY = "evo-local-test-key-0123456789";

async function withDir<T>(use: (dir: string) => Promise<T>): Promise<T> {
  const dir = await Deno.makeTempDir({ prefix: "gw_config_" });
  try {
    return await use(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** The message of the error `loadConfigFile` throws for a file holding `text`. */
async function fileError(text: string): Promise<string> {
  return await withDir(async (dir) => {
    const path = `${dir}/gateway-api.json`;
    await Deno.writeTextFile(path, text);
    const error = await loadConfigFile(path).then(() => undefined, (error: unknown) => error);
    ok(error instanceof ConfigurationException, `expected a ConfigurationException, got ${error}`);
    return error.message.replace(path, "<path>");
  });
}

Deno.test("config secrets: a file that is not JSON(C) is reported by line and column, never quoted", async () => {
  const cases: Array<[string, string, string[]]> = [
    // An unquoted value: V8 quoted '..."api_key": evo-local-"...'.
    [`{\n  "api_key": ${KEY}\n}`, "Unexpected character at line 2, column 14", ["evo", "api_key"]],
    // A pasted .env: V8 quoted '"GATEWAY_AP"...'.
    [`GATEWAY_API_KEY=${KEY}\nGATEWAY_API_URL=http://x\n`, "Unexpected character at line 1, column 1", [
      "GATEWAY",
      "evo",
    ]],
    // /etc/shadow's first line: V8 quoted '"root:*:202"...'.
    ["root:*:20200:0:99999:7:::\ndaemon:*:20200:0:99999:7:::\n", "Unexpected character at line 1, column 1", [
      "root",
      "'r'",
    ]],
    [`{"api_key": "${KEY}" "x": 1}`, "Expected ',' or '}' after property value at line 1, column 45", [
      "evo",
    ]],
    [`{"list": ["${KEY}" 1]}`, "Expected ',' or ']' after array element at line 1, column 43", ["evo"]],
    [`{"api_key": "${KEY}`, "Unterminated string in JSON at line 1, column 13", ["evo"]],
    [`{"api_key": "${KEY}\\q"}`, "Bad escaped character in JSON at line 1, column 43", ["evo"]],
    [`{"api_key": -${KEY}}`, "No number after minus sign in JSON at line 1, column 14", ["evo"]],
    [`{"api_key" "${KEY}"}`, "Expected ':' after property name in JSON at line 1, column 12", ["evo"]],
    [`{"a": 1} ${KEY}`, "Unexpected non-whitespace character after JSON at line 1, column 10", ["evo"]],
    [`{"a": tr${KEY}}`, "Unexpected character at line 1, column 7", ["evo", "'t'"]],
    [`{ ${KEY}: 1 }`, "Expected property name or '}' at line 1, column 3", ["evo"]],
    [`{ "a": 1, ${KEY}: 1 }`, "Expected double-quoted property name at line 1, column 11", ["evo"]],
    ["", "Unexpected end of JSON input at line 1, column 1", []],
  ];
  for (const [text, reason, hidden] of cases) {
    const message = await fileError(text);
    strictEqual(message, `Cannot parse configuration file "<path>": ${reason}`, text);
    for (const part of hidden) ok(!message.includes(part), `${message} shows ${part}`);
    throws(() => parseJsonc(text), { name: "SyntaxError", message: reason });
  }
});

Deno.test("config secrets: a file linked to another file is never quoted either", async () => {
  await withDir(async (dir) => {
    await Deno.writeTextFile(`${dir}/shadow`, "root:*:20200:0:99999:7:::\n");
    await Deno.symlink(`${dir}/shadow`, `${dir}/gateway-api.json`);
    const error = await loadConfigFile(`${dir}/gateway-api.json`).catch((error: Error) => error);
    ok(error instanceof ConfigurationException);
    strictEqual(
      error.message,
      `Cannot parse configuration file "${dir}/gateway-api.json": Unexpected character at line 1, column 1`,
    );
  });
});

Deno.test("config secrets: a wrong type of a secret key never shows its value", () => {
  const cases: Array<[unknown, string]> = [
    [{ server_url: "http://x", api_key: 1234567890123 }, '"api_key" must be a string, got a number'],
    [{ server_url: 987654321, api_key: "k" }, '"server_url" must be a string, got a number'],
    [{ api_key: true, server_url: "http://x" }, '"api_key" must be a string, got a boolean'],
    [
      { webhook: { secret: 31415926535897 } },
      '"webhook.secret" must be a non-empty string or a non-empty array of non-empty strings, got a number',
    ],
    [
      { webhook: { secret: ["0123456789abcdef0123456789abcdef", 27182818284590] } },
      '"webhook.secret.1" must be a non-empty string, got a number',
    ],
    // A secret pasted where a section or a connection goes is a string in the wrong place: not shown either.
    [{ webhook: "s3cret-webhook-value" }, '"webhook" must be an object, got a string'],
    [{ connections: { main: KEY } }, '"connections.main" must be an object, got a string'],
    [{ connections: KEY }, '"connections" must be an object, got a string'],
  ];
  for (const [config, message] of cases) {
    throws(() => validateConfig(config), (error: unknown) => {
      ok(error instanceof ConfigurationException);
      strictEqual(error.message, message);
      return true;
    });
  }
  // A value that is not a secret is still shown: it helps to fix a typo.
  throws(() => validateConfig({ rate_limiting: { on_limit_reached: "wiat" } }), {
    message: '"rate_limiting.on_limit_reached" must be one of "wait", "throw", got "wiat"',
  });
});

Deno.test("config secrets: a path that is not a regular file is refused without being read", async () => {
  await withDir(async (dir) => {
    const fifo = `${dir}/gateway-api.json`;
    const made = await new Deno.Command("mkfifo", { args: [fifo] }).output();
    strictEqual(made.code, 0);
    // Reading a FIFO nobody writes to would wait forever: it is refused after a stat.
    await rejects(loadConfigFile(fifo), {
      name: "ConfigurationException",
      message: `Cannot read configuration file "${fifo}": not a regular file`,
    });
    await Deno.remove(fifo);
    await Deno.mkdir(fifo);
    await rejects(loadConfigFile(fifo), {
      message: `Cannot read configuration file "${fifo}": not a regular file`,
    });
    await Deno.remove(fifo);
    // A link to a FIFO is followed to the FIFO, and refused the same way.
    await new Deno.Command("mkfifo", { args: [`${dir}/pipe`] }).output();
    await Deno.symlink(`${dir}/pipe`, fifo);
    await rejects(loadConfigFile(fifo), {
      message: `Cannot read configuration file "${fifo}": not a regular file`,
    });
  });
});

Deno.test("config secrets: a file larger than 1 MiB is refused before it is parsed", async () => {
  await withDir(async (dir) => {
    const path = `${dir}/gateway-api.json`;
    await Deno.writeTextFile(path, `{"a": "${"x".repeat(1024 * 1024)}"}`);
    await rejects(loadConfigFile(path), {
      message: `Cannot read configuration file "${path}": larger than 1048576 bytes`,
    });
  });
});
