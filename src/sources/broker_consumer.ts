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
 * A running broker consumer (`RabbitMqConsumer`, `NatsConsumer`): takes messages until `close()`,
 * reconnecting with backoff when the broker goes away.
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

  /** Internal: `session` connects, calls `started()` once it takes messages, ends with its connection. */
  constructor(
    label: string,
    settings: BrokerSettings,
    session: (started: () => void, loop: ConsumerLoop) => Promise<void>,
  ) {
    const { backoff, sleep, log } = settings;
    this.#loop = new ConsumerLoop(session, { label, backoff, sleep, log });
    this.ready = this.#loop.ready;
  }

  /** Stop taking messages, let the running handlers finish (and ack), then close the connection. */
  close(): Promise<void> {
    return this.#loop.close();
  }
}
