import { deepStrictEqual, ok, strictEqual, throws } from "node:assert/strict";
import { ConfigurationException, ConnectionManager, GatewayException, GatewayService } from "../../mod.ts";
import { validateConnection } from "../../src/client/connection_manager.ts";

const KEY = "k-secret-value";

function message(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    ok(error instanceof GatewayException);
    ok(!error.message.includes(KEY));
    return error.message;
  }
  throw new Error("expected a throw");
}

Deno.test("connection manager builds the default connection from the shorthand keys", () => {
  const manager = new ConnectionManager({
    server_url: "http://localhost:8080/",
    api_key: KEY,
    instance: "sales",
  });
  deepStrictEqual(manager.getConnection(), {
    name: "default",
    server_url: "http://localhost:8080",
    api_key: KEY,
    instance: "sales",
  });
  deepStrictEqual(manager.getConnectionNames(), ["default"]);
  strictEqual(manager.getActiveConnectionName(), "default");
});

Deno.test("connection manager keeps named connections, a configured default and runtime additions", () => {
  const manager = new ConnectionManager({
    default: "eu",
    connections: {
      eu: { server_url: "https://eu.example.com/api//", api_key: KEY, timeout_ms: 5000 },
      us: { server_url: "https://us.example.com", api_key: KEY },
    },
  });
  strictEqual(manager.getConnection().server_url, "https://eu.example.com/api");
  strictEqual(manager.getConnection().timeout_ms, 5000);
  manager.addConnection("br", { server_url: "http://10.0.0.1:8080", api_key: KEY });
  ok(manager.hasConnection("br"));
  manager.setActiveConnection("us");
  strictEqual(manager.getConnection().name, "us");
  strictEqual(manager.removeConnection("br"), true);
  strictEqual(manager.hasConnection("br"), false);
  strictEqual(
    message(() => manager.removeConnection("us")),
    'Cannot remove connection "us": it is the active connection',
  );
});

Deno.test("connection manager names the connection and the field in every validation error", () => {
  const cases: Array<[unknown, string]> = [
    [{ api_key: KEY }, 'Invalid connection "c": "server_url" is missing'],
    [
      { server_url: "localhost:8080", api_key: KEY },
      'Invalid connection "c": "server_url" must use http or https, got "localhost"',
    ],
    [
      { server_url: "not a url", api_key: KEY },
      'Invalid connection "c": "server_url" must be an absolute http(s) URL',
    ],
    [
      { server_url: "ftp://x", api_key: KEY },
      'Invalid connection "c": "server_url" must use http or https, got "ftp"',
    ],
    [
      { server_url: `http://user:${KEY}@x`, api_key: KEY },
      'Invalid connection "c": "server_url" must not carry credentials; put the key in "api_key"',
    ],
    [
      { server_url: "http://x/?a=1", api_key: KEY },
      'Invalid connection "c": "server_url" must not have a query string or fragment',
    ],
    [
      { server_url: "http://x#f", api_key: KEY },
      'Invalid connection "c": "server_url" must not have a query string or fragment',
    ],
    [{ server_url: "http://x" }, 'Invalid connection "c": "api_key" is missing or blank'],
    [{ server_url: "http://x", api_key: "   " }, 'Invalid connection "c": "api_key" is missing or blank'],
    [
      { server_url: "http://x", api_key: ` ${KEY}` },
      'Invalid connection "c": "api_key" has leading or trailing whitespace',
    ],
    [
      { server_url: "http://x", api_key: KEY, timeout_ms: -1 },
      '"connections.c.timeout_ms" must be an integer from 1 to 2147483647 (ms), got -1',
    ],
    [
      { server_url: "http://x", api_key: KEY, timeout_ms: 2 ** 31 },
      '"connections.c.timeout_ms" must be an integer from 1 to 2147483647 (ms), got 2147483648',
    ],
    [
      { server_url: "http://x", apiKey: KEY },
      '"connections.c.apiKey" is not a configuration key; did you mean "connections.c.api_key"?',
    ],
  ];
  for (const [config, expected] of cases) {
    strictEqual(message(() => validateConnection("c", config)), expected);
  }
});

Deno.test("connection manager refuses an api key that is not a header-safe token, without echoing it", () => {
  const unsafe = [
    `${KEY}\r`,
    `a${KEY}\r\nx-injected: 1`,
    `${KEY.slice(0, 4)} ${KEY.slice(4)}`,
    `${KEY}\u0000z`,
    `${KEY}é`,
  ];
  for (const apiKey of unsafe) {
    for (
      const build of [
        () => GatewayService.make({ server_url: "http://x", api_key: apiKey }),
        () => new GatewayService({ connections: { eu: { server_url: "http://x", api_key: apiKey } } }),
        () => new ConnectionManager().addConnection("eu", { server_url: "http://x", api_key: apiKey }),
      ]
    ) {
      throws(build, (error: unknown) => {
        ok(error instanceof ConfigurationException);
        ok(error.setting === "api_key" || error.setting === "connections.eu.api_key", error.setting);
        ok(!error.message.includes(KEY.slice(0, 4)), error.message);
        ok(!JSON.stringify(error).includes(KEY.slice(0, 4)));
        ok(/"api_key" (must be a header-safe token|has leading or trailing whitespace)/.test(error.message));
        return true;
      });
    }
  }
  // Every visible ASCII character is allowed.
  const visible = Array.from({ length: 94 }, (_, i) => String.fromCharCode(0x21 + i)).join("");
  strictEqual(validateConnection("c", { server_url: "http://x", api_key: visible }).api_key, visible);
});

Deno.test("connection manager refuses unknown names with the configured list", () => {
  const manager = new ConnectionManager({ server_url: "http://x", api_key: KEY });
  strictEqual(
    message(() => manager.getConnection("nope")),
    'Unknown connection "nope" (configured: "default")',
  );
  strictEqual(
    message(() => manager.setActiveConnection("nope")),
    'Unknown connection "nope" (configured: "default")',
  );
  throws(() => new ConnectionManager({ default: "x" }), /default connection "x" is not defined/);
});
