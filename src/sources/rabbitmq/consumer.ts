import type { BrokerSettings } from "../broker_settings.ts";
import { BrokerConsumer, type BrokerSession } from "../broker_consumer.ts";
import { settleDelivery } from "../settle_delivery.ts";
import type { SourceDelivery } from "../target.ts";
import { type AmqpChannel, type AmqpConnection, type AmqpMessage, openAmqp, rabbitLabel } from "./client.ts";
import { publishDeadLetter } from "./dead_letters.ts";
import { declareTopology, eventQueue } from "./topology.ts";

/** What a consumer runs with (the source's checked options). Internal. */
export interface RabbitMqConsumerSettings extends BrokerSettings {
  newId: () => string;
}

/** Where one message came from. */
interface Origin {
  instance: string;
  queue: string;
  deadLetters: AmqpChannel;
}

/**
 * A consumer started by `RabbitMqSource.consume`: acks after the handlers succeed, requeues on failure,
 * dead-letters after `maxAttempts`. Consumers in any process share the queues (each message goes to one);
 * on `close()` the messages taken but not started go back to their queue.
 *
 * @example
 * ```ts
 * import { RabbitMqSource } from "@gw/gateway/rabbitmq";
 * import { WebhookProcessor } from "@gw/gateway";
 * const source = new RabbitMqSource({ url: "amqp://localhost", instances: ["sales"], events: ["messages.upsert"] });
 * const consumer = source.consume(new WebhookProcessor());
 * await consumer.ready;
 * await consumer.close();
 * ```
 */
export class RabbitMqConsumer extends BrokerConsumer {
  /** Start consuming. Internal: use `RabbitMqSource.consume`. */
  constructor(settings: RabbitMqConsumerSettings, deliver: (delivery: SourceDelivery) => Promise<void>) {
    super(`RabbitMQ consumer (${rabbitLabel(settings.url)})`, settings, (started, loop) => {
      return rabbitSession({ settings, deliver, loop }, started);
    });
  }
}

type RabbitRun = BrokerSession<RabbitMqConsumerSettings>;

async function rabbitSession(run: RabbitRun, started: () => void): Promise<void> {
  const { promise: lost, reject } = Promise.withResolvers<never>();
  lost.catch(() => {});
  const connection = await openAmqp(run.settings.url, run.settings.connectTimeoutMs, reject);
  const stopped = run.loop.stopped();
  try {
    const tags = await subscribe(run, connection);
    started();
    await Promise.race([lost, stopped]);
    await Promise.all(tags.map(([channel, tag]) => channel.basicCancel(tag).catch(() => {})));
    await run.loop.allDone();
  } finally {
    await connection.close().catch(() => {});
  }
}

async function subscribe(run: RabbitRun, connection: AmqpConnection): Promise<[AmqpChannel, string][]> {
  const { scope, prefetch } = run.settings;
  const channel = await connection.channel();
  await declareTopology(channel, scope.instances, scope.events);
  await channel.prefetch(prefetch);
  const deadLetters = await connection.channel();
  await deadLetters.confirmSelect();
  const tags: [AmqpChannel, string][] = [];
  for (const instance of scope.instances) {
    for (const event of scope.events) {
      const origin = { instance, queue: eventQueue(instance, event), deadLetters };
      const onMessage = (message: AmqpMessage) => {
        run.loop.track(handle(run, message, origin));
      };
      // The client registers a consumer only after handling ConsumeOk and silently drops a delivery that
      // comes before (with a backlog, unacked until the connection closed): register under our tag first.
      const tag = `gw-${crypto.randomUUID()}`;
      channel.consumers.set(tag, { tag, onMessage, setClosed: () => {} });
      await channel.basicConsume(origin.queue, { noAck: false, tag }, onMessage);
      tags.push([channel, tag]);
    }
  }
  return tags;
}

function handle(run: RabbitRun, message: AmqpMessage, origin: Origin): Promise<void> {
  const attempts = deliveryCount(message) + 1;
  const text = message.bodyString();
  const deliveryId = message.properties.messageId;
  return settleDelivery({ text, attempts, deliveryId }, { ...run.settings, deliver: run.deliver }, {
    // A lost ack means a redelivery, which the target's claims turn into a duplicate skipped.
    ack: () => message.ack().catch(() => {}),
    // Held for the delay, then requeued (the broker counts it in x-delivery-count); close() cuts the wait.
    retry: async (delayMs) => {
      await run.settings.sleep(delayMs, run.loop.signal).catch(() => {});
      await message.nack(true).catch(() => {});
    },
    deadLetter: (reason) => deadLetter(run, message, origin, reason, attempts),
  });
}

async function deadLetter(
  run: RabbitRun,
  message: AmqpMessage,
  origin: Origin,
  reason: string,
  attempts: number,
): Promise<void> {
  const { instance, queue } = origin;
  try {
    await publishDeadLetter(origin.deadLetters, message, {
      instance,
      queue,
      reason,
      attempts,
      now: run.settings.now(),
      id: run.settings.newId(),
    });
  } catch {
    // Not kept as a dead letter: leave it on its queue for a later try.
    await message.nack(true).catch(() => {});
    return;
  }
  await message.ack().catch(() => {});
}

/** The broker's count of earlier deliveries of a quorum queue's message (absent on the first). */
function deliveryCount(message: AmqpMessage): number {
  const count = Number(message.properties.headers?.["x-delivery-count"] ?? 0);
  return Number.isFinite(count) && count > 0 ? count : 0;
}
