import { ConfigurationException, ConnectionException } from "../../errors.ts";
import type { GatewayService } from "../../service.ts";
import { type BrokerSourceOptions, readBrokerSettings } from "../broker_settings.ts";
import { enableSinks } from "../enable_sink.ts";
import { deliverTo, type SourceTarget } from "../target.ts";
import { type AmqpConnection, openAmqp } from "./client.ts";
import { RabbitMqConsumer, type RabbitMqConsumerSettings } from "./consumer.ts";
import { peekDeadLetters, type RabbitMqDeadLetter } from "./dead_letters.ts";
import { declareTopology } from "./topology.ts";

/** What `new RabbitMqSource` takes. */
export interface RabbitMqSourceOptions extends BrokerSourceOptions {
  /** `amqp://user:password@host:port/vhost` (or `amqps://`): the broker the server publishes to. */
  url: string;
  /** Messages each queue hands a consumer before it acks any (default 16). */
  prefetch?: number;
  /** How long a failed event waits before it goes back to its queue (default 1000 ms), doubled per attempt up to 60 s. */
  retryDelayMs?: number;
}

const WHERE = "new RabbitMqSource";

function readOptions(options: RabbitMqSourceOptions): RabbitMqConsumerSettings {
  const settings = readBrokerSettings(WHERE, options, {
    protocols: ["amqp:", "amqps:"],
    maxPrefetch: 65_535,
    keys: {},
  });
  return { ...settings, newId: () => crypto.randomUUID() };
}

/**
 * The server's events from RabbitMQ: at least once from the broker, once through the target's claims.
 * `setup` declares the queues the server publishes to, then turns the instance's RabbitMQ sink on; `consume`
 * runs a consumer (as many as you like, in as many processes: they share the queues).
 *
 * @example
 * ```ts
 * import { RabbitMqSource } from "@gw/gateway/rabbitmq";
 * import { GatewayService, WebhookProcessor } from "@gw/gateway";
 * const gw = GatewayService.make({ server_url: "http://localhost:8080", api_key: "k" });
 * const source = new RabbitMqSource({
 *   url: "amqp://guest:guest@localhost:5672",
 *   instances: ["sales"],
 *   events: ["messages.upsert", "connection.update"],
 * });
 * await source.setup(gw);
 * const consumer = source.consume(new WebhookProcessor().on("messages.upsert", (p) => console.log(p.text)));
 * await consumer.close();
 * ```
 */
export class RabbitMqSource {
  readonly #settings: RabbitMqConsumerSettings;

  /** Check the options (an unknown key is refused with a suggestion); connects nothing yet. */
  constructor(options: RabbitMqSourceOptions) {
    this.#settings = readOptions(options);
  }

  /**
   * Declare the exchange, quorum queues, bindings (with the server's own arguments) and dead-letter queue,
   * THEN enable the instances' RabbitMQ sink (`POST /rabbitmq/set/<instance>`, which replaces the sink's
   * event list), so the first event published has a queue to land in. Safe to run again.
   */
  async setup(gw: GatewayService): Promise<void> {
    const { scope } = this.#settings;
    await this.#withChannel(async (connection) => {
      await declareTopology(await connection.channel(), scope.instances, scope.events);
    });
    await enableSinks(scope, {
      broker: "RabbitMQ",
      setting: "RABBITMQ_ENABLED",
      set: (instance, events) => gw.instance(instance).rabbitmq().set({ enabled: true, events }),
    });
  }

  /**
   * Start a consumer handing every event to `target`; `consumer.ready` resolves when it takes messages. It
   * declares the queues too, so events wait for it even when `setup` ran elsewhere.
   */
  consume(target: SourceTarget): RabbitMqConsumer {
    return new RabbitMqConsumer(this.#settings, deliverTo(target));
  }

  /**
   * The dead letters of every instance (up to `limit` per instance), oldest first, left in place.
   *
   * @example
   * ```ts
   * import { RabbitMqSource } from "@gw/gateway/rabbitmq";
   * const source = new RabbitMqSource({ url: "amqp://localhost", instances: ["sales"], events: ["call"] });
   * for (const letter of await source.listDeadLetters()) console.log(letter.id, letter.queue, letter.reason);
   * ```
   */
  async listDeadLetters(limit = 100): Promise<RabbitMqDeadLetter[]> {
    const found: RabbitMqDeadLetter[] = [];
    await this.#withChannel(async (connection) => {
      for (const instance of this.#settings.scope.instances) {
        const channel = await connection.channel();
        await peekDeadLetters(channel, instance, limit, (letter) => {
          found.push(letter);
          return Promise.resolve(false);
        });
        await channel.close();
      }
    });
    return found;
  }

  /**
   * Put dead letter `id` back on its event queue and remove it from the dead letters: true when found. Its
   * attempts start over.
   */
  async requeueDeadLetter(id: string): Promise<boolean> {
    let done = false;
    await this.#withChannel(async (connection) => {
      const publisher = await connection.channel();
      await publisher.confirmSelect();
      for (const instance of this.#settings.scope.instances) {
        if (done) break;
        const channel = await connection.channel();
        await peekDeadLetters(channel, instance, Number.MAX_SAFE_INTEGER, async (letter, message) => {
          if (letter.id !== id) return false;
          await publisher.basicPublish(instance, letter.routingKey, message.body ?? new Uint8Array(), {
            deliveryMode: 2,
          });
          await message.ack();
          done = true;
          return true;
        });
        await channel.close();
      }
    });
    return done;
  }

  async #withChannel(work: (connection: AmqpConnection) => Promise<void>): Promise<void> {
    const { url, connectTimeoutMs } = this.#settings;
    const connection = await openAmqp(url, connectTimeoutMs);
    try {
      await work(connection);
    } catch (error) {
      if (error instanceof ConnectionException || error instanceof ConfigurationException) throw error;
      throw new ConnectionException(`RabbitMQ refused the request: ${String((error as Error)?.message)}`, {
        reason: "network",
      });
    } finally {
      await connection.close().catch(() => {});
    }
  }
}
