/**
 * RabbitMqSource against a private RabbitMQ node (started once for the file): events published the way the
 * 2.3.6 server publishes them (exchange = instance, routing key = event, the server's body) reach the
 * processor once, wait while no consumer runs, are shared by two consumers, and a poison event is
 * dead-lettered while the rest flow. `setup` declares the server's queues before it enables the sink.
 */

import { deepStrictEqual, ok, rejects, strictEqual, throws } from "node:assert/strict";
// deno-lint-ignore no-import-prefix -- the client ./rabbitmq pins (not in the import map), to publish as the server does
import { AMQPClient } from "npm:@cloudamqp/amqp-client@4.1.1";
import { MemoryStore } from "../../src/backends/memory/store.ts";
import { ConfigurationException, ConnectionException } from "../../src/errors.ts";
import { GatewayService } from "../../src/service.ts";
import { RabbitMqSource, type RabbitMqSourceOptions } from "../../src/sources/rabbitmq/mod.ts";
import { WebhookProcessor } from "../../src/webhooks/processor.ts";
import { WebhookPayloadDto } from "../../src/webhooks/payload.ts";
import { type Broker, startRabbitMq } from "../helpers/brokers.ts";
import { freePort } from "../helpers/redis_server.ts";
import { startTcpProxy } from "../helpers/tcp_proxy.ts";
import { Child } from "../helpers/child.ts";
import { json, type RecordedCall, scriptedFetch } from "../helpers/scripted_fetch.ts";

const KEY = "rabbit-test-key";

/** The body the server publishes (rabbitmq.controller.ts: event, instance, data, server_url, ...). */
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

/** Publish like the server: to the instance's exchange, routing key = the event's name. */
async function publish(url: string, instance: string, event: string, bodies: unknown[] | string[]) {
  const client = new AMQPClient(url);
  const connection = await client.connect();
  try {
    const channel = await connection.channel();
    await channel.confirmSelect(); // closing right after unconfirmed publishes can lose the last ones
    for (const body of bodies) {
      await channel.basicPublish(
        instance,
        event,
        typeof body === "string" ? body : serverBody(instance, event, body),
      );
    }
  } finally {
    await connection.close();
  }
}

async function queueDepth(url: string, queue: string): Promise<number> {
  const client = new AMQPClient(url);
  const connection = await client.connect();
  try {
    const channel = await connection.channel();
    const ok = await channel.queueDeclare(queue, { durable: true, autoDelete: false }, {
      "x-queue-type": "quorum",
    });
    return ok.messageCount;
  } finally {
    await connection.close();
  }
}

function enabledSink(steps: ((call: RecordedCall) => Promise<void> | void)[] = []) {
  return scriptedFetch(
    [...Array(4)].map((_, i) => async (call: RecordedCall) => {
      await steps[i]?.(call);
      return json(201, { id: "r1", enabled: true, events: ["MESSAGES_UPSERT"], instanceId: "i1" });
    }),
  );
}

/** A processor that counts each handled message id, and a promise for when `total` were handled. */
function counting(store: MemoryStore, total: number, fail: (id: string) => boolean = () => false) {
  const seen = new Map<string, number>();
  const done = Promise.withResolvers<void>();
  let handled = 0;
  const processor = new WebhookProcessor({ store, log: false }).on(
    "messages.upsert",
    (payload: WebhookPayloadDto) => {
      const id = payload.messageId!;
      seen.set(id, (seen.get(id) ?? 0) + 1);
      if (fail(id)) throw new Error(`handler failed for ${id}`);
      if (++handled === total) done.resolve();
    },
  );
  return { processor, seen, done: done.promise };
}

const noWait = () => Promise.resolve();

Deno.test("RabbitMqSource: unknown options are refused with a suggestion; bad names before any connection", () => {
  const base = { url: "amqp://localhost", instances: ["sales"], events: ["messages.upsert"] };
  throws(
    () => new RabbitMqSource({ ...base, maxAttempt: 3 } as unknown as RabbitMqSourceOptions),
    (e: Error) => e instanceof ConfigurationException && e.message.includes('did you mean "maxAttempts"?'),
  );
  throws(() => new RabbitMqSource({ ...base, events: ["not an event!"] }), ConfigurationException);
  throws(() => new RabbitMqSource({ ...base, instances: ["sales.#"] }), ConfigurationException);
  throws(
    () => new RabbitMqSource({ ...base, url: "http://user:hunter2@localhost" }),
    (e: Error) => e instanceof ConfigurationException && !e.message.includes("hunter2"),
  );
});

Deno.test("RabbitMqSource against a private RabbitMQ node", async (t) => {
  const broker: Broker = await startRabbitMq();
  const options = (instance: string, more: Partial<RabbitMqSourceOptions> = {}): RabbitMqSourceOptions => ({
    url: broker.url,
    instances: [instance],
    events: ["messages.upsert", "connection.update"],
    sleep: noWait,
    log: () => {},
    ...more,
  });
  try {
    await t.step(
      "setup declares the server's queues before it enables the sink: the first event is not lost",
      async () => {
        const { fetch, calls } = enabledSink([
          // The server publishes right after its sink is enabled, before any consumer runs.
          () =>
            publish(broker.url, "first", "connection.update", [{ instance: "first", state: "connecting" }]),
        ]);
        const gw = new GatewayService({ server_url: "http://gw.test", api_key: KEY }, { fetch });
        const source = new RabbitMqSource(options("first"));
        await source.setup(gw);
        deepStrictEqual(calls.map((c) => [c.method, c.url, JSON.parse(c.body!)]), [[
          "POST",
          "http://gw.test/rabbitmq/set/first",
          { rabbitmq: { enabled: true, events: ["MESSAGES_UPSERT", "CONNECTION_UPDATE"] } },
        ]]);
        // The server's own declaration (same arguments) still succeeds: no PRECONDITION_FAILED.
        strictEqual(await queueDepth(broker.url, "first.connection.update"), 1);
        const got = Promise.withResolvers<string>();
        const processor = new WebhookProcessor({ log: false }).on(
          "connection.update",
          (p) => got.resolve(p.data.state),
        );
        const consumer = source.consume(processor);
        strictEqual(await got.promise, "connecting");
        await consumer.close();
        strictEqual(await queueDepth(broker.url, "first.connection.update"), 0);
      },
    );

    await t.step(
      "a consumer stopped while events are published loses none; each is handled once",
      async () => {
        const source = new RabbitMqSource(options("stop"));
        const store = new MemoryStore();
        const first = counting(store, 2);
        let consumer = source.consume(first.processor);
        await consumer.ready;
        await publish(broker.url, "stop", "messages.upsert", [inbound("a1"), inbound("a2")]);
        await first.done;
        await consumer.close();
        await publish(broker.url, "stop", "messages.upsert", [inbound("b1"), inbound("b2"), inbound("b3")]);
        strictEqual(await queueDepth(broker.url, "stop.messages.upsert"), 3);
        const second = counting(store, 3);
        consumer = source.consume(second.processor);
        await second.done;
        await consumer.close();
        deepStrictEqual([...first.seen], [["a1", 1], ["a2", 1]]);
        deepStrictEqual([...second.seen].sort(), [["b1", 1], ["b2", 1], ["b3", 1]]);
        strictEqual(await queueDepth(broker.url, "stop.messages.upsert"), 0);
      },
    );

    await t.step(
      "two consumers on one queue and one store handle each event once, a republished one too",
      async () => {
        const source = new RabbitMqSource(options("pair", { prefetch: 4 }));
        const store = new MemoryStore();
        const ids = [...Array(40)].map((_, i) => `m${i}`);
        const all = Promise.withResolvers<void>();
        const seen = new Map<string, number>();
        const byConsumer = [0, 0];
        let deliveries = 0;
        // Counts what the broker delivered (duplicates included, which the claims skip before any handler).
        const target = (index: number) => {
          const processor = new WebhookProcessor({ store, log: false }).on("messages.upsert", (p) => {
            seen.set(p.messageId!, (seen.get(p.messageId!) ?? 0) + 1);
            byConsumer[index]++;
          });
          return {
            process: async (payload: WebhookPayloadDto) => {
              await processor.process(payload);
              if (++deliveries === 50) all.resolve();
            },
          };
        };
        const consumers = [source.consume(target(0)), source.consume(target(1))];
        await Promise.all(consumers.map((c) => c.ready));
        // m0..m39, and m0..m9 a second time: the server's retry or a redelivery.
        await publish(broker.url, "pair", "messages.upsert", [...ids, ...ids.slice(0, 10)].map(inbound));
        await all.promise;
        await Promise.all(consumers.map((c) => c.close()));
        deepStrictEqual([...seen.values()].filter((n) => n !== 1), []);
        strictEqual(seen.size, 40);
        strictEqual(byConsumer[0] + byConsumer[1], 40);
        strictEqual(await queueDepth(broker.url, "pair.messages.upsert"), 0);
      },
    );

    await t.step("two consumer processes on one queue and one KV file handle each event once", async () => {
      const dir = await Deno.makeTempDir({ prefix: "gw-rabbit-kv-" });
      const worker = new URL("../fixtures/rabbitmq_consumer_worker.ts", import.meta.url);
      const children = [0, 1].map(() =>
        Child.spawn(worker, ["-A"], [broker.url, `${dir}/claims.kv`, "procs"])
      );
      try {
        for (const child of children) strictEqual(await child.line(60_000), "ready");
        const ids = [...Array(30)].map((_, i) => `p${i}`);
        // Every event once, and ten of them a second time (a redelivery, a server's retry).
        await publish(broker.url, "procs", "messages.upsert", [...ids, ...ids.slice(0, 10)].map(inbound));
        const handled: string[][] = [[], []];
        let delivered = 0;
        const done = Promise.withResolvers<void>();
        const reading = children.map(async (child, index) => {
          for (;;) {
            const line = await child.line(60_000).catch(() => "");
            if (line === "delivered" && ++delivered === 40) done.resolve();
            else if (line.startsWith("handled ")) handled[index].push(line.slice(8));
            else if (line === "" || line === "closed") return;
          }
        });
        await done.promise;
        for (const child of children) await child.send("stop");
        await Promise.all(reading);
        deepStrictEqual([...handled[0], ...handled[1]].sort(), [...ids].sort());
        ok(handled[0].length > 0 && handled[1].length > 0, `${handled[0].length}/${handled[1].length}`);
      } finally {
        for (const child of children) await child.close();
        await Deno.remove(dir, { recursive: true });
      }
      strictEqual(await queueDepth(broker.url, "procs.messages.upsert"), 0);
    });

    await t.step(
      "a poison event is dead-lettered after maxAttempts while the rest flow; listed and requeued",
      async () => {
        let clock = 1_760_000_000_000;
        const delays: number[] = [];
        const sleep = (ms: number) => {
          delays.push(ms);
          return Promise.resolve();
        };
        const source = new RabbitMqSource(
          options("poison", { maxAttempts: 3, now: () => clock, retryDelayMs: 250, sleep }),
        );
        const store = new MemoryStore();
        let poisonous = true;
        const run = counting(store, 3, (id) => poisonous && id === "bad");
        const consumer = source.consume(run.processor);
        await consumer.ready;
        await publish(broker.url, "poison", "messages.upsert", [
          inbound("ok1"),
          inbound("bad"),
          inbound("ok2"),
        ]);
        await publish(broker.url, "poison", "messages.upsert", ["this is not json", '{"no":"event"}']);
        const letters = async (n: number) => {
          for (;;) {
            const found = await source.listDeadLetters();
            if (found.length >= n) return found;
            await new Promise((resolve) => setTimeout(resolve, 50)); // polls the broker; not a timed assertion
          }
        };
        const dead = await letters(3);
        deepStrictEqual(
          dead.map((d) => [d.queue, d.routingKey, d.attempts, d.deadAt]).sort(),
          [
            ["poison.messages.upsert", "messages.upsert", 1, clock],
            ["poison.messages.upsert", "messages.upsert", 1, clock],
            ["poison.messages.upsert", "messages.upsert", 3, clock],
          ],
        );
        const bad = dead.find((d) => d.attempts === 3)!;
        strictEqual(bad.reason.includes("handler failed for bad"), true);
        deepStrictEqual((bad.body as { data: unknown }).data, inbound("bad"));
        strictEqual(run.seen.get("bad"), 3);
        deepStrictEqual([run.seen.get("ok1"), run.seen.get("ok2")], [1, 1]);
        // Held for a growing delay before each redelivery; none after the last attempt.
        deepStrictEqual(delays, [250, 500]);
        // Listing leaves them in place.
        strictEqual((await source.listDeadLetters()).length, 3);
        // Fixed: requeued, handled once, gone from the dead letters.
        poisonous = false;
        clock += 1000;
        strictEqual(await source.requeueDeadLetter(bad.id), true);
        strictEqual(await source.requeueDeadLetter("no-such-id"), false);
        await run.done;
        await consumer.close();
        strictEqual(run.seen.get("bad"), 4);
        strictEqual((await source.listDeadLetters()).length, 2);
        strictEqual(await queueDepth(broker.url, "poison.messages.upsert"), 0);
      },
    );

    await t.step(
      "a message another delivery is handling (busy) is retried later, never dead-lettered",
      async () => {
        const store = new MemoryStore();
        const gate = Promise.withResolvers<void>();
        let handled = 0;
        const holder = new WebhookProcessor({ store, log: false }).on("messages.upsert", async () => {
          handled++;
          await gate.promise;
        });
        // Another worker holds the claim of m-busy (its handler is running).
        const held = holder.process(
          WebhookPayloadDto.from(JSON.parse(serverBody("busy", "messages.upsert", inbound("m-busy"))))!,
        );
        const sleeps: number[] = [];
        const source = new RabbitMqSource(options("busy", {
          maxAttempts: 2,
          retryDelayMs: 100,
          sleep: (ms) => {
            sleeps.push(ms);
            if (sleeps.length === 3) gate.resolve(); // the holder finishes while the message waits
            return Promise.resolve();
          },
        }));
        const consumer = source.consume(
          new WebhookProcessor({ store, log: false }).on("messages.upsert", () => {
            handled++;
          }),
        );
        await consumer.ready;
        await publish(broker.url, "busy", "messages.upsert", [inbound("m-busy")]);
        await held;
        // Until the message is settled: acked as a duplicate once the holder finished, or dead-lettered.
        while (
          await queueDepth(broker.url, "busy.messages.upsert") > 0 ||
          (sleeps.length < 3 && (await source.listDeadLetters()).length === 0)
        ) {
          await new Promise((resolve) => setTimeout(resolve, 20)); // polls the broker; not a timed assertion
        }
        await consumer.close();
        strictEqual(handled, 1);
        deepStrictEqual(await source.listDeadLetters(), []);
        ok(sleeps.length >= 3 && sleeps.every((ms) => ms === 100), String(sleeps));
      },
    );

    await t.step(
      "a dropped connection: the consumer reconnects, says so once, and loses nothing",
      async () => {
        const proxy = startTcpProxy(broker.port);
        const lines: string[] = [];
        const source = new RabbitMqSource({
          ...options("drop"),
          url: `amqp://guest:guest@127.0.0.1:${proxy.port}`,
          log: (line) => lines.push(line),
        });
        const store = new MemoryStore();
        const run = counting(store, 4);
        const consumer = source.consume(run.processor);
        try {
          await consumer.ready;
          await publish(broker.url, "drop", "messages.upsert", [inbound("d1"), inbound("d2")]);
          while (run.seen.size < 2) await new Promise((resolve) => setTimeout(resolve, 20));
          proxy.cut();
          await publish(broker.url, "drop", "messages.upsert", [inbound("d3"), inbound("d4")]);
          await run.done;
        } finally {
          await consumer.close();
          await proxy.close();
        }
        deepStrictEqual([...run.seen].sort(), [["d1", 1], ["d2", 1], ["d3", 1], ["d4", 1]]);
        strictEqual(proxy.accepted, 2);
        deepStrictEqual(lines.map((line) => line.replace(/\(.*$/, "")), [
          `RabbitMQ consumer `,
          `RabbitMQ consumer `,
        ]);
        ok(lines[0].includes("reconnecting with backoff"), lines[0]);
        ok(lines[1].endsWith("connected again; consuming"), lines[1]);
      },
    );

    await t.step(
      "bad credentials and a broker that is down: an error naming host and port, never the password",
      async () => {
        const wrong = broker.url.replace("guest:guest", "guest:s3cret-Pa55");
        const source = new RabbitMqSource({ ...options("creds"), url: wrong });
        const gw = new GatewayService({ server_url: "http://gw.test", api_key: KEY }, {
          fetch: enabledSink().fetch,
        });
        await rejects(source.setup(gw), (e: Error) => {
          ok(e instanceof ConnectionException, String(e));
          ok(e.message.startsWith(`Cannot connect to RabbitMQ at 127.0.0.1:${broker.port}: `), e.message);
          ok(e.message.includes("refused the credentials"), e.message);
          ok(!JSON.stringify([e.message, e.stack, String(e.cause)]).includes("s3cret-Pa55"), e.message);
          return true;
        });
        const port = freePort();
        const down = new RabbitMqSource({ ...options("down"), url: `amqp://u:pw-down-9@127.0.0.1:${port}` });
        await rejects(down.listDeadLetters(), (e: Error) => {
          ok(
            e.message.startsWith(`Cannot connect to RabbitMQ at 127.0.0.1:${port}: connection refused`),
            e.message,
          );
          ok(!e.message.includes("pw-down-9"), e.message);
          return true;
        });
      },
    );

    await t.step(
      "a consumer that cannot connect retries with a doubling backoff and says so once",
      async () => {
        const lines: string[] = [];
        const delays: number[] = [];
        const retried = Promise.withResolvers<void>();
        const url = broker.url.replace("guest:guest", "guest:s3cret-Pa55");
        const source = new RabbitMqSource({
          ...options("retry"),
          url,
          reconnectDelayMs: 100,
          maxReconnectDelayMs: 400,
          log: (line) => lines.push(line),
          sleep: (ms, signal) => {
            delays.push(ms);
            if (delays.length < 5) return Promise.resolve();
            retried.resolve();
            return new Promise((_, reject) => signal.addEventListener("abort", () => reject(signal.reason)));
          },
        });
        const consumer = source.consume(new WebhookProcessor({ log: false }));
        await retried.promise;
        await consumer.close();
        deepStrictEqual(delays, [100, 200, 400, 400, 400]);
        strictEqual(lines.length, 1);
        ok(
          lines[0].startsWith(`RabbitMQ consumer (RabbitMQ at 127.0.0.1:${broker.port}): Cannot connect`),
          lines[0],
        );
        ok(!lines[0].includes("s3cret-Pa55"), lines[0]);
      },
    );
  } finally {
    await broker.close();
  }
});
