import { deepStrictEqual, ok, rejects, strictEqual } from "node:assert/strict";
import { GatewayService, InstanceNotFoundException } from "../../mod.ts";
import { CASES } from "../fixtures/resources_cases.ts";
import { fakeFetch, makeService } from "../fixtures/resources_server.ts";

Deno.test("gw.instance(name) binds the instance; the connection's default stays for the parent", async () => {
  const { gw, calls } = makeService();
  await gw.instance("a").messages().text("5511999999999", "Hi");
  await gw.messages().text("5511999999999", "Hi");
  deepStrictEqual(calls.map((call) => call.path), ["/message/sendText/a", "/message/sendText/sales"]);
});

Deno.test("the instance is percent-encoded as one last path segment", async () => {
  const { gw, calls } = makeService();
  await gw.instance("sales team/1?x").chats().findContacts();
  await gw.instances().delete("a b");
  deepStrictEqual(calls.map((call) => call.path), [
    "/chat/findContacts/sales%20team%2F1%3Fx",
    "/instance/delete/a%20b",
  ]);
});

Deno.test("a per-call instance option wins over the bound one", async () => {
  const { gw, calls } = makeService();
  await gw.instance("a").groups().fetchAllGroups({ instance: "b" });
  await gw.messages().text("5511999999999", "Hi", {}, { instance: "c" });
  deepStrictEqual(calls.map((call) => call.path), ["/group/fetchAllGroups/b", "/message/sendText/c"]);
});

Deno.test("connection(name) uses that connection's server, key and default instance", async () => {
  const { calls, fetch } = fakeFetch();
  const gw = new GatewayService({
    default: "eu",
    connections: {
      eu: { server_url: "http://127.0.0.1:9", api_key: "k-eu", instance: "sales" },
      us: { server_url: "http://127.0.0.1:10", api_key: "k-us", instance: "support" },
    },
    rate_limiting: { enabled: false },
  }, { fetch });
  await gw.connection("us").settings().get();
  await gw.settings().get();
  deepStrictEqual(calls.map((call) => [call.path, call.headers.get("apikey")]), [
    ["/settings/find/support", "k-us"],
    ["/settings/find/sales", "k-eu"],
  ]);
});

Deno.test("no instance anywhere: every instance-level method throws InstanceNotFoundException before any request", async () => {
  const { calls, fetch } = fakeFetch();
  const gw = new GatewayService({
    server_url: "http://127.0.0.1:9",
    api_key: "k",
    rate_limiting: { enabled: false },
  }, {
    fetch,
  });
  let checked = 0;
  for (const testCase of CASES) {
    if (testCase.expect.every((request) => !request.path.includes("/sales"))) continue;
    await rejects(testCase.call(gw), (error) => {
      ok(error instanceof InstanceNotFoundException, `${testCase.id}: ${String(error)}`);
      ok(error.message.includes("gw.instance(name)"), error.message);
      return true;
    });
    checked++;
  }
  strictEqual(calls.length, 0);
  ok(checked > 80, `only ${checked} methods checked`);
});

Deno.test("instances() methods given a name need no bound instance; create and fetchAll need none at all", async () => {
  const { calls, fetch } = fakeFetch();
  const gw = new GatewayService({
    server_url: "http://127.0.0.1:9",
    api_key: "k",
    rate_limiting: { enabled: false },
  }, {
    fetch,
  });
  await gw.instances().create("shop");
  await gw.instances().fetchAll();
  await gw.instances().connectionState("shop");
  await gw.instances().logout("shop");
  deepStrictEqual(calls.map((call) => `${call.method} ${call.path}`), [
    "POST /instance/create",
    "GET /instance/fetchInstances",
    "GET /instance/connectionState/shop",
    "DELETE /instance/logout/shop",
  ]);
});
