/**
 * `BrokerConsumer`: what a running RabbitMQ or NATS consumer is to its user (`ready`, `close()`), around the
 * `ConsumerLoop` that keeps its broker sessions connected. Each broker gives only its session.
 *
 * @module
 */

import type { BrokerSettings } from "./broker_settings.ts";
import { ConsumerLoop } from "./consumer_loop.ts";
import type { SourceDelivery } from "./target.ts";

/** What a broker's session runs with: the checked settings, the target, and the loop it runs in. Internal. */
export interface BrokerSession<S extends BrokerSettings> {
  settings: S;
  deliver: (delivery: SourceDelivery) => Promise<void>;
  loop: ConsumerLoop;
}

/**
 * A running broker consumer (`RabbitMqConsumer`, `NatsConsumer`, from their source's `consume`): takes
 * messages until `close()`, and reconnects with backoff when the broker goes away.
 *
 * @example
 * ```ts
 * import type { BrokerConsumer } from "@gw/gateway/rabbitmq";
 * async function stop(consumer: BrokerConsumer): Promise<void> {
 *   await consumer.ready;
 *   await consumer.close();
 * }
 * ```
 */
export class BrokerConsumer {
  /** Resolves once the consumer takes messages (or when it is closed before it could). */
  readonly ready: Promise<void>;
  readonly #loop: ConsumerLoop;

  /**
   * Start the loop: `session` connects, consumes until the connection ends or the loop stops, and calls
   * `started()` once it takes messages. Internal: the brokers' consumers call it.
   */
  constructor(
    label: string,
    settings: BrokerSettings,
    session: (started: () => void, loop: ConsumerLoop) => Promise<void>,
  ) {
    const { backoff, sleep, log } = settings;
    this.#loop = new ConsumerLoop(session, { label, backoff, sleep, log });
    this.ready = this.#loop.ready;
  }

  /**
   * Stop taking messages, let the handlers running now finish (and ack), then close the connection.
   *
   * @example
   * ```ts
   * import { RabbitMqSource } from "@gw/gateway/rabbitmq";
   * import { WebhookProcessor } from "@gw/gateway";
   * const source = new RabbitMqSource({ url: "amqp://localhost", instances: ["sales"], events: ["call"] });
   * await source.consume(new WebhookProcessor()).close();
   * ```
   */
  close(): Promise<void> {
    return this.#loop.close();
  }
}
