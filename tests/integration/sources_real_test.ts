/**
 * The RabbitMQ and NATS sources against the real 2.3.6 server (skipped without GW_REAL_URL; the NATS tests
 * also without a NATS server at GW_REAL_NATS_URL): setup on a fresh instance, then `connect` and `logout` make
 * the server emit CONNECTION_UPDATE (connecting, close; WhatsApp being unreachable), which reaches a
 * WebhookProcessor through the broker: kept while no consumer runs, shared by two consumers, dead-lettered
 * when its handler keeps failing. Brokers of ../shared/realserver/start.sh with EVO_SINKS="rabbitmq nats".
 */

import { deepStrictEqual, strictEqual } from "node:assert/strict";
// deno-lint-ignore no-import-prefix -- the client ./rabbitmq pins (not in the import map), to watch the wire
import { AMQPClient } from "npm:@cloudamqp/amqp-client@4.1.1";
// deno-lint-ignore no-import-prefix -- the client ./nats pins (not in the import map), to watch the wire
import { connect } from "npm:@nats-io/transport-node@3.4.0";
// deno-lint-ignore no-import-prefix -- the client ./nats pins (not in the import map), to remove the streams
import { jetstreamManager } from "npm:@nats-io/jetstream@3.4.0";
import { NatsSource } from "../../src/sources/nats/mod.ts";
import { RabbitMqSource } from "../../src/sources/rabbitmq/mod.ts";
import type { SourceTarget } from "../../src/sources/target.ts";
import { WebhookProcessor } from "../../src/webhooks/processor.ts";
import { NO_REAL_SERVER, realServerService } from "../helpers/real_server.ts";

const AMQP = Deno.env.get("GW_REAL_AMQP_URL") ?? "amqp://guest:guest@127.0.0.1:55672";
const NATS = Deno.env.get("GW_REAL_NATS_URL") ?? "nats://127.0.0.1:54222";

async function reachable(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  try {
    (await Deno.connect({ hostname, port: Number(port) })).close();
    return true;
  } catch {
    return false;
  }
}

const NO_NATS = NO_REAL_SERVER || !(await reachable(NATS));

interface Source {
  setup(gw: ReturnType<typeof realServerService>["gw"]): Promise<void>;
  consume(target: SourceTarget): { close(): Promise<void> };
}

async function connectionUpdateThrough(make: (instance: string) => Source, prefix: string) {
  const { name, gw } = realServerService(prefix);
  await gw.instances().create(name);
  const source = make(name);
  try {
    await source.setup(gw);
    const state = Promise.withResolvers<string>();
    const processor = new WebhookProcessor({ log: false }).on("connection.update", (payload) => {
      if (payload.instance === name) state.resolve(payload.data.state);
    });
    const consumer = source.consume(processor);
    try {
      await gw.instances().connect(name);
      strictEqual(await state.promise, "connecting");
    } finally {
      await consumer.close();
    }
  } finally {
    await gw.instances().delete(name).catch(() => {});
  }
}

Deno.test({
  name: "real server: a connection.update reaches a WebhookProcessor through RabbitMQ",
  ignore: NO_REAL_SERVER,
  fn: () =>
    connectionUpdateThrough(
      (instance) => new RabbitMqSource({ url: AMQP, instances: [instance], events: ["connection.update"] }),
      "gw-rmq",
    ),
});

Deno.test({
  name: "real server: a connection.update reaches a WebhookProcessor through NATS (JetStream)",
  ignore: NO_NATS,
  fn: () =>
    connectionUpdateThrough(
      (instance) => new NatsSource({ url: NATS, instances: [instance], events: ["connection.update"] }),
      "gw-nats",
    ),
});

/** `<state>@<date_time>`: one event the server published, as seen on the wire and by a handler. */
function eventKey(body: string): string {
  const { data, date_time } = JSON.parse(body) as { data?: { state?: unknown }; date_time?: unknown };
  return `${data?.state}@${date_time}`;
}

/** What the three-property run needs of one broker. */
interface Broker {
  source: (instance: string) => {
    setup(gw: ReturnType<typeof realServerService>["gw"]): Promise<void>;
    consume(target: SourceTarget): { ready: Promise<void>; close(): Promise<void> };
    listDeadLetters(): Promise<{ attempts: number; queue?: string; subject?: string }[]>;
  };
  /** Watch the instance's `connection.update` on the wire (after `setup`); resolves to the watch's end. */
  watch: (instance: string, seen: (body: string) => void) => Promise<() => Promise<void>>;
  /** Remove what `setup` and the dead letters left on the broker. */
  clean: (instance: string) => Promise<void>;
}

/**
 * Against the real server: two `connection.update` (connect, logout) published while no consumer runs, two
 * more while two consumers of one name run; the first one's handler always fails. Each event is handled
 * once, the failing one `maxAttempts` (2) times and then dead-lettered, checked against the wire.
 */
async function keptSharedAndDeadLettered(broker: Broker, prefix: string) {
  const { name, gw } = realServerService(prefix);
  await gw.instances().create(name);
  const published: string[] = [];
  const handled = new Map<string, number>();
  let changed = Promise.withResolvers<void>();
  const changes = () => {
    changed.resolve();
    changed = Promise.withResolvers<void>();
  };
  const until = async (done: () => boolean) => {
    while (!done()) await changed.promise;
  };
  // One more event on the wire. The real server now and then answers a connect right after a logout with an
  // error envelope and publishes nothing (about 1 in 30 here): the action is then tried again.
  const oneMore = async (action: () => Promise<unknown>) => {
    const before = published.length;
    for (let attempt = 1;; attempt++) {
      try {
        await action();
        break;
      } catch (error) {
        if (attempt === 3 || published.length > before) throw error;
      }
    }
    await until(() => published.length > before);
  };
  const source = broker.source(name);
  const consumers: { close(): Promise<void> }[] = [];
  let unwatch = () => Promise.resolve();
  try {
    await source.setup(gw);
    unwatch = await broker.watch(name, (body) => {
      published.push(eventKey(body));
      changes();
    });
    await oneMore(() => gw.instances().connect(name));
    await oneMore(() => gw.instances().logout(name));
    const poison = published[0];
    const processor = new WebhookProcessor({ log: false }).on("connection.update", (payload) => {
      const key = eventKey(JSON.stringify(payload.raw));
      handled.set(key, (handled.get(key) ?? 0) + 1);
      changes();
      if (key === poison) throw new Error("this handler refuses the first event");
    });
    const pair = [source.consume(processor), source.consume(processor)];
    consumers.push(...pair);
    await Promise.all(pair.map((c) => c.ready));
    await oneMore(() => gw.instances().connect(name));
    await oneMore(() => gw.instances().logout(name));
    await until(() => published.every((key) => handled.has(key)));
    await until(() => handled.get(poison) === 2);
    let dead = await source.listDeadLetters();
    while (dead.length === 0) {
      await new Promise((resolve) => setTimeout(resolve, 50)); // polls the broker; not a timed assertion
      dead = await source.listDeadLetters();
    }
    deepStrictEqual(dead.map((d) => [d.queue ?? d.subject, d.attempts]), [[`${name}.connection.update`, 2]]);
    deepStrictEqual(
      published.slice(0, 4).map((key) => key.split("@")[0]),
      ["connecting", "close", "connecting", "close"],
    );
    deepStrictEqual(published.map((key) => handled.get(key)), [2, ...published.slice(1).map(() => 1)]);
    deepStrictEqual([...handled.keys()].filter((key) => !published.includes(key)), []);
  } finally {
    await Promise.all(consumers.map((c) => c.close()));
    await unwatch();
    await broker.clean(name).catch(() => {});
    await gw.instances().delete(name).catch(() => {});
  }
}

const rabbitMq: Broker = {
  source: (instance) =>
    new RabbitMqSource({
      url: AMQP,
      instances: [instance],
      events: ["connection.update"],
      maxAttempts: 2,
      retryDelayMs: 1,
    }),
  async watch(instance, seen) {
    const connection = await new AMQPClient(AMQP).connect();
    const channel = await connection.channel();
    const { name } = await channel.queueDeclare("", { exclusive: true, autoDelete: true });
    await channel.queueBind(name, instance, "connection.update");
    await channel.basicConsume(name, { noAck: true }, (message) => seen(message.bodyToString() ?? ""));
    return () => connection.close();
  },
  async clean(instance) {
    const connection = await new AMQPClient(AMQP).connect();
    try {
      const channel = await connection.channel();
      for (const queue of [`${instance}.connection.update`, `${instance}.gw.dead-letters`]) {
        await channel.queueDelete(queue);
      }
      await channel.exchangeDelete(instance);
    } finally {
      await connection.close();
    }
  },
};

const nats: Broker = {
  source: (instance) =>
    new NatsSource({
      url: NATS,
      instances: [instance],
      events: ["connection.update"],
      maxAttempts: 2,
      retryDelayMs: 1,
    }),
  async watch(instance, seen) {
    const wire = await connect({ servers: new URL(NATS).host });
    wire.subscribe(`${instance}.connection.update`, {
      callback: (_error, message) => seen(message.string()),
    });
    return () => wire.close();
  },
  async clean(instance) {
    const wire = await connect({ servers: new URL(NATS).host });
    try {
      const jsm = await jetstreamManager(wire);
      for (const stream of [`GW_${instance}`, `GW_${instance}_DEAD`]) await jsm.streams.delete(stream);
    } finally {
      await wire.close();
    }
  },
};

Deno.test({
  name:
    "real server through RabbitMQ: events published while no consumer runs are kept, two consumers handle each once, a failing one is dead-lettered while the rest flow",
  ignore: NO_REAL_SERVER,
  fn: () => keptSharedAndDeadLettered(rabbitMq, "gw-rmq-e2e"),
});

Deno.test({
  name:
    "real server through NATS: events published while no consumer runs are kept, two consumers handle each once, a failing one is dead-lettered while the rest flow",
  ignore: NO_NATS,
  fn: () => keptSharedAndDeadLettered(nats, "gw-nats-e2e"),
});
