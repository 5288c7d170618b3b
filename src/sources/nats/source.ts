import { ConfigurationException } from "../../errors.ts";
import type { GatewayService } from "../../service.ts";
import { positiveInteger } from "../../util/checks.ts";
import { type BrokerSourceOptions, readBrokerSettings } from "../broker_settings.ts";
import { enableSinks } from "../enable_sink.ts";
import { deliverTo, type SourceTarget } from "../target.ts";
import { type NatsLink, openNats } from "./client.ts";
import { NatsConsumer, type NatsConsumerSettings } from "./consumer.ts";
import { listDeadLetters, type NatsDeadLetter, requeueDeadLetter } from "./dead_letters.ts";
import { ensureStreams } from "./streams.ts";

/** What `new NatsSource` takes. */
export interface NatsSourceOptions extends BrokerSourceOptions {
  /** `nats://host:port` (`nats://user:password@...`, or `nats://token@...`): the server the gateway publishes to. */
  url: string;
  /** The durable consumer's name (default `gateway`): consumers of one name share the events. */
  consumerName?: string;
  /** Handlers running at once per consumer (default 16). */
  prefetch?: number;
  /** How long a delivery may stay unacked before NATS redelivers it (default 30 000 ms). */
  ackWaitMs?: number;
  /** First delay before a failed event is redelivered (default 1000 ms), doubled per attempt up to 60 s. */
  retryDelayMs?: number;
}

const WHERE = "new NatsSource";
const NAME = /^[A-Za-z0-9_-]{1,64}$/;

function readOptions(options: NatsSourceOptions): NatsConsumerSettings {
  const settings = readBrokerSettings(WHERE, options, {
    protocols: ["nats:"],
    maxPrefetch: 10_000,
    keys: { consumerName: true, ackWaitMs: true },
  });
  const consumerName = options.consumerName ?? "gateway";
  if (typeof consumerName !== "string" || !NAME.test(consumerName)) {
    throw new ConfigurationException(`${WHERE}: "consumerName" must be 1 to 64 letters, digits, "-" or "_"`, {
      setting: "consumerName",
    });
  }
  return {
    ...settings,
    consumerName,
    ackWaitMs: positiveInteger(WHERE, "ackWaitMs", options.ackWaitMs, 30_000),
  };
}

/**
 * The server's events from NATS. The server publishes with core NATS (at most once: an event nobody
 * listens to is gone); `setup` creates a JetStream stream per instance over `<instance>.>` that keeps each
 * event until a consumer acks it, then turns the instance's NATS sink on. Consumers are durable: events
 * published while none runs wait for the next one.
 *
 * @example
 * ```ts
 * import { NatsSource } from "@gw/gateway/nats";
 * import { GatewayService, WebhookProcessor } from "@gw/gateway";
 * const gw = GatewayService.make({ server_url: "http://localhost:8080", api_key: "k" });
 * const source = new NatsSource({ url: "nats://localhost:4222", instances: ["sales"], events: ["messages.upsert"] });
 * await source.setup(gw);
 * const consumer = source.consume(new WebhookProcessor().on("messages.upsert", (p) => console.log(p.text)));
 * await consumer.close();
 * ```
 */
export class NatsSource {
  readonly #settings: NatsConsumerSettings;

  /** Check the options (an unknown key is refused with a suggestion); connects nothing yet. */
  constructor(options: NatsSourceOptions) {
    this.#settings = readOptions(options);
  }

  /**
   * Create (or check) the event and dead-letter streams, THEN enable the instances' NATS sink for the
   * source's events (`POST /nats/set/<instance>`, which replaces the sink's event list). Safe to run again.
   */
  async setup(gw: GatewayService): Promise<void> {
    const { scope } = this.#settings;
    await this.#withLink((link) => ensureStreams(link.jsm, scope.instances));
    await enableSinks(scope, {
      broker: "NATS",
      setting: "NATS_ENABLED",
      set: (instance, events) => gw.instance(instance).nats().set({ enabled: true, events }),
    });
  }

  /** Start a consumer handing every event to `target`; `consumer.ready` resolves when it takes messages. */
  consume(target: SourceTarget): NatsConsumer {
    return new NatsConsumer(this.#settings, deliverTo(target));
  }

  /**
   * The dead letters of every instance (up to `limit` per instance), oldest first, left in place.
   *
   * @example
   * ```ts
   * import { NatsSource } from "@gw/gateway/nats";
   * const source = new NatsSource({ url: "nats://localhost:4222", instances: ["sales"], events: ["call"] });
   * for (const letter of await source.listDeadLetters()) console.log(letter.id, letter.subject, letter.reason);
   * ```
   */
  async listDeadLetters(limit = 100): Promise<NatsDeadLetter[]> {
    const found: NatsDeadLetter[] = [];
    await this.#withLink(async (link) => {
      for (const instance of this.#settings.scope.instances) {
        found.push(...await listDeadLetters(link, instance, limit));
      }
    });
    return found;
  }

  /** Publish dead letter `id` again on its subject and delete it from the dead letters: true when found. */
  async requeueDeadLetter(id: string): Promise<boolean> {
    let done = false;
    await this.#withLink(async (link) => {
      done = await requeueDeadLetter(link, this.#settings.scope.instances, id);
    });
    return done;
  }

  async #withLink(work: (link: NatsLink) => Promise<void>): Promise<void> {
    const link = await openNats(this.#settings.url, this.#settings.connectTimeoutMs);
    try {
      await work(link);
    } finally {
      await link.close();
    }
  }
}
