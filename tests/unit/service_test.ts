import { deepStrictEqual, ok, rejects, strictEqual, throws } from "node:assert/strict";
import "../../src/testing/mod.ts";
import {
  GatewayApi,
  gatewayApi,
  GatewayApiException,
  GatewayService,
  InstanceNotFoundException,
} from "../../mod.ts";
import { json, scriptedFetch } from "../helpers/scripted_fetch.ts";

const BASE = "http://127.0.0.1:9";

function twoConnections(fetch: typeof globalThis.fetch) {
  return new GatewayService({
    default: "eu",
    connections: {
      eu: { server_url: "http://127.0.0.1:1", api_key: "key-eu", instance: "sales-eu" },
      us: { server_url: "http://127.0.0.1:2", api_key: "key-us", instance: "sales-us" },
    },
    rate_limiting: { enabled: false },
  }, { fetch });
}

Deno.test("service views bind a connection or an instance without changing other callers", async () => {
  const { fetch, calls } = scriptedFetch(Array.from({ length: 4 }, () => json(200, {})));
  const gw = twoConnections(fetch);
  const us = gw.connection("us");
  const support = gw.instance("support");
  const client = gw.getClient();
  strictEqual(us.getClient(), client);
  strictEqual(us.events, gw.events);
  strictEqual(gw.getConnectionName(), "eu");
  strictEqual(us.getConnectionName(), "us");
  strictEqual(us.getInstanceName(), "sales-us");
  strictEqual(support.getInstanceName(), "support");
  strictEqual(gw.getInstanceName(), "sales-eu");
  strictEqual(us.instance("x").getConnectionName(), "us");

  await Promise.all([gw.info(), us.info()]);
  deepStrictEqual(calls.map((call) => [call.url, call.headers.get("apikey")]), [
    ["http://127.0.0.1:1/", "key-eu"],
    ["http://127.0.0.1:2/", "key-us"],
  ]);

  // setActiveConnection changes the default for later calls only; bound views keep theirs.
  gw.getConnectionManager().setActiveConnection("us");
  strictEqual(gw.getConnectionName(), "us");
  strictEqual(gw.connection("eu").getConnectionName(), "eu");
  throws(() => gw.connection("nope"), GatewayApiException);
  throws(() => gw.instance(""), GatewayApiException);
});

Deno.test("service ping resolves true or false and never throws; info returns the welcome body", async () => {
  const welcome = { status: 200, message: "Welcome to the Evolution API, it is working!", version: "2.3.6" };
  const { fetch, calls } = scriptedFetch([json(200, welcome), json(500, "down"), new TypeError("refused")]);
  const gw = GatewayService.make({ server_url: BASE, api_key: "k", rate_limiting: { enabled: false } });
  const svc = new GatewayService(gw.getConfig(), { fetch });
  deepStrictEqual(await svc.info(), welcome);
  strictEqual(await svc.ping(), false);
  strictEqual(await svc.ping(), false);
  strictEqual(calls.length, 3);
});

Deno.test("service ping is true for a 2xx", async () => {
  const { fetch } = scriptedFetch([json(200, { version: "2.3.6" })]);
  const gw = new GatewayService({ server_url: BASE, api_key: "k" }, { fetch });
  strictEqual(await gw.ping(), true);
});

Deno.test("service fromEnv reads GATEWAY_* variables and refuses an empty environment", () => {
  throws(() => GatewayService.fromEnv({}, {}), /GATEWAY_API_URL is not set/);
  const gw = GatewayService.fromEnv({}, {
    GATEWAY_API_URL: "http://127.0.0.1:8080/",
    GATEWAY_API_KEY: "env-key",
    GATEWAY_INSTANCE: "env-instance",
  });
  deepStrictEqual(gw.getConnectionManager().getConnection(), {
    name: "default",
    server_url: "http://127.0.0.1:8080",
    api_key: "env-key",
    instance: "env-instance",
  });
});

Deno.test("service fromFile merges gateway-api.json with the environment", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = `${dir}/gateway-api.json`;
    await Deno.writeTextFile(
      path,
      JSON.stringify({ server_url: "http://127.0.0.1:7", api_key: "file-key", retry: { max_retries: 1 } }),
    );
    const gw = await GatewayService.fromFile(path);
    strictEqual(gw.getConnectionManager().getConnection().api_key, "file-key");
    strictEqual(gw.getConfig().retry?.max_retries, 1);
    await Deno.writeTextFile(path, "{not json");
    await rejects(
      GatewayService.fromFile(path),
      /Cannot parse configuration file ".*gateway-api.json": Expected property name or '}' at line 1, column 2/,
    );
    await rejects(
      GatewayService.fromFile(`${dir}/missing.json`),
      /no ".*missing.json" and GATEWAY_API_URL is not set/,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("service refuses invalid configuration sections with the key named", () => {
  throws(
    () => new GatewayService({ server_url: BASE, api_key: "k", http: { timeout_ms: Number.NaN } }),
    /"http.timeout_ms" must be an integer from 1 to 2147483647 \(ms\), got NaN/,
  );
  throws(
    () => new GatewayService({ server_url: BASE, api_key: "k", retry: { max_retries: -1 } }),
    /"retry.max_retries" must be an integer from 0 to 100, got -1/,
  );
});

Deno.test("GatewayApi facade and gatewayApi() send through one default service, a fake in tests", async () => {
  const fake = GatewayApi.fake({ instance: "sales" });
  try {
    strictEqual(gatewayApi(), gatewayApi(), "one default service, built once");
    ok(GatewayApi.message().constructor === GatewayApi.messages().constructor);
    await GatewayApi.message().text("5511999999999", "Your code is 4821");
    fake.assertMessageSent("5511999999999", "Your code is 4821");
    strictEqual(await GatewayApi.ping(), true);
  } finally {
    await fake.close();
  }
});

Deno.test("make builds named connections, and refuses a connection without server_url or api_key", () => {
  const gw = GatewayService.make({
    default: "eu",
    connections: { eu: { server_url: "http://127.0.0.1:1", api_key: "key-eu", instance: "sales-eu" } },
  });
  deepStrictEqual(gw.getConnectionManager().getConnectionNames(), ["eu"]);
  throws(() => GatewayService.make({ server_url: BASE }), /Cannot configure gateway: "api_key" is missing/);
  const noInstance = GatewayService.make({ server_url: BASE, api_key: "k" });
  throws(() => noInstance.getClient().resolveInstance(), InstanceNotFoundException);
});
