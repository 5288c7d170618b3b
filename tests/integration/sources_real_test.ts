/**
 * The RabbitMQ and NATS sources against the real 2.3.6 server (skipped without GW_REAL_URL; the NATS test
 * also without a NATS server at GW_REAL_NATS_URL): setup on a fresh instance, then `connect` makes the server
 * emit CONNECTION_UPDATE (state connecting, WhatsApp being unreachable), which reaches a WebhookProcessor
 * through the broker. Brokers of ../shared/realserver/start.sh with EVO_SINKS="rabbitmq nats".
 */

import { strictEqual } from "node:assert/strict";
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
