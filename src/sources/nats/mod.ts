/**
 * `@gw/gateway/nats`: the server's events from NATS, kept by JetStream, for a `WebhookProcessor` or a `Bot`.
 * Events wait in the stream while no consumer runs, consumers of one name share the work, a failing event is
 * retried with a growing delay and then dead-lettered. Only users of this entry install its NATS client
 * (`@nats-io/transport-node`, `@nats-io/jetstream`).
 *
 * @example
 * ```ts
 * import { NatsSource } from "@gw/gateway/nats";
 * import { GatewayService, WebhookProcessor } from "@gw/gateway";
 * const gw = GatewayService.make({ server_url: "http://localhost:8080", api_key: "k" });
 * const source = new NatsSource({ url: "nats://localhost:4222", instances: ["sales"], events: ["connection.update"] });
 * await source.setup(gw);
 * const consumer = source.consume(new WebhookProcessor().on("connection.update", (p) => console.log(p.data.state)));
 * ```
 *
 * @module
 */

export { NatsSource, type NatsSourceOptions } from "./source.ts";
export { NatsConsumer } from "./consumer.ts";
export type { NatsDeadLetter } from "./dead_letters.ts";
export type { BrokerConsumer } from "../broker_consumer.ts";
export type { BrokerSourceOptions } from "../broker_settings.ts";
export type { SourceSleep } from "../keep_connected.ts";
export type { SourceTarget } from "../target.ts";
