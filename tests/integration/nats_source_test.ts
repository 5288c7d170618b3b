/**
 * NatsSource against a private nats-server with JetStream (started once for the file): events published the
 * way the 2.3.6 server publishes them (core NATS, subject `<instance>.<event>`, the server's body) are kept
 * by the stream while no consumer runs, handled once by two consumers of one name, and a poison event is
 * dead-lettered while the rest flow.
 */

import { deepStrictEqual, ok, rejects, strictEqual, throws } from "node:assert/strict";
// deno-lint-ignore no-import-prefix -- the client ./nats pins (not in the import map), to publish as the server does
import { connect } from "npm:@nats-io/transport-node@3.4.0";
import { MemoryStore } from "../../src/backends/memory/store.ts";
import { ConfigurationException, ConnectionException } from "../../src/errors.ts";
import { GatewayService } from "../../src/service.ts";
import { NatsSource, type NatsSourceOptions } from "../../src/sources/nats/mod.ts";
import { WebhookProcessor } from "../../src/webhooks/processor.ts";
import { WebhookPayloadDto } from "../../src/webhooks/payload.ts";
import { type Broker, startNats } from "../helpers/brokers.ts";
import { freePort } from "../helpers/redis_server.ts";
import { startNatsFront } from "../helpers/nats_front.ts";
import { json, scriptedFetch } from "../helpers/scripted_fetch.ts";

function serverBody(instance: string, event: string, data: unknown): string {
  return JSON.stringify({
    event,
    instance,
    data,
    server_url: "http://127.0.0.1:8080",
    date_time: "2026-11-28T04:00:00.000Z",
    sender: "5511900000000@s.whatsapp.net",
    apikey: "instance-token",
  });
}

const inbound = (id: string) => ({
  key: { id, remoteJid: "5511999999999@s.whatsapp.net", fromMe: false },
  message: { conversation: `text ${id}` },
});

/** Publish like the server: core NATS on `<instance>.<event>`. */
async function publish(url: string, instance: string, event: string, bodies: unknown[]) {
  const nc = await connect({ servers: url.replace("nats://", "") });
  for (const body of bodies) {
    nc.publish(`${instance}.${event}`, typeof body === "string" ? body : serverBody(instance, event, body));
  }
  await nc.flush();
  await nc.close();
}

const noWait = () => Promise.resolve();

function counter(store: MemoryStore, total: number, fail: (id: string) => boolean = () => false) {
  const seen = new Map<string, number>();
  const waiting: { count: number; resolve: () => void }[] = [];
  let deliveries = 0;
  const processor = new WebhookProcessor({ store, log: false }).on(
    "messages.upsert",
    (p: WebhookPayloadDto) => {
      seen.set(p.messageId!, (seen.get(p.messageId!) ?? 0) + 1);
      if (fail(p.messageId!)) throw new Error(`handler failed for ${p.messageId}`);
    },
  );
  /** Resolves once `count` deliveries finished. */
  const reached = (count: number) =>
    new Promise<void>((resolve) => {
      if (deliveries >= count) resolve();
      else waiting.push({ count, resolve });
    });
  const target = {
    process: async (payload: WebhookPayloadDto) => {
      try {
        await processor.process(payload);
      } finally {
        deliveries++;
        for (const w of waiting) if (deliveries >= w.count) w.resolve();
      }
    },
  };
  return { target, seen, reached, done: reached(total) };
}

Deno.test("NatsSource: unknown options are refused with a suggestion", () => {
  const base = { url: "nats://localhost:4222", instances: ["sales"], events: ["messages.upsert"] };
  throws(
    () => new NatsSource({ ...base, retryDelay: 3 } as unknown as NatsSourceOptions),
    (e: Error) => e instanceof ConfigurationException && e.message.includes('did you mean "retryDelayMs"?'),
  );
  throws(() => new NatsSource({ ...base, url: "amqp://localhost" }), ConfigurationException);
});

Deno.test("NatsSource against a private nats-server (JetStream)", async (t) => {
  const broker: Broker = await startNats();
  const options = (instance: string, more: Partial<NatsSourceOptions> = {}): NatsSourceOptions => ({
    url: broker.url,
    instances: [instance],
    events: ["messages.upsert", "connection.update"],
    sleep: noWait,
    log: () => {},
    retryDelayMs: 1,
    ...more,
  });
  try {
    await t.step("setup creates the stream before it enables the sink: the first event is kept", async () => {
      const { fetch, calls } = scriptedFetch([async () => {
        await publish(broker.url, "first", "connection.update", [{ instance: "first", state: "connecting" }]);
        return json(201, { id: "n1", enabled: true, events: ["CONNECTION_UPDATE"], instanceId: "i1" });
      }]);
      const source = new NatsSource(options("first"));
      await source.setup(new GatewayService({ server_url: "http://gw.test", api_key: "k" }, { fetch }));
      deepStrictEqual(calls.map((c) => [c.url, JSON.parse(c.body!)]), [[
        "http://gw.test/nats/set/first",
        { nats: { enabled: true, events: ["MESSAGES_UPSERT", "CONNECTION_UPDATE"] } },
      ]]);
      const got = Promise.withResolvers<string>();
      const consumer = source.consume(
        new WebhookProcessor({ log: false }).on("connection.update", (p) => got.resolve(p.data.state)),
      );
      strictEqual(await got.promise, "connecting");
      await consumer.close();
    });

    await t.step(
      "a consumer stopped while events are published loses none; each is handled once",
      async () => {
        const source = new NatsSource(options("stop"));
        await source.setup(
          new GatewayService({ server_url: "http://gw.test", api_key: "k" }, {
            fetch: scriptedFetch([json(201, { id: "n", enabled: true, events: [] })]).fetch,
          }),
        );
        const store = new MemoryStore();
        const first = counter(store, 2);
        let consumer = source.consume(first.target);
        await consumer.ready;
        await publish(broker.url, "stop", "messages.upsert", [inbound("a1"), inbound("a2")]);
        await first.done;
        await consumer.close();
        await publish(broker.url, "stop", "messages.upsert", [inbound("b1"), inbound("b2"), inbound("b3")]);
        const second = counter(store, 3);
        consumer = source.consume(second.target);
        await second.done;
        await consumer.close();
        deepStrictEqual([...first.seen].sort(), [["a1", 1], ["a2", 1]]);
        deepStrictEqual([...second.seen].sort(), [["b1", 1], ["b2", 1], ["b3", 1]]);
      },
    );

    await t.step(
      "two consumers of one name and one store handle each event once, a republished one too",
      async () => {
        const source = new NatsSource(options("pair", { prefetch: 4 }));
        const store = new MemoryStore();
        const ids = [...Array(30)].map((_, i) => `m${i}`);
        const shared = counter(store, 40);
        const consumers = [source.consume(shared.target), source.consume(shared.target)];
        await Promise.all(consumers.map((c) => c.ready));
        await publish(broker.url, "pair", "messages.upsert", [...ids, ...ids.slice(0, 10)].map(inbound));
        await shared.done;
        await Promise.all(consumers.map((c) => c.close()));
        strictEqual(shared.seen.size, 30);
        deepStrictEqual([...shared.seen.values()].filter((n) => n !== 1), []);
      },
    );

    await t.step(
      "a poison event is dead-lettered after maxAttempts while the rest flow; listed and requeued",
      async () => {
        const clock = 1_760_000_000_000;
        const source = new NatsSource(options("poison", { maxAttempts: 3, now: () => clock }));
        const store = new MemoryStore();
        let poisonous = true;
        // ok1, ok2, bad ×3, the two non-events, then bad once more after the requeue
        const run = counter(store, 6, (id) => poisonous && id === "bad");
        const consumer = source.consume(run.target);
        await consumer.ready;
        await publish(broker.url, "poison", "messages.upsert", [
          inbound("ok1"),
          inbound("bad"),
          inbound("ok2"),
        ]);
        await publish(broker.url, "poison", "messages.upsert", ["this is not json", '{"no":"event"}']);
        let dead = await source.listDeadLetters();
        while (dead.length < 3) {
          await new Promise((resolve) => setTimeout(resolve, 50)); // polls the server; not a timed assertion
          dead = await source.listDeadLetters();
        }
        deepStrictEqual(
          dead.map((d) => [d.subject, d.attempts, d.deadAt]).sort(),
          [
            ["poison.messages.upsert", 1, clock],
            ["poison.messages.upsert", 1, clock],
            ["poison.messages.upsert", 3, clock],
          ],
        );
        const bad = dead.find((d) => d.attempts === 3)!;
        ok(bad.reason.includes("handler failed for bad"), bad.reason);
        deepStrictEqual([run.seen.get("ok1"), run.seen.get("ok2"), run.seen.get("bad")], [1, 1, 3]);
        poisonous = false;
        strictEqual(await source.requeueDeadLetter(bad.id), true);
        strictEqual(await source.requeueDeadLetter(bad.id), false);
        await run.done;
        await consumer.close();
        strictEqual(run.seen.get("bad"), 4);
        strictEqual((await source.listDeadLetters()).length, 2);
      },
    );

    await t.step(
      "an event another delivery is handling (busy) is retried later, never dead-lettered",
      async () => {
        const store = new MemoryStore();
        const gate = Promise.withResolvers<void>();
        let handled = 0;
        let busy = 0;
        const holder = new WebhookProcessor({ store, log: false }).on("messages.upsert", async () => {
          handled++;
          await gate.promise;
        });
        const held = holder.process(
          WebhookPayloadDto.from(JSON.parse(serverBody("busy", "messages.upsert", inbound("m-busy"))))!,
        );
        const settled = Promise.withResolvers<void>();
        const processor = new WebhookProcessor({ store, log: false }).on("messages.upsert", () => {
          handled++;
        });
        const source = new NatsSource(options("busy", { maxAttempts: 2 }));
        const consumer = source.consume({
          process: async (payload: WebhookPayloadDto) => {
            try {
              await processor.process(payload);
              settled.resolve(); // the duplicate, once the holder finished
            } catch (error) {
              if (++busy === 3) gate.resolve(); // the holder finishes after three busy deliveries
              throw error;
            }
          },
        });
        await consumer.ready;
        await publish(broker.url, "busy", "messages.upsert", [inbound("m-busy")]);
        await held;
        await settled.promise;
        await consumer.close();
        strictEqual(handled, 1);
        strictEqual(busy, 3);
        deepStrictEqual(await source.listDeadLetters(), []);
      },
    );

    await t.step(
      "a dropped connection: the consumer survives, says so once, and loses no event",
      async () => {
        const front = await startNatsFront(broker.port);
        const lines: string[] = [];
        const waits: number[] = [];
        const source = new NatsSource({
          ...options("drop"),
          url: `nats://gw:drop-s3cret@127.0.0.1:${front.port}`,
          reconnectDelayMs: 100,
          maxReconnectDelayMs: 400,
          sleep: (ms) => {
            waits.push(ms);
            return Promise.resolve();
          },
          log: (line) => lines.push(line),
        });
        const run = counter(new MemoryStore(), 4);
        const consumer = source.consume(run.target);
        try {
          await consumer.ready;
          await publish(broker.url, "drop", "messages.upsert", [inbound("d1"), inbound("d2")]);
          await run.reached(2);
          // The server drops the connection, and refuses the next three as it comes back (a reset after its
          // last words, as nats-server's own refusals arrive): the stray ECONNRESET that ended the process.
          front.refuseNext(3);
          front.reset();
          await publish(broker.url, "drop", "messages.upsert", [inbound("d3"), inbound("d4")]);
          await run.done;
        } finally {
          await consumer.close();
          await front.close();
        }
        deepStrictEqual([...run.seen].sort(), [["d1", 1], ["d2", 1], ["d3", 1], ["d4", 1]]);
        deepStrictEqual([front.accepted, front.refused], [2, 3]);
        deepStrictEqual(waits, [100, 200, 400, 400]);
        const label = `NATS consumer (NATS at 127.0.0.1:${front.port})`;
        deepStrictEqual(lines, [
          `${label}: the connection was closed; reconnecting with backoff (first retry in 100 ms)`,
          `${label}: connected again; consuming`,
        ]);
      },
    );

    await t.step("bad credentials: an error naming host and port, never the password", async () => {
      const guarded = await startNats({ user: "gw", pass: "right-pass" });
      try {
        const url = guarded.url.replace("nats://", "nats://gw:Wr0ng-pass@");
        await rejects(new NatsSource({ ...options("creds"), url }).listDeadLetters(), (e: Error) => {
          ok(e instanceof ConnectionException, String(e));
          ok(
            e.message.startsWith(`Cannot connect to NATS at 127.0.0.1:${guarded.port}: the server refused`),
            e.message,
          );
          ok(!JSON.stringify([e.message, e.stack]).includes("Wr0ng-pass"), e.message);
          return true;
        });
      } finally {
        await guarded.close();
      }
    });

    await t.step("a server that is down: an error naming host and port, never the password", async () => {
      const port = freePort();
      const down = new NatsSource({ ...options("down"), url: `nats://u:pw-down-9@127.0.0.1:${port}` });
      await rejects(down.listDeadLetters(), (e: Error) => {
        ok(e instanceof ConnectionException, String(e));
        ok(e.message.startsWith(`Cannot connect to NATS at 127.0.0.1:${port}: `), e.message);
        ok(!JSON.stringify([e.message, e.stack]).includes("pw-down-9"), e.message);
        return true;
      });
    });
  } finally {
    await broker.close();
  }
});
