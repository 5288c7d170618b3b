import { deepStrictEqual } from "node:assert/strict";
import { checkConnection } from "../../src/cli/health.ts";
import { GatewayService } from "../../src/service.ts";

function fakeServer(routes: Record<string, [number, unknown]>): typeof fetch {
  return (input: RequestInfo | URL) => {
    const path = new URL(input instanceof Request ? input.url : String(input)).pathname;
    const [status, body] = routes[path] ??
      [404, { status: 404, error: "Not Found", response: { message: ["nope"] } }];
    return Promise.resolve(Response.json(body, { status }));
  };
}

const UNAUTHORIZED: [number, unknown] = [401, {
  status: 401,
  error: "Unauthorized",
  response: { message: "Unauthorized" },
}];

Deno.test("cli health: an instance token refused by fetchInstances is checked on the instance's own route", async () => {
  const gw = new GatewayService({
    server_url: "http://gateway.test",
    api_key: "instance-token",
    instance: "sales",
    rate_limiting: { enabled: false },
    fetch: fakeServer({
      "/": [200, { status: 200, version: "2.3.6" }],
      "/instance/fetchInstances": UNAUTHORIZED,
      "/instance/connectionState/sales": [200, { instance: { instanceName: "sales", state: "connecting" } }],
    }),
  });
  const result = await checkConnection(gw, "default", 1000);
  deepStrictEqual({ ...result, latencyMs: 0 }, {
    name: "default",
    serverUrl: "http://gateway.test",
    ok: true,
    reachable: true,
    version: "2.3.6",
    latencyMs: 0,
    authorized: true,
    instance: "sales",
    instances: [{
      name: "sales",
      state: "connecting",
      health: "connecting",
      breaker: "closed",
      reason: null,
    }],
    error: null,
  });
});

Deno.test("cli health: refused on both routes, or the instance missing, fails the connection", async () => {
  const refused = new GatewayService({
    server_url: "http://gateway.test",
    api_key: "bad",
    instance: "sales",
    rate_limiting: { enabled: false },
    fetch: fakeServer({
      "/": [200, { version: "2.3.6" }],
      "/instance/fetchInstances": UNAUTHORIZED,
      "/instance/connectionState/sales": UNAUTHORIZED,
    }),
  });
  const a = await checkConnection(refused, "default", 1000);
  deepStrictEqual([a.ok, a.authorized, a.error], [
    false,
    false,
    "api key was refused: Gateway refused GET /instance/connectionState/sales (401): Unauthorized",
  ]);
  const missing = new GatewayService({
    server_url: "http://gateway.test",
    api_key: "token",
    instance: "ghost",
    rate_limiting: { enabled: false },
    fetch: fakeServer({
      "/": [200, { version: "2.3.6" }],
      "/instance/fetchInstances": UNAUTHORIZED,
      "/instance/connectionState/ghost": [404, {
        status: 404,
        error: "Not Found",
        response: { message: ['The "ghost" instance does not exist'] },
      }],
    }),
  });
  const b = await checkConnection(missing, "default", 1000);
  deepStrictEqual([b.ok, b.authorized, b.error], [
    false,
    null,
    'instance "ghost" does not exist on the server (create it: deno task create ghost)',
  ]);
});
