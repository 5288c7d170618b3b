// A send follows its data once: the configuration is checked once where it enters, a call's connection and
// instance are resolved once, and a guarded send makes no request of its own unless the breaker asks for its
// state probe. Counted with spies on the service's own objects and an injected fetch that counts requests.
import { deepStrictEqual, strictEqual } from "node:assert/strict";
import { GatewayService, MemoryStore } from "../../mod.ts";
import { KEY, newSim } from "../helpers/simulator.ts";

const SALES = { connection: "default", instance: "sales" };

/** A `limits` section that counts how often a configuration check walks it. */
function countedLimits() {
  const walks = { count: 0 };
  const limits = new Proxy({ messages: { max_attempts: 100, decay_seconds: 60 } }, {
    ownKeys(target) {
      walks.count++;
      return Reflect.ownKeys(target);
    },
  });
  return { limits, walks };
}

/** Counts, on this service's own client and connection manager, how often a call resolves its target. */
function countResolutions(gw: GatewayService) {
  const counts = { instance: 0, connection: 0 };
  const client = gw.getClient();
  const manager = client.getConnectionManager();
  const resolveInstance = client.resolveInstance.bind(client);
  const getConnection = manager.getConnection.bind(manager);
  client.resolveInstance = (...args) => (counts.instance++, resolveInstance(...args));
  manager.getConnection = (...args) => (counts.connection++, getConnection(...args));
  return counts;
}

function service(sim: ReturnType<typeof newSim>, now: () => number, store?: MemoryStore) {
  return new GatewayService(
    { server_url: "http://gateway.test", api_key: KEY, instance: "sales", retry: { max_retries: 0 }, store },
    { fetch: sim.fetch, now, sleep: () => Promise.resolve() },
  );
}

Deno.test("make, fromEnv and fromFile check each configuration object once", async () => {
  const made = countedLimits();
  GatewayService.make({
    server_url: "http://127.0.0.1:1",
    api_key: "k",
    rate_limiting: { limits: made.limits },
  });
  const env = countedLimits();
  GatewayService.fromEnv({ rate_limiting: { limits: env.limits } }, {
    GATEWAY_API_URL: "http://127.0.0.1:1",
    GATEWAY_API_KEY: "k",
  });
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(
      `${dir}/gateway-api.json`,
      '{ "server_url": "http://127.0.0.1:1", "api_key": "k" }',
    );
    const file = countedLimits();
    await GatewayService.fromFile(`${dir}/gateway-api.json`, { rate_limiting: { limits: file.limits } }, {});
    deepStrictEqual([made.walks.count, env.walks.count, file.walks.count], [1, 1, 1]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a resource call resolves its connection and instance once", async () => {
  await using sim = newSim();
  sim.addInstance("sales", { open: true });
  const gw = service(sim, () => 1_700_000_000_000);
  const counts = countResolutions(gw);
  await gw.chats().fetchAll();
  deepStrictEqual(counts, { instance: 0, connection: 1 });
  // connectionState records the state it read under the instance's name: resolved once for both (the
  // second lookup is the request's own connection).
  const state = countResolutions(gw);
  await gw.instances().connectionState();
  deepStrictEqual(state, { instance: 1, connection: 2 });
});

Deno.test("a send with resolve: true resolves its instance once, and each request its connection once", async () => {
  await using sim = newSim();
  sim.addInstance("sales", { open: true });
  const now = () => 1_700_000_000_000;
  const gw = service(sim, now, new MemoryStore({ now }));
  const asked = countResolutions(gw);
  const first = await gw.messages().text("5511999999999", "Hi", {}, { resolve: true });
  strictEqual(first.resolvedJid, "5511999999999@s.whatsapp.net");
  // Two requests (whatsappNumbers, then the send): one connection lookup each, and one for the cache key.
  deepStrictEqual(asked, { instance: 1, connection: 3 });
  const cached = countResolutions(gw);
  await gw.messages().text("5511999999999", "Hi again", {}, { resolve: true });
  deepStrictEqual(cached, { instance: 1, connection: 2 });
});

Deno.test("a guarded send makes one request; only the half-open state probe adds its one poll", async () => {
  await using sim = newSim();
  sim.addInstance("sales", { open: true });
  let t = 1_700_000_000_000;
  const routes: string[] = [];
  const gw = new GatewayService(
    { server_url: "http://gateway.test", api_key: KEY, instance: "sales", retry: { max_retries: 0 } },
    {
      fetch: (input, init) => {
        routes.push(`${init?.method} ${new URL(String(input)).pathname}`);
        return sim.fetch(input, init);
      },
      now: () => t,
      sleep: () => Promise.resolve(),
    },
  );
  const sendText = () => gw.messages().text("5511999999999", "Hi");
  await sendText();
  await gw.health().recordConnectionUpdate(SALES, { state: "close", statusReason: 401 });
  t += 10 * 60_000;
  await sendText();
  await sendText();
  deepStrictEqual(routes, [
    "POST /message/sendText/sales",
    "GET /instance/connectionState/sales",
    "POST /message/sendText/sales",
    "POST /message/sendText/sales",
  ]);
});
