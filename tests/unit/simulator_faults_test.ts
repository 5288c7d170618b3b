import { deepStrictEqual, ok, rejects, strictEqual, throws } from "node:assert/strict";
import { SimulatedConnectionDrop } from "../../src/testing/mod.ts";
import { BASE, call, KEY, newSim, openInstance } from "../helpers/simulator.ts";

const TEXT = { number: "5511999999999", text: "Hi" };

Deno.test("faults: failNext answers the scripted status the given number of times", async () => {
  const sim = newSim();
  await openInstance(sim);
  sim.failNext({ route: "POST /message/sendText", status: 503, times: 2, retryAfter: 3 });
  for (let i = 0; i < 2; i++) {
    const res = await call(sim, "POST", "/message/sendText/sales", TEXT);
    strictEqual(res.status, 503);
    strictEqual(res.headers.get("retry-after"), "3");
    deepStrictEqual(res.body, {
      status: 503,
      error: "Service Unavailable",
      response: { message: "Service Unavailable" },
    });
  }
  strictEqual((await call(sim, "POST", "/message/sendText/sales", TEXT)).status, 201);
  // The failed attempts reached no route: nothing was sent.
  strictEqual(sim.sentMessages.length, 1);
  await sim.close();
});

Deno.test("faults: route selectors: method + path, any method, with an instance placeholder, by instance", async () => {
  const sim = newSim();
  await openInstance(sim);
  sim.failNext({ route: "/instance/connectionState", status: 500 });
  strictEqual((await call(sim, "GET", "/instance/connectionState/sales")).status, 500);
  sim.failNext({ route: "GET /message/sendText", status: 500 });
  strictEqual((await call(sim, "POST", "/message/sendText/sales", TEXT)).status, 201);
  sim.clearFaults();
  sim.failNext({ route: "POST /message/sendText/{instance}", status: 502 });
  strictEqual((await call(sim, "POST", "/message/sendText/sales", TEXT)).status, 502);
  sim.failNext({ route: "/message/sendText/:instanceName", status: 502, instance: "other" });
  strictEqual((await call(sim, "POST", "/message/sendText/sales", TEXT)).status, 201);
  sim.clearFaults();
  sim.failNext({ status: 429, body: "slow down", headers: { "x-why": "test" } });
  const any = await call(sim, "GET", "/", undefined, { key: null });
  strictEqual(any.status, 429);
  strictEqual(any.body, "slow down");
  strictEqual(any.headers.get("x-why"), "test");
  throws(() => sim.failNext({ route: "message/sendText", status: 500 }), /Cannot use route selector/);
  await sim.close();
});

Deno.test("faults: a scripted failure comes before the guards", async () => {
  const sim = newSim();
  sim.failNext({ route: "POST /message/sendText", status: 500, body: { custom: true } });
  const res = await call(sim, "POST", "/message/sendText/ghost", TEXT, { key: null });
  strictEqual(res.status, 500);
  deepStrictEqual(res.body, { custom: true });
  await sim.close();
});

Deno.test("faults: dropConnection rejects like fetch, once by default", async () => {
  const sim = newSim();
  await openInstance(sim);
  sim.dropConnection("POST /message/sendText");
  await rejects(
    () => call(sim, "POST", "/message/sendText/sales", TEXT),
    (error: unknown) => error instanceof TypeError && error instanceof SimulatedConnectionDrop,
  );
  strictEqual((await call(sim, "POST", "/message/sendText/sales", TEXT)).status, 201);
  sim.dropConnection("/instance/connectionState", { times: 2 });
  await rejects(() => call(sim, "GET", "/instance/connectionState/sales"), TypeError);
  await rejects(() => call(sim, "GET", "/instance/connectionState/sales"), TypeError);
  strictEqual((await call(sim, "GET", "/instance/connectionState/sales")).status, 200);
  await sim.close();
});

Deno.test("faults: delay holds the answer and honours the request's signal", async () => {
  const sim = newSim();
  await openInstance(sim);
  sim.delay("GET /instance/connectionState", 60_000);
  const controller = new AbortController();
  const pending = sim.handle(
    new Request(`${BASE}/instance/connectionState/sales`, {
      headers: { apikey: KEY },
      signal: controller.signal,
    }),
  );
  controller.abort(new DOMException("client gave up", "AbortError"));
  await rejects(pending, (error: unknown) => error instanceof DOMException && error.name === "AbortError");
  sim.clearFaults();
  const before = sim.requests.length;
  await rejects(
    sim.handle(
      new Request(`${BASE}/instance/connectionState/sales`, {
        headers: { apikey: KEY },
        signal: controller.signal,
      }),
    ),
    (error: unknown) => error instanceof DOMException && error.name === "AbortError",
  );
  strictEqual(sim.requests.length, before);
  sim.delay("/instance/connectionState", 1, { times: 1 });
  strictEqual((await call(sim, "GET", "/instance/connectionState/sales")).status, 200);
  await sim.close();
});

Deno.test("faults: reset aborts delays in flight", async () => {
  const sim = newSim();
  await openInstance(sim);
  sim.delay("/instance/connectionState", 60_000);
  const pending = call(sim, "GET", "/instance/connectionState/sales");
  // The request is logged before the delay starts.
  while (sim.requests.length < 3) await Promise.resolve();
  sim.reset();
  await rejects(pending, (error: unknown) => error instanceof DOMException && error.name === "AbortError");
  await sim.close();
});

Deno.test("faults: the request log keeps method, path, query, headers and body", async () => {
  const sim = newSim();
  await openInstance(sim);
  await call(sim, "POST", "/message/sendText/sales?x=1", TEXT, { headers: { "X-Trace": "abc" } });
  const entry = sim.requests.at(-1)!;
  strictEqual(entry.method, "POST");
  strictEqual(entry.path, "/message/sendText/sales");
  deepStrictEqual(entry.query, { x: "1" });
  strictEqual(entry.headers.apikey, KEY);
  strictEqual(entry.headers["x-trace"], "abc");
  deepStrictEqual(entry.body, TEXT);
  strictEqual(entry.route, "POST /message/sendText");
  strictEqual(entry.instance, "sales");
  await call(sim, "GET", "/nowhere");
  strictEqual(sim.requests.at(-1)?.route, undefined);
  await sim.close();
});

Deno.test("faults: reset forgets instances, logs and faults", async () => {
  const sim = newSim();
  await openInstance(sim);
  await call(sim, "POST", "/message/sendText/sales", TEXT);
  sim.failNext({ status: 500, times: 5 });
  sim.setNotOnWhatsApp("5511999999999");
  sim.reset();
  strictEqual(sim.instance("sales"), undefined);
  strictEqual(sim.requests.length, 0);
  strictEqual(sim.sentMessages.length, 0);
  strictEqual(sim.events.length, 0);
  strictEqual(sim.deliveries.length, 0);
  await openInstance(sim);
  strictEqual((await call(sim, "POST", "/message/sendText/sales", TEXT)).status, 201);
  ok(sim.requests.length > 0);
  await sim.close();
});
