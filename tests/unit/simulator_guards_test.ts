import { deepStrictEqual, ok, strictEqual } from "node:assert/strict";
import { call, createInstance, KEY, newSim } from "../helpers/simulator.ts";

const UNAUTHORIZED = { status: 401, error: "Unauthorized", response: { message: "Unauthorized" } };

Deno.test("simulator: unknown instance is 404 before the key is looked at", async () => {
  const sim = newSim();
  for (const key of [null, "wrong", KEY]) {
    const res = await call(sim, "POST", "/message/sendText/ghost", { number: "1", text: "x" }, { key });
    strictEqual(res.status, 404);
    deepStrictEqual(res.body, {
      status: 404,
      error: "Not Found",
      response: { message: ['The "ghost" instance does not exist'] },
    });
  }
  await sim.close();
});

Deno.test("simulator: missing or wrong key on an existing instance is 401 with a string message", async () => {
  const sim = newSim();
  await createInstance(sim, "sales");
  for (const key of [null, "wrong"]) {
    const res = await call(sim, "GET", "/instance/connectionState/sales", undefined, { key });
    strictEqual(res.status, 401);
    deepStrictEqual(res.body, UNAUTHORIZED);
  }
  // The header name is case-insensitive.
  const ok200 = await call(sim, "GET", "/instance/connectionState/sales", undefined, {
    key: null,
    headers: { APIKEY: KEY },
  });
  strictEqual(ok200.status, 200);
  await sim.close();
});

Deno.test("simulator: an instance token works only for its own instance", async () => {
  const sim = newSim();
  const a = await createInstance(sim, "a", { token: "token-a" });
  const b = await createInstance(sim, "b");
  strictEqual(a, "token-a");
  ok(/^[0-9A-F-]{36}$/.test(b), b);
  strictEqual(
    (await call(sim, "GET", "/instance/connectionState/a", undefined, { key: "token-a" })).status,
    200,
  );
  strictEqual((await call(sim, "GET", "/instance/connectionState/b", undefined, { key: b })).status, 200);
  const cross = await call(sim, "GET", "/instance/connectionState/b", undefined, { key: "token-a" });
  strictEqual(cross.status, 401);
  deepStrictEqual(cross.body, UNAUTHORIZED);
  await sim.close();
});

Deno.test("simulator: create needs the global key, but a taken name is 403 first", async () => {
  const sim = newSim();
  await createInstance(sim, "sales", { token: "tok" });
  const body = { instanceName: "sales", integration: "WHATSAPP-BAILEYS" };
  for (const key of [null, "tok", KEY]) {
    const dup = await call(sim, "POST", "/instance/create", body, { key });
    strictEqual(dup.status, 403);
    deepStrictEqual(dup.body, {
      status: 403,
      error: "Forbidden",
      response: { message: ['This name "sales" is already in use.'] },
    });
  }
  const noName = await call(sim, "POST", "/instance/create", { integration: "WHATSAPP-BAILEYS" }, {
    key: null,
  });
  strictEqual(noName.status, 403);
  deepStrictEqual(noName.body.response.message, ['This name "undefined" is already in use.']);
  const tokenKey = await call(sim, "POST", "/instance/create", { ...body, instanceName: "other" }, {
    key: "tok",
  });
  strictEqual(tokenKey.status, 401);
  deepStrictEqual(tokenKey.body, UNAUTHORIZED);
  await sim.close();
});

Deno.test("simulator: create rejects a missing or unknown integration", async () => {
  const sim = newSim();
  for (const integration of [undefined, "TELEGRAM"]) {
    const res = await call(sim, "POST", "/instance/create", { instanceName: "x", integration });
    strictEqual(res.status, 400);
    deepStrictEqual(res.body, {
      status: 400,
      error: "Bad Request",
      response: { message: ["Invalid integration"] },
    });
  }
  const wrongType = await call(sim, "POST", "/instance/create", {
    instanceName: 5,
    integration: "EVOLUTION",
  });
  deepStrictEqual(wrongType.body.response.message, [["instanceName is not of a type(s) string"]]);
  const business = await call(sim, "POST", "/instance/create", {
    instanceName: "biz",
    integration: "WHATSAPP-BUSINESS",
    token: "meta-token",
  });
  deepStrictEqual(business.body.response.message, ["number is required"]);
  strictEqual(sim.instance("x"), undefined);
  await sim.close();
});

Deno.test("simulator: verify-creds needs the global key", async () => {
  const sim = newSim();
  await createInstance(sim, "sales", { token: "tok" });
  const good = await call(sim, "POST", "/verify-creds");
  strictEqual(good.status, 200);
  deepStrictEqual(good.body, { status: 200, message: "Credentials are valid" });
  strictEqual((await call(sim, "POST", "/verify-creds", undefined, { key: "tok" })).status, 401);
  await sim.close();
});

Deno.test("simulator: fetchInstances with an instance token lists only that instance", async () => {
  const sim = newSim();
  await createInstance(sim, "a", { token: "token-a" });
  await createInstance(sim, "b", { token: "token-b" });
  const all = await call(sim, "GET", "/instance/fetchInstances");
  deepStrictEqual(all.body.map((r: { name: string }) => r.name), ["a", "b"]);
  const own = await call(sim, "GET", "/instance/fetchInstances", undefined, { key: "token-b" });
  strictEqual(own.status, 200);
  deepStrictEqual(own.body.map((r: { name: string }) => r.name), ["b"]);
  strictEqual((await call(sim, "GET", "/instance/fetchInstances", undefined, { key: "nope" })).status, 401);
  const one = await call(sim, "GET", "/instance/fetchInstances?instanceName=a");
  strictEqual(one.body.length, 1);
  const missing = await call(sim, "GET", "/instance/fetchInstances?instanceName=zz");
  strictEqual(missing.status, 404);
  deepStrictEqual(missing.body.response.message, ['Instance "zz" not found']);
  await sim.close();
});

Deno.test("simulator: fetchInstances on an empty server is []", async () => {
  const sim = newSim();
  deepStrictEqual((await call(sim, "GET", "/instance/fetchInstances")).body, []);
  await sim.close();
});

Deno.test("simulator: unknown routes answer Express' 404, even with the wrong method", async () => {
  const sim = newSim();
  await createInstance(sim, "sales");
  const cases: [string, string, string][] = [
    ["POST", "/message/sendTxt/sales", "Cannot POST /message/sendTxt/sales"],
    ["GET", "/message/sendText/sales", "Cannot GET /message/sendText/sales"],
    ["POST", "/message/sendText", "Cannot POST /message/sendText"],
    ["GET", "/nothing?x=1", "Cannot GET /nothing?x=1"],
  ];
  for (const [method, path, message] of cases) {
    const res = await call(sim, method, path, method === "POST" ? {} : undefined, { key: null });
    strictEqual(res.status, 404, path);
    deepStrictEqual(res.body, { status: 404, error: "Not Found", response: { message: [message] } });
  }
  await sim.close();
});

Deno.test("simulator: GET / needs no key and reports version 2.3.6", async () => {
  const sim = newSim();
  const res = await call(sim, "GET", "/", undefined, { key: null });
  strictEqual(res.status, 200);
  strictEqual(res.headers.get("content-type"), "application/json; charset=utf-8");
  strictEqual(res.body.status, 200);
  strictEqual(res.body.message, "Welcome to the Evolution API, it is working!");
  strictEqual(res.body.version, "2.3.6");
  await sim.close();
});

Deno.test("simulator: a malformed JSON body is 400 before routing and guards", async () => {
  const sim = newSim();
  for (const path of ["/message/sendText/ghost", "/nowhere"]) {
    const res = await call(sim, "POST", path, undefined, { raw: "{bad", key: null });
    strictEqual(res.status, 400);
    strictEqual(res.body.status, 400);
    strictEqual(res.body.error, "Internal Server Error");
    strictEqual(typeof res.body.response.message, "string");
  }
  await sim.close();
});

Deno.test("simulator: the instance name is the last segment, percent-decoded; paths ignore case and a trailing slash", async () => {
  const sim = newSim();
  await createInstance(sim, "sales team");
  const res = await call(sim, "GET", "/instance/connectionState/sales%20team");
  deepStrictEqual(res.body, { instance: { instanceName: "sales team", state: "close" } });
  strictEqual((await call(sim, "GET", "/Instance/ConnectionState/sales%20team/")).status, 200);
  strictEqual(sim.requests.at(-1)?.instance, "sales team");
  strictEqual(sim.requests.at(-1)?.route, "GET /instance/connectionState");
  await sim.close();
});

Deno.test("simulator: license mode answers 503 everywhere but GET /", async () => {
  const sim = newSim({ licenseRequired: true });
  const res = await call(sim, "POST", "/instance/create", {
    instanceName: "a",
    integration: "WHATSAPP-BAILEYS",
  });
  strictEqual(res.status, 503);
  strictEqual(res.body.error, "service not activated");
  strictEqual(res.body.code, "LICENSE_REQUIRED");
  strictEqual(typeof res.body.register_url, "string");
  strictEqual(typeof res.body.instance_id, "string");
  strictEqual(typeof res.body.docs_url, "string");
  strictEqual(typeof res.body.message, "string");
  strictEqual((await call(sim, "GET", "/instance/fetchInstances")).status, 503);
  strictEqual((await call(sim, "GET", "/")).status, 200);
  await sim.close();
});
