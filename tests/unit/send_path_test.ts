import { deepStrictEqual, match, ok, rejects, strictEqual } from "node:assert/strict";
import {
  ConnectionException,
  GatewayService,
  InstanceDisconnectedException,
  MemoryStore,
  type StateStore,
} from "../../mod.ts";
import { BASE, KEY, newSim } from "../helpers/simulator.ts";

const ANSWER = { key: { remoteJid: "5511999999999@s.whatsapp.net", fromMe: true, id: "3EB0A1" } };

/** A fetch answering 201 after a macrotask, that honours its signal like a real fetch. */
function slowFetch(calls: RequestInit[]): typeof fetch {
  return (_input, init) => {
    calls.push(init ?? {});
    return new Promise((resolve, reject) => {
      const signal = init?.signal;
      if (signal?.aborted) return reject(signal.reason);
      const timer = setTimeout(() => resolve(Response.json(ANSWER, { status: 201 })), 5);
      signal?.addEventListener("abort", () => {
        clearTimeout(timer);
        reject(signal.reason);
      }, { once: true });
    });
  };
}

Deno.test("a timeout and deadline of 2^31-1 ms (the largest accepted) work: the timers are clamped, not fired at once", async () => {
  const calls: RequestInit[] = [];
  const gw = new GatewayService({
    server_url: BASE,
    api_key: KEY,
    instance: "sales",
    rate_limiting: { enabled: false },
    http: { timeout_ms: 2_147_483_647, deadline_ms: 2_147_483_647 },
  }, { fetch: slowFetch(calls) });
  const sent = await gw.messages().text("5511999999999", "Hello", { delay: 1200 });
  strictEqual(sent.json("key.id"), "3EB0A1");
  const read = await gw.getClient().request("GET", "/instance/connectionState/{instance}");
  strictEqual(read.status, 201);
  strictEqual(calls.length, 2);
  strictEqual(calls.every((init) => init.signal?.aborted === false), true);
});

Deno.test("a refused connection names the host and port and says refused", async () => {
  // A port nobody listens on: bind one, note it, close it.
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  const gw = GatewayService.make({
    server_url: `http://127.0.0.1:${port}`,
    api_key: KEY,
    instance: "sales",
    retry: { max_retries: 0 },
  });
  await rejects(gw.instances().connectionState(), (error: unknown) => {
    ok(error instanceof ConnectionException);
    strictEqual(
      error.message,
      `Cannot reach gateway server for GET /instance/connectionState/sales: connection refused by 127.0.0.1:${port}`,
    );
    strictEqual(error.reason, "network");
    return true;
  });
});

Deno.test("fetch failures name the cause: DNS, TLS, a closed connection, a timeout", async () => {
  const failWith = (inner: string): typeof fetch => () =>
    Promise.reject(new TypeError("fetch failed", { cause: new Error(inner) }));
  const cases: [string, string, string][] = [
    [
      "http://gateway.invalid:8080",
      "error sending request: client error (Connect): dns error: failed to lookup address information",
      'cannot resolve host "gateway.invalid" (for gateway.invalid:8080)',
    ],
    [
      "https://gateway.test",
      "client error (Connect): received corrupt message of type InvalidContentType",
      "TLS handshake with gateway.test:443 failed (client error (Connect): received corrupt message of type InvalidContentType)",
    ],
    [
      "http://gateway.test",
      "client error (SendRequest): connection closed before message completed",
      "connection to gateway.test:80 closed before the answer (client error (SendRequest): connection closed before message completed)",
    ],
  ];
  for (const [url, inner, said] of cases) {
    const gw = new GatewayService(
      { server_url: url, api_key: KEY, instance: "sales", retry: { max_retries: 0 } },
      { fetch: failWith(inner) },
    );
    await rejects(gw.instances().connectionState(), (error: unknown) => {
      ok(error instanceof ConnectionException);
      strictEqual(
        error.message,
        `Cannot reach gateway server for GET /instance/connectionState/sales: ${said}`,
      );
      return true;
    });
  }
  const hung: typeof fetch = (_input, init) =>
    new Promise((_resolve, reject) =>
      init?.signal?.addEventListener("abort", () => reject(init.signal!.reason))
    );
  const gw = new GatewayService(
    { server_url: "http://127.0.0.1:8080", api_key: KEY, instance: "sales", retry: { max_retries: 0 } },
    { fetch: hung },
  );
  await rejects(gw.instances().connectionState(undefined, { timeoutMs: 20 }), (error: unknown) => {
    ok(error instanceof ConnectionException);
    strictEqual(
      error.message,
      "Cannot complete GET /instance/connectionState/sales: no answer from 127.0.0.1:8080 within 20 ms",
    );
    strictEqual(error.timedOut, true);
    return true;
  });
});

Deno.test("POST /chat/whatsappNumbers on an instance that is not connected is InstanceDisconnectedException", async () => {
  await using sim = newSim();
  sim.addInstance("never");
  sim.addInstance("dropped", { open: true });
  sim.simulateDisconnect("dropped", 428);
  const gw = new GatewayService({ server_url: BASE, api_key: KEY, rate_limiting: { enabled: false } }, {
    fetch: sim.fetch,
  });
  for (const [instance, body] of [["dropped", /Connection Closed/], ["never", /^\{\}$/]] as const) {
    await rejects(gw.instance(instance).chats().isOnWhatsApp("5511999999999"), (error: unknown) => {
      ok(error instanceof InstanceDisconnectedException, String(error));
      strictEqual(error.status, 400);
      strictEqual(error.instance, instance);
      strictEqual(error.local, false);
      strictEqual(error.notSent, true);
      match(
        error.message,
        new RegExp(
          `^Cannot POST /chat/whatsappNumbers/${instance}: instance "${instance}" is not connected.* \\(pair it: deno run -A jsr:@gw\\/gateway\\/cli connect ${instance}\\)$`,
        ),
      );
      match(JSON.stringify(error.body), body);
      return true;
    });
  }
});

/** A state store that notes which namespaces are touched. */
function watchedState(inner: StateStore): { state: StateStore; touched: Set<string> } {
  const touched = new Set<string>();
  const state = new Proxy(inner, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver);
      if (typeof value !== "function") return value;
      return (namespace: string, ...rest: unknown[]) => {
        touched.add(namespace);
        return value.call(target, namespace, ...rest);
      };
    },
  });
  return { state, touched };
}

Deno.test("a stage whose feature is off does no work: no key, no claim; no store, no record", async () => {
  const calls: RequestInit[] = [];
  const store = new MemoryStore();
  const { state, touched } = watchedState(store.state);
  (store as { state: StateStore }).state = state;
  const gw = new GatewayService(
    { server_url: BASE, api_key: KEY, instance: "sales", rate_limiting: { enabled: false }, store },
    { fetch: slowFetch(calls) },
  );
  await gw.messages().text("5511999999999", "no key");
  strictEqual(touched.has("idempotency"), false);
  strictEqual((await store.listOutbound()).length, 1);
  await gw.messages().text("5511999999999", "with a key", {}, { idempotencyKey: "order-1" });
  strictEqual(touched.has("idempotency"), true);
  deepStrictEqual((await store.listOutbound()).map((record) => record.status), ["sent", "sent"]);

  // Views share the one pipeline and its claims: the same key from another view replays.
  const replay = await gw.instance("sales").messages().text("5511999999999", "with a key", {}, {
    idempotencyKey: "order-1",
  });
  strictEqual(replay.replayed, true);
  strictEqual(calls.length, 2);
});
