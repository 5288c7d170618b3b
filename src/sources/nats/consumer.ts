/**
 * A running NATS consumer: takes the server's events from each instance's stream through the durable pull
 * consumer, hands each to the target, acks after the handlers succeed, naks with a growing delay on failure,
 * dead-letters after `maxAttempts`, and reconnects with backoff when the server goes away.
 *
 * @module
 */

import type { BrokerSettings } from "../broker_settings.ts";
import { ConsumerLoop } from "../consumer_loop.ts";
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
 * A consumer started by `NatsSource.consume`: runs until `close()`. Consumers of the same name (in one
 * process or many) share the durable consumer: each event goes to one of them.
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
export class NatsConsumer {
  /** Resolves once the consumer takes messages (or when it is closed before it could). */
  readonly ready: Promise<void>;
  readonly #settings: NatsConsumerSettings;
  readonly #deliver: (delivery: SourceDelivery) => Promise<void>;
  readonly #loop: ConsumerLoop;

  /**
   * Start consuming (done by `NatsSource.consume`).
   *
   * @example
   * ```ts
   * import { NatsSource } from "@gw/gateway/nats";
   * import { WebhookProcessor } from "@gw/gateway";
   * const source = new NatsSource({ url: "nats://localhost:4222", instances: ["sales"], events: ["call"] });
   * await source.consume(new WebhookProcessor()).close();
   * ```
   */
  constructor(settings: NatsConsumerSettings, deliver: (delivery: SourceDelivery) => Promise<void>) {
    this.#settings = settings;
    this.#deliver = deliver;
    this.#loop = new ConsumerLoop((started) => this.#session(started), {
      label: `NATS consumer (${natsLabel(settings.url)})`,
      backoff: settings.backoff,
      sleep: settings.sleep,
      log: settings.log,
    });
    this.ready = this.#loop.ready;
  }

  /**
   * Stop taking messages, let the handlers running now finish (and ack), then close the connection.
   *
   * @example
   * ```ts
   * import { NatsSource } from "@gw/gateway/nats";
   * import { WebhookProcessor } from "@gw/gateway";
   * const source = new NatsSource({ url: "nats://localhost:4222", instances: ["sales"], events: ["call"] });
   * await source.consume(new WebhookProcessor()).close();
   * ```
   */
  close(): Promise<void> {
    return this.#loop.close();
  }

  async #session(started: () => void): Promise<void> {
    const { scope, consumerName, ackWaitMs, prefetch } = this.#settings;
    const link = await openNats(this.#settings.url, this.#settings.connectTimeoutMs);
    const stopped = this.#loop.stopped();
    const feeds: { stop(): void }[] = [];
    try {
      await ensureStreams(link.jsm, scope.instances);
      const loops: Promise<void>[] = [];
      for (const instance of scope.instances) {
        await ensureConsumer(link.jsm, instance, consumerName, ackWaitMs);
        const consumer = await link.js.consumers.get(eventStream(instance), consumerName);
        const messages = await consumer.consume({ max_messages: prefetch });
        feeds.push(messages);
        loops.push(this.#drain(messages, link, instance));
      }
      started();
      const ended = link.closed.then(() => {
        throw new Error("the connection was closed");
      });
      await Promise.race([ended, stopped]);
      for (const feed of feeds) feed.stop();
      await Promise.all(loops);
      await this.#loop.allDone();
    } finally {
      await link.close().catch(() => {});
    }
  }

  async #drain(messages: AsyncIterable<NatsJsMsg>, link: NatsLink, instance: string): Promise<void> {
    try {
      for await (const message of messages) {
        const running = this.#loop.track(this.#handle(message, link, instance));
        // At most `prefetch` handlers at once: wait for one to finish before taking more.
        if (running >= this.#settings.prefetch) await this.#loop.oneDone();
      }
    } catch {
      // the connection ended: the session reports it
    }
  }

  #handle(message: NatsJsMsg, link: NatsLink, instance: string): Promise<void> {
    const attempts = message.info.deliveryCount;
    const text = message.string();
    const deliveryId = `${eventStream(instance)}:${message.info.streamSequence}`;
    return settleDelivery({ text, attempts, deliveryId }, { ...this.#settings, deliver: this.#deliver }, {
      ack: () => message.ack(),
      retry: (delayMs) => message.nak(delayMs),
      deadLetter: (reason) => this.#deadLetter(message, link, instance, reason, attempts),
    });
  }

  async #deadLetter(
    message: NatsJsMsg,
    link: NatsLink,
    instance: string,
    reason: string,
    attempts: number,
  ): Promise<void> {
    const headers = link.headers();
    headers.set("Gw-Subject", message.subject);
    headers.set("Gw-Reason", reason.replace(/[\r\n]+/g, " ").slice(0, 500));
    headers.set("Gw-Attempts", String(attempts));
    headers.set("Gw-Dead-At", String(this.#settings.now()));
    try {
      await link.js.publish(deadLetterSubject(instance), message.data, { headers });
    } catch {
      message.nak(retryDelay(this.#settings.retryDelay, attempts)); // not kept yet: try again later
      return;
    }
    message.term(reason.slice(0, 100));
  }
}
