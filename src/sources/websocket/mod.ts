/**
 * `@gw/gateway/websocket`: the gateway server's events over its socket.io, for a consumer without a public
 * URL (a laptop, behind NAT). At most once while connected; on every reconnect the inbound reconciler runs
 * the messages missed meanwhile. `socket.io-client` is loaded only when a consumer starts.
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
