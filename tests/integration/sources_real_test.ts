/**
 * The RabbitMQ and NATS sources against the real 2.3.6 server (skipped without GW_REAL_URL; the NATS test
 * also without a NATS server at GW_REAL_NATS_URL): setup on a fresh instance, then `connect` makes the server
 * emit CONNECTION_UPDATE (state connecting, WhatsApp being unreachable), which reaches a WebhookProcessor
 * through the broker. Brokers of ../shared/realserver/start.sh with EVO_SINKS="rabbitmq nats".
 */

import { deepStrictEqual, strictEqual } from "node:assert/strict";
// deno-lint-ignore no-import-prefix -- the clients ./nats pins (not in the import map), to watch the wire
import { connect } from "npm:@nats-io/transport-node@3.4.0";
// deno-lint-ignore no-import-prefix -- the clients ./nats pins (not in the import map), to remove the streams
import { jetstreamManager } from "npm:@nats-io/jetstream@3.4.0";
import { type NatsConsumer, NatsSource } from "../../src/sources/nats/mod.ts";
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
const eventKey = (data: { state?: unknown } | undefined, dateTime: unknown) => `${data?.state}@${dateTime}`;

Deno.test({
  name:
    "real server through NATS: events published while no consumer runs are kept, two consumers handle each once, a failing one is dead-lettered while the rest flow",
  ignore: NO_NATS,
  fn: async () => {
    const { name, gw } = realServerService("gw-nats-e2e");
    await gw.instances().create(name);
    // The wire: every event the server publishes, in order (core NATS, on loopback).
    const wire = await connect({ servers: new URL(NATS).host });
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
    const subscription = wire.subscribe(`${name}.connection.update`, {
      callback: (_error, message) => {
        const body = message.json<{ data?: { state?: unknown }; date_time?: unknown }>();
        published.push(eventKey(body.data, body.date_time));
        changes();
      },
    });
    const lines: string[] = [];
    const source = new NatsSource({
      url: NATS,
      instances: [name],
      events: ["connection.update"],
      maxAttempts: 2,
      retryDelayMs: 1,
      log: (line) => lines.push(line),
    });
    const consumers: NatsConsumer[] = [];
    try {
      await source.setup(gw);
      // No consumer runs: the server publishes "connecting", then "close".
      await gw.instances().connect(name);
      await until(() => published.length >= 1);
      await gw.instances().logout(name);
      await until(() => published.length >= 2);
      const poison = published[0];
      const processor = new WebhookProcessor({ log: false }).on("connection.update", (payload) => {
        const key = eventKey(payload.data, payload.dateTime);
        handled.set(key, (handled.get(key) ?? 0) + 1);
        changes();
        if (key === poison) throw new Error("this handler refuses the first event");
      });
      consumers.push(source.consume(processor), source.consume(processor));
      await Promise.all(consumers.map((c) => c.ready));
      // Two consumers of one name run: two more events.
      await gw.instances().connect(name);
      await until(() => published.length >= 3);
      await gw.instances().logout(name);
      await until(() => published.length >= 4 && published.every((key) => handled.has(key)));
      await until(() => handled.get(poison) === 2);
      let dead = await source.listDeadLetters();
      while (dead.length === 0) {
        await new Promise((resolve) => setTimeout(resolve, 50)); // polls the server; not a timed assertion
        dead = await source.listDeadLetters();
      }
      deepStrictEqual(dead.map((d) => [d.subject, d.attempts]), [[`${name}.connection.update`, 2]]);
      deepStrictEqual(
        published.slice(0, 4).map((key) => key.split("@")[0]),
        ["connecting", "close", "connecting", "close"],
      );
      deepStrictEqual(published.map((key) => handled.get(key)), [2, ...published.slice(1).map(() => 1)]);
      deepStrictEqual([...handled.keys()].filter((key) => !published.includes(key)), []);
      deepStrictEqual(lines, []);
    } finally {
      await Promise.all(consumers.map((c) => c.close()));
      subscription.unsubscribe();
      const jsm = await jetstreamManager(wire);
      for (const stream of [`GW_${name}`, `GW_${name}_DEAD`]) {
        await jsm.streams.delete(stream).catch(() => false);
      }
      await wire.close();
      await gw.instances().delete(name).catch(() => {});
    }
  },
});
