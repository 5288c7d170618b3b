// WebSocketSource against a local socket.io server that behaves like the gateway server's (handshake key
// check, namespace per instance, the webhook envelope), with the simulated server behind `setup` and the
// reconciler. No sleeping: the reconnect wait is a gate the test opens, and each step waits for the line
// the source says or the handler it runs.
import { deepStrictEqual, ok, rejects, strictEqual, throws } from "node:assert/strict";
import { MemoryStore } from "../../src/backends/memory/store.ts";
import { Bot } from "../../src/bot/mod.ts";
import { AuthenticationException, ConfigurationException, ConnectionException } from "../../src/errors.ts";
import { GatewayService } from "../../src/service.ts";
import { WebSocketSource, type WebSocketSourceOptions } from "../../src/sources/websocket/mod.ts";
import type { GatewaySimulator } from "../../src/testing/mod.ts";
import { WebhookProcessor } from "../../src/webhooks/processor.ts";
import { type EvolutionSocketIo, startEvolutionSocketIo } from "../helpers/evolution_socketio.ts";
import { BASE, call, KEY, newSim } from "../helpers/simulator.ts";

const NOW = Date.UTC(2026, 10, 23, 12, 0, 0);
const PHONE = "5511900000001";

/** Lines the source says, and a way to wait for one. */
function logLines() {
  const lines: string[] = [];
  const waiting: { match: RegExp; count: number; resolve: () => void }[] = [];
  const log = (line: string) => {
    lines.push(line);
    for (const wait of [...waiting]) {
      if (lines.filter((l) => wait.match.test(l)).length >= wait.count) {
        waiting.splice(waiting.indexOf(wait), 1);
        wait.resolve();
      }
    }
  };
  const until = (match: RegExp, count = 1) =>
    lines.filter((l) => match.test(l)).length >= count
      ? Promise.resolve()
      : new Promise<void>((resolve) => waiting.push({ match, count, resolve }));
  return { lines, log, until };
}

/** A sleep the test releases: each call is recorded and waits until `release()`. */
function gatedSleep() {
  const delays: number[] = [];
  let open: (() => void) | undefined;
  let called: (() => void) | undefined;
  let calledPromise = new Promise<void>((resolve) => called = resolve);
  const sleep = (ms: number) => {
    delays.push(ms);
    called!();
    return new Promise<void>((resolve) => open = resolve);
  };
  return {
    delays,
    sleep,
    /** Resolves when the next wait has started. */
    nextCall: () => calledPromise,
    release: () => {
      calledPromise = new Promise<void>((resolve) => called = resolve);
      open!();
    },
  };
}

interface World {
  sim: GatewaySimulator;
  store: MemoryStore;
  gw: GatewayService;
  io: EvolutionSocketIo;
}

async function world(): Promise<World> {
  const store = new MemoryStore({ now: () => NOW });
  const sim = newSim({ now: () => NOW, sleep: () => Promise.resolve() });
  sim.addInstance("sales", { open: true });
  const gw = new GatewayService({ server_url: BASE, api_key: KEY, store }, {
    fetch: sim.fetch,
    now: () => NOW,
  });
  const io = await startEvolutionSocketIo(KEY);
  io.open("sales");
  return { sim, store, gw, io };
}

function options(w: World, extra: Partial<WebSocketSourceOptions> = {}): WebSocketSourceOptions {
  return {
    url: w.io.url,
    apiKey: KEY,
    instances: ["sales"],
    events: ["messages.upsert", "connection.update"],
    now: () => NOW,
    ...extra,
  };
}

Deno.test("WebSocketSource: setup enables the sink; each chosen event is handled once, others not", async () => {
  const w = await world();
  const seen: string[] = [];
  const connections: (() => void)[] = [];
  const arrived = new Promise<void>((resolve) => connections.push(resolve));
  const arrivedAgain = new Promise<void>((resolve) => connections.push(resolve));
  const processor = new WebhookProcessor({ store: w.store, log: false, now: () => NOW })
    .on("messages.upsert", (p) => void seen.push(`message ${p.messageId} ${p.text}`))
    .on("groups.upsert", () => void seen.push("groups.upsert"))
    .on("connection.update", (p) => {
      seen.push(`connection ${p.connectionState}`);
      connections.shift()!();
    });
  const source = new WebSocketSource(options(w));
  await source.setup(w.gw);
  const sink = await call(w.sim, "GET", "/websocket/find/sales");
  deepStrictEqual([sink.body.enabled, sink.body.events], [true, ["MESSAGES_UPSERT", "CONNECTION_UPDATE"]]);

  const consumer = source.consume(processor);
  await consumer.ready;
  const raw = w.sim.simulateInboundMessage("sales", { from: PHONE, text: "hello", id: "IN001" });
  w.io.emit("sales", "groups.upsert", [{ id: "120363000000000000@g.us" }]);
  w.io.emit("sales", "messages.upsert", raw);
  w.io.emit("sales", "connection.update", { instance: "sales", state: "connecting", statusReason: 200 });
  await arrived;
  // The server emitting the same message again: the processor's claim keeps it to one handling.
  w.io.emit("sales", "messages.upsert", raw);
  w.io.emit("sales", "connection.update", { instance: "sales", state: "open", statusReason: 200 });
  await arrivedAgain;
  await consumer.close();
  await consumer.closed;
  deepStrictEqual(seen.slice(0, 2).sort(), ["connection connecting", "message IN001 hello"]);
  deepStrictEqual(seen.slice(2), ["connection open"]);
  await w.io.close();
  await w.sim.close();
});

Deno.test("WebSocketSource: a Bot as the target runs its middleware for a message", async () => {
  const w = await world();
  const bot = new Bot({ store: w.store, now: () => NOW });
  let handled!: (text: string) => void;
  const text = new Promise<string>((resolve) => handled = resolve);
  bot.on("message:text", (ctx) => handled(ctx.text));
  const source = new WebSocketSource(options(w, { reconcile: false }));
  const consumer = source.consume(bot);
  await consumer.ready;
  w.io.emit(
    "sales",
    "messages.upsert",
    w.sim.simulateInboundMessage("sales", { from: PHONE, text: "hi bot" }),
  );
  strictEqual(await text, "hi bot");
  await consumer.close();
  await w.io.close();
  await w.sim.close();
});

Deno.test("WebSocketSource: each reconnect runs the reconciler once; a message missed meanwhile is handled once", async () => {
  const w = await world();
  const handled = new Map<string, number>();
  let liveHandled!: () => void;
  const live = new Promise<void>((resolve) => liveHandled = resolve);
  const processor = new WebhookProcessor({ store: w.store, log: false, now: () => NOW })
    .on("messages.upsert", (p) => {
      handled.set(p.messageId!, (handled.get(p.messageId!) ?? 0) + 1);
      if (p.messageId === "LIVE1") liveHandled();
    });
  const said = logLines();
  const gate = gatedSleep();
  const source = new WebSocketSource(
    options(w, { sleep: gate.sleep, log: said.log, backoff: { initialMs: 250, maxMs: 4000 } }),
  );
  await source.setup(w.gw);
  const consumer = source.consume(processor);
  await consumer.ready;
  const findChats = () => w.sim.requests.filter((r) => r.path === "/chat/findChats/sales").length;
  strictEqual(findChats(), 0, "the first connect does not reconcile");

  w.io.emit(
    "sales",
    "messages.upsert",
    w.sim.simulateInboundMessage("sales", { from: PHONE, text: "live", id: "LIVE1" }),
  );
  await live;

  // The connection drops; a message arrives on the server while the consumer is away.
  w.io.drop("sales");
  await gate.nextCall();
  w.sim.simulateInboundMessage("sales", { from: PHONE, text: "missed", id: "MISSED1" });
  gate.release();
  await said.until(/reconciled "sales" after the reconnect/);
  strictEqual(findChats(), 1);
  deepStrictEqual(Object.fromEntries(handled), { LIVE1: 1, MISSED1: 1 });

  // A second drop: the reconciler runs again, and finds nothing new to handle.
  w.io.drop("sales");
  await gate.nextCall();
  gate.release();
  await said.until(/reconciled "sales" after the reconnect/, 2);
  strictEqual(findChats(), 2);
  deepStrictEqual(Object.fromEntries(handled), { LIVE1: 1, MISSED1: 1 });
  deepStrictEqual(gate.delays, [250, 250]);
  deepStrictEqual(said.lines.map((line) => line.replace(/127\.0\.0\.1:\d+/, "HOST")), [
    '[gateway] WebSocketSource: lost "/sales" at "HOST" (transport close); reconnecting with backoff (250 ms doubling up to 4000 ms)',
    '[gateway] WebSocketSource: reconnected "/sales" at "HOST"',
    '[gateway] WebSocketSource: reconciled "sales" after the reconnect: 1 missed message(s) handled, 2 checked',
    '[gateway] WebSocketSource: lost "/sales" at "HOST" (transport close); reconnecting with backoff (250 ms doubling up to 4000 ms)',
    '[gateway] WebSocketSource: reconnected "/sales" at "HOST"',
    '[gateway] WebSocketSource: reconciled "sales" after the reconnect: 0 missed message(s) handled, 2 checked',
  ]);
  await consumer.close();
  await w.io.close();
  await w.sim.close();
});

Deno.test("WebSocketSource: a refused api key is a clear error naming host and port, never the key", async () => {
  const w = await world();
  const wrong = "wrong-key-0123456789-do-not-print";
  const source = new WebSocketSource(options(w, { apiKey: wrong, reconcile: false, log: () => {} }));
  const consumer = source.consume(new WebhookProcessor({ log: false }));
  const port = new URL(w.io.url).port;
  await rejects(consumer.ready, (error: Error) => {
    ok(error instanceof AuthenticationException, String(error));
    strictEqual(
      error.message,
      `Cannot connect to the gateway's socket.io at "127.0.0.1:${port}" (instance "sales"): the server refused ` +
        "the api key (HTTP 400 on the socket.io handshake)",
    );
    ok(!JSON.stringify(error).includes(wrong) && !String(error.stack).includes(wrong));
    return true;
  });
  await rejects(consumer.closed, AuthenticationException);
  strictEqual(w.io.refused, 1);
  await w.io.close();
  await w.sim.close();
});

Deno.test("WebSocketSource: a handler that fails is said and not retried live; the next reconnect's reconciler handles it", async () => {
  const w = await world();
  const handled: string[] = [];
  let failures = 0;
  const processor = new WebhookProcessor({ store: w.store, log: false, now: () => NOW })
    .on("messages.upsert", (p) => {
      if (failures++ === 0) throw new Error("handler down");
      handled.push(p.messageId!);
    });
  const said = logLines();
  const gate = gatedSleep();
  const source = new WebSocketSource(options(w, { sleep: gate.sleep, log: said.log }));
  await source.setup(w.gw);
  const consumer = source.consume(processor);
  await consumer.ready;
  w.io.emit(
    "sales",
    "messages.upsert",
    w.sim.simulateInboundMessage("sales", { from: PHONE, text: "x", id: "FAIL1" }),
  );
  await said.until(/failed and is not redelivered/);
  deepStrictEqual(handled, []);
  w.io.drop("sales");
  await gate.nextCall();
  gate.release();
  await said.until(/reconciled "sales"/);
  deepStrictEqual(handled, ["FAIL1"]);
  strictEqual(
    said.lines[0],
    '[gateway] WebSocketSource: a "messages.upsert" event of "sales" failed and is not redelivered (socket.io ' +
      'is at most once): Cannot process webhook "MESSAGES_UPSERT": handler down',
  );
  await consumer.close();
  await w.io.close();
  await w.sim.close();
});

Deno.test("WebSocketSource: before the server opens the instance's namespace, the consumer waits for it", async () => {
  const w = await world();
  const said = logLines();
  const gate = gatedSleep();
  let handled!: (state: string | undefined) => void;
  const state = new Promise<string | undefined>((resolve) => handled = resolve);
  const processor = new WebhookProcessor({ log: false }).on(
    "connection.update",
    (p) => handled(p.connectionState),
  );
  const source = new WebSocketSource(
    options(w, { instances: ["fresh"], reconcile: false, sleep: gate.sleep, log: said.log }),
  );
  const consumer = source.consume(processor);
  await gate.nextCall();
  // The server's first publish opens the namespace and reaches nobody, as the gateway server's does.
  w.io.emit("fresh", "connection.update", { instance: "fresh", state: "connecting" });
  gate.release();
  await consumer.ready;
  w.io.emit("fresh", "connection.update", { instance: "fresh", state: "open" });
  strictEqual(await state, "open");
  await consumer.close();
  deepStrictEqual(gate.delays, [1000]);
  deepStrictEqual(said.lines.map((line) => line.replace(/127\.0\.0\.1:\d+/, "HOST")), [
    `[gateway] WebSocketSource: Cannot connect to the gateway's socket.io at "HOST" (instance "fresh"): the ` +
    'server has not opened the namespace "/fresh" yet (it does when it first publishes one of the ' +
    "instance's events); waiting for it",
  ]);
  await w.io.close();
  await w.sim.close();
});

Deno.test("WebSocketSource: a server that is not there is a clear error naming host and port", async () => {
  const w = await world();
  const url = w.io.url;
  await w.io.close();
  const consumer = new WebSocketSource(options(w, { url, reconcile: false })).consume(
    new WebhookProcessor({ log: false }),
  );
  await rejects(consumer.ready, (error: Error) => {
    ok(error instanceof ConnectionException, String(error));
    ok(
      error.message.startsWith(
        `Cannot connect to the gateway's socket.io at "${new URL(url).host}" (instance "sales"): `,
      ),
      error.message,
    );
    ok(!error.message.includes(KEY));
    return true;
  });
  await w.sim.close();
});

Deno.test("WebSocketSource: unknown options are refused with a suggestion; reconciling needs setup", async () => {
  const w = await world();
  throws(
    () => new WebSocketSource({ ...options(w), apikey: "x" } as unknown as WebSocketSourceOptions),
    (error: Error) =>
      error instanceof ConfigurationException &&
      error.message === 'new WebSocketSource: "apikey" is not an option; did you mean "apiKey"?',
  );
  throws(
    () => new WebSocketSource(options(w, { events: ["messages.upserted"] })),
    /"events" holds "messages.upserted", which is not an event of the gateway server/,
  );
  throws(
    () => new WebSocketSource(options(w)).consume(new WebhookProcessor({ log: false })),
    /needs `await source.setup\(gw\)` first/,
  );
  await w.io.close();
  await w.sim.close();
});
