/**
 * `@gw/gateway/websocket`: the gateway server's events over its socket.io, for a consumer without a public
 * URL (a laptop, a machine behind NAT). `WebSocketSource.setup(gw)` turns each instance's websocket sink on;
 * `consume(target)` connects to the server's `/<instance>` namespaces with the api key and hands every event
 * to a `WebhookProcessor` or a `Bot`, the same handlers as the webhook receiver.
 *
 * At most once while connected: socket.io keeps nothing for a client that is away. On every reconnect the
 * inbound reconciler (`reconcileInboundMessages`) finds the messages that arrived meanwhile and runs them
 * through the same processor, whose claims keep each one to a single handling. The socket.io client
 * (`socket.io-client`) is loaded only when a consumer starts, so nobody who does not use this entry installs it.
 *
 * @example
 * ```ts
 * import { WebSocketSource } from "@gw/gateway/websocket";
 * import { GatewayService, MemoryStore, WebhookProcessor } from "@gw/gateway";
 * const store = new MemoryStore();
 * const gw = GatewayService.make({ server_url: "http://127.0.0.1:8080", api_key: "k", store });
 * const processor = new WebhookProcessor({ store }).on("messages.upsert", (p) => console.log(p.text));
 * const source = new WebSocketSource({
 *   url: "http://127.0.0.1:8080",
 *   apiKey: "k",
 *   instances: ["sales"],
 *   events: ["messages.upsert", "connection.update"],
 * });
 * await source.setup(gw);
 * const consumer = source.consume(processor);
 * await consumer.ready;
 * await consumer.close();
 * ```
 *
 * @module
 */

export { WebSocketSource, type WebSocketSourceService } from "./source.ts";
export { WebSocketConsumer } from "./consumer.ts";
export type { WebSocketBackoff, WebSocketSourceOptions } from "./options.ts";
export type { SourceTarget } from "../target.ts";
