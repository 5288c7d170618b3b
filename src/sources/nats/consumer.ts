import type { BrokerSettings } from "../broker_settings.ts";
import { BrokerConsumer, type BrokerSession } from "../broker_consumer.ts";
import { retryDelay, settleDelivery } from "../settle_delivery.ts";
import type { SourceDelivery } from "../target.ts";
import { type NatsJsMsg, natsLabel, type NatsLink, openNats } from "./client.ts";
import { deadLetterSubject, ensureConsumer, ensureStreams, eventStream } from "./streams.ts";

/** What a consumer runs with (the source's checked options). Internal. */
export interface NatsConsumerSettings extends BrokerSettings {
  consumerName: string;
  ackWaitMs: number;
}

/**
 * A consumer started by `NatsSource.consume`: acks after the handlers succeed, naks with a growing delay on
 * failure, dead-letters after `maxAttempts`. Consumers of one name (in any process) share the events.
 *
 * @example
 * ```ts
 * import { NatsSource } from "@gw/gateway/nats";
 * import { WebhookProcessor } from "@gw/gateway";
 * const source = new NatsSource({ url: "nats://localhost:4222", instances: ["sales"], events: ["messages.upsert"] });
 * const consumer = source.consume(new WebhookProcessor());
 * await consumer.ready;
 * await consumer.close();
 * ```
 */
export class NatsConsumer extends BrokerConsumer {
  /** Start consuming. Internal: use `NatsSource.consume`. */
  constructor(settings: NatsConsumerSettings, deliver: (delivery: SourceDelivery) => Promise<void>) {
    super(`NATS consumer (${natsLabel(settings.url)})`, settings, (started, loop) => {
      return natsSession({ settings, deliver, loop }, started);
    });
  }
}

type NatsRun = BrokerSession<NatsConsumerSettings>;

async function natsSession(run: NatsRun, started: () => void): Promise<void> {
  const { scope, consumerName, ackWaitMs, prefetch } = run.settings;
  const link = await openNats(run.settings.url, run.settings.connectTimeoutMs);
  const stopped = run.loop.stopped();
  const feeds: { stop(): void }[] = [];
  try {
    await ensureStreams(link.jsm, scope.instances);
    const loops: Promise<void>[] = [];
    for (const instance of scope.instances) {
      await ensureConsumer(link.jsm, instance, consumerName, ackWaitMs);
      const consumer = await link.js.consumers.get(eventStream(instance), consumerName);
      const messages = await consumer.consume({ max_messages: prefetch });
      feeds.push(messages);
      loops.push(drain(run, messages, link, instance));
    }
    started();
    const ended = link.closed.then(() => {
      throw new Error("the connection was closed");
    });
    await Promise.race([ended, stopped]);
    for (const feed of feeds) feed.stop();
    await Promise.all(loops);
    await run.loop.allDone();
  } finally {
    await link.close().catch(() => {});
  }
}

async function drain(
  run: NatsRun,
  messages: AsyncIterable<NatsJsMsg>,
  link: NatsLink,
  instance: string,
): Promise<void> {
  try {
    for await (const message of messages) {
      const running = run.loop.track(handle(run, message, link, instance));
      // At most `prefetch` handlers at once: wait for one to finish before taking more.
      if (running >= run.settings.prefetch) await run.loop.oneDone();
    }
  } catch {
    // the connection ended: the session reports it
  }
}

function handle(run: NatsRun, message: NatsJsMsg, link: NatsLink, instance: string): Promise<void> {
  const attempts = message.info.deliveryCount;
  const text = message.string();
  const deliveryId = `${eventStream(instance)}:${message.info.streamSequence}`;
  return settleDelivery({ text, attempts, deliveryId }, { ...run.settings, deliver: run.deliver }, {
    ack: () => message.ack(),
    retry: (delayMs) => message.nak(delayMs),
    deadLetter: (reason) => deadLetter(run, { message, link, instance }, reason, attempts),
  });
}

async function deadLetter(
  run: NatsRun,
  { message, link, instance }: { message: NatsJsMsg; link: NatsLink; instance: string },
  reason: string,
  attempts: number,
): Promise<void> {
  const headers = link.headers();
  headers.set("Gw-Subject", message.subject);
  headers.set("Gw-Reason", reason.replace(/[\r\n]+/g, " ").slice(0, 500));
  headers.set("Gw-Attempts", String(attempts));
  headers.set("Gw-Dead-At", String(run.settings.now()));
  try {
    await link.js.publish(deadLetterSubject(instance), message.data, { headers });
  } catch {
    message.nak(retryDelay(run.settings.retryDelay, attempts)); // not kept yet: try again later
    return;
  }
  message.term(reason.slice(0, 100));
}
