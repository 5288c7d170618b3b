/**
 * `@gw/gateway/rabbitmq`: the server's events from RabbitMQ, for a `WebhookProcessor` or a `Bot`. Events wait
 * in the broker while no consumer runs, several consumers share the work, a failing event is retried and
 * then dead-lettered. Only users of this entry install its AMQP client (`@cloudamqp/amqp-client`).
 *
 * @example
 * ```ts
 * import { RabbitMqSource } from "@gw/gateway/rabbitmq";
 * import { GatewayService, WebhookProcessor } from "@gw/gateway";
 * const gw = GatewayService.make({ server_url: "http://localhost:8080", api_key: "k" });
 * const source = new RabbitMqSource({ url: "amqp://localhost", instances: ["sales"], events: ["connection.update"] });
 * await source.setup(gw);
 * const consumer = source.consume(new WebhookProcessor().on("connection.update", (p) => console.log(p.data.state)));
 * ```
 *
 * @module
 */

export { RabbitMqSource, type RabbitMqSourceOptions } from "./source.ts";
export { RabbitMqConsumer } from "./consumer.ts";
export type { RabbitMqDeadLetter } from "./dead_letters.ts";
export type { BrokerConsumer } from "../broker_consumer.ts";
export type { BrokerSourceOptions } from "../broker_settings.ts";
export type { SourceSleep } from "../keep_connected.ts";
export type { SourceTarget } from "../target.ts";
