/**
 * Events per second through RabbitMqSource → WebhookProcessor with claims on Redis (RedisStore), one consumer
 * and two consumers on one queue, beside the same processor behind the webhook receiver (createWebhookHandler,
 * signed requests handed to it in process) and the processor called directly; the broker's cost per event is
 * the difference between the one-consumer time and the direct time. Each round drains a backlog of `--events`
 * inbound messages published the way the server publishes them (timed from the first publish, consumers already
 * running); the figures are medians over `--rounds`
 * rounds, the variants in rotated order.
 *
 *   deno run -A --lock=tests/npm/deno.lock bench/sources_rabbitmq.ts [--rounds 5] [--events 2000]
 *
 * Starts its own redis-server and RabbitMQ node on free loopback ports (Debian's packages).
 */

// deno-lint-ignore no-import-prefix -- the client ./rabbitmq pins (not in the import map), to publish as the server does
import { AMQPClient } from "npm:@cloudamqp/amqp-client@4.1.1";
import { RedisStore } from "../src/backends/redis/store.ts";
import { RabbitMqSource } from "../src/sources/rabbitmq/mod.ts";
import { createWebhookHandler } from "../src/webhooks/handler.ts";
import { WebhookProcessor } from "../src/webhooks/processor.ts";
import { WebhookPayloadDto } from "../src/webhooks/payload.ts";
import { signWebhook } from "../src/webhooks/signature.ts";
import { startRabbitMq } from "../tests/helpers/brokers.ts";
import { startRedisServer } from "../tests/helpers/redis_server.ts";
import { median } from "./stats.ts";

function flag(name: string, fallback: number): number {
  const index = Deno.args.indexOf(`--${name}`);
  return index === -1 ? fallback : Number(Deno.args[index + 1]);
}
const ROUNDS = flag("rounds", 5);
const EVENTS = flag("events", 2000);
const CONCURRENCY = 16; // the source's default prefetch, and the receiver's requests in flight
const SECRET = "bench-sources-secret-0123456789abcdef";

const redis = await startRedisServer();
const broker = await startRabbitMq();
const store = new RedisStore({ url: redis.url, prefix: "bench:" });
let handled = 0;
let target = 0;
let finished = Promise.withResolvers<void>();
const processor = new WebhookProcessor({ store, log: false }).on("messages.upsert", () => {
  if (++handled === target) finished.resolve();
});

let round = 0;
const body = (id: string) =>
  JSON.stringify({
    event: "messages.upsert",
    instance: "bench",
    data: {
      key: { id, remoteJid: "5511999999999@s.whatsapp.net", fromMe: false },
      message: { conversation: "hi" },
    },
    server_url: "http://127.0.0.1:8080",
    date_time: "2026-11-28T04:00:00.000Z",
    sender: "5511900000000@s.whatsapp.net",
    apikey: "instance-token",
  });
const ids = (variant: string) => [...Array(EVENTS)].map((_, i) => `${variant}-${round}-${i}`);

async function publishBacklog(instance: string, variant: string): Promise<void> {
  const connection = await new AMQPClient(broker.url).connect();
  const channel = await connection.channel();
  // Confirmed: closing right after unconfirmed publishes can lose the last ones before the broker routes them.
  await channel.confirmSelect();
  await Promise.all(ids(variant).map((id) => channel.basicPublish(instance, "messages.upsert", body(id))));
  await connection.close();
}

async function viaRabbit(consumers: number, variant: string): Promise<number> {
  // A queue of its own per round and variant: a consumer never starts on a queue others just left.
  const instance = `bench-${round}-${consumers}`;
  const source = new RabbitMqSource({
    url: broker.url,
    instances: [instance],
    events: ["messages.upsert"],
    prefetch: CONCURRENCY,
    log: () => {},
  });
  const running = [...Array(consumers)].map(() => source.consume(processor));
  try {
    await Promise.all(running.map((c) => c.ready));
    // Timed from the first publish (the server's side of the broker) to the last event handled.
    const t0 = performance.now();
    await publishBacklog(instance, variant);
    // A stall is reported, not waited for: that round's figure is dropped.
    const stalled = setTimeout(() => {
      console.error(`stalled: ${handled}/${target} handled after 60 s (${consumers} consumer(s))`);
      finished.reject(new Error("stalled"));
    }, 60_000);
    await finished.promise.finally(() => clearTimeout(stalled));
    return performance.now() - t0;
  } finally {
    await Promise.all(running.map((c) => c.close()));
  }
}

const receiver = createWebhookHandler({ signature: { secret: SECRET }, processor });
async function viaWebhook(variant: string): Promise<number> {
  const requests: Request[] = [];
  for (const id of ids(variant)) {
    const text = body(id);
    const headers = await signWebhook({ body: text, secret: SECRET, timestamp: false });
    requests.push(
      new Request("http://127.0.0.1/gateway/webhook/bench", { method: "POST", headers, body: text }),
    );
  }
  const t0 = performance.now();
  for (let i = 0; i < requests.length; i += CONCURRENCY) {
    const answers = await Promise.all(requests.slice(i, i + CONCURRENCY).map((r) => receiver(r)));
    for (const answer of answers) {
      if (answer.status !== 200) throw new Error(`receiver answered ${answer.status}`);
    }
  }
  return performance.now() - t0;
}

async function direct(variant: string): Promise<number> {
  const payloads = ids(variant).map((id) => WebhookPayloadDto.from(JSON.parse(body(id)))!);
  const t0 = performance.now();
  for (let i = 0; i < payloads.length; i += CONCURRENCY) {
    await Promise.all(payloads.slice(i, i + CONCURRENCY).map((p) => processor.process(p)));
  }
  return performance.now() - t0;
}

const variants: Record<string, (variant: string) => Promise<number>> = {
  "processor.process (direct)": direct,
  "webhook receiver (in process)": viaWebhook,
  "RabbitMQ, one consumer": (v) => viaRabbit(1, v),
  "RabbitMQ, two consumers": (v) => viaRabbit(2, v),
};
const names = Object.keys(variants);
const times: Record<string, number[]> = Object.fromEntries(names.map((n) => [n, []]));
try {
  for (round = 0; round <= ROUNDS; round++) {
    for (let k = 0; k < names.length; k++) {
      const name = names[(round + k) % names.length];
      handled = 0;
      target = EVENTS;
      finished = Promise.withResolvers<void>();
      const ms = await variants[name](`${k}`).catch(() => undefined);
      if (round > 0 && ms !== undefined) times[name].push(ms); // round 0 warms up
    }
  }
} finally {
  await store.close();
  await broker.close();
  await redis.close();
}
const base = median(times[names[0]]) / EVENTS;
console.log(`${EVENTS} events per round, ${ROUNDS} rounds, claims on Redis, ${CONCURRENCY} in flight`);
for (const name of names) {
  const perEvent = median(times[name]) / EVENTS;
  console.log(
    `${name.padEnd(32)} ${(1000 / perEvent).toFixed(0).padStart(7)} events/s  ${
      (perEvent * 1000).toFixed(0).padStart(6)
    } µs/event  ×${(perEvent / base).toFixed(2)}  (+${
      ((perEvent - base) * 1000).toFixed(0)
    } µs/event over direct)`,
  );
}
