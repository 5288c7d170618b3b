import { ConfigurationException } from "../../errors.ts";
import type { GatewayService } from "../../service.ts";
import { WebhookProcessor } from "../../webhooks/processor.ts";
import type { SourceTarget } from "../target.ts";
import type { SocketFactory } from "./connection.ts";
import { type ReconcileWith, WebSocketConsumer } from "./consumer.ts";
import { type WebSocketSettings, websocketSettings, type WebSocketSourceOptions } from "./options.ts";

/** The part of a `GatewayService` that `setup` and the reconciler use. */
export type WebSocketSourceService = Pick<
  GatewayService,
  "instance" | "getStore" | "getInstanceName" | "getMetrics"
>;

async function loadClient(): Promise<SocketFactory> {
  // deno-lint-ignore no-import-prefix -- only ./websocket users install the client (not in the import map)
  const { io } = await import("npm:socket.io-client@4.8.4");
  return io as unknown as SocketFactory;
}

function processorOf(target: SourceTarget): WebhookProcessor | undefined {
  if (target instanceof WebhookProcessor) return target;
  const inner = (target as { processor?: unknown }).processor;
  return inner instanceof WebhookProcessor ? inner : undefined;
}

/**
 * The gateway server's events over socket.io, for the same handlers the webhook receiver runs. At most once
 * while connected (socket.io stores nothing); on every reconnect `reconcileInboundMessages` runs the inbound
 * messages missed meanwhile through the same processor, whose claims keep each to one handling.
 *
 * @example A bot on a laptop, without a public URL
 * ```ts
 * import { WebSocketSource } from "@gw/gateway/websocket";
 * import { GatewayService, KvStore } from "@gw/gateway";
 * import { Bot } from "@gw/gateway/bot";
 * const store = new KvStore(await Deno.openKv("bot.kv"));
 * const gw = GatewayService.make({ server_url: "http://127.0.0.1:8080", api_key: "k", store });
 * const bot = new Bot({ store });
 * bot.on("message:text", (ctx) => ctx.reply(`echo: ${ctx.text}`));
 * const source = new WebSocketSource({
 *   url: "http://127.0.0.1:8080",
 *   apiKey: "k",
 *   instances: ["sales"],
 *   events: ["messages.upsert", "connection.update"],
 * });
 * await source.setup(gw);
 * const consumer = source.consume(bot);
 * await consumer.ready;
 * // ...
 * await consumer.close();
 * ```
 */
export class WebSocketSource {
  readonly #settings: WebSocketSettings;
  #service: WebSocketSourceService | undefined;

  /** Check the options (an unknown key is refused with a suggestion); nothing connects yet. */
  constructor(options: WebSocketSourceOptions) {
    this.#settings = websocketSettings(options);
  }

  /**
   * Turn each instance's websocket sink on (`POST /websocket/set/<instance>`) and keep `gw` for the
   * reconciler. Refused when the server's socket.io is off.
   */
  async setup(gw: WebSocketSourceService): Promise<void> {
    for (const instance of this.#settings.instances) {
      const res = await gw.instance(instance).websocket().set({
        enabled: true,
        events: [...this.#settings.events],
      });
      if (res.data === null || typeof res.data !== "object" || res.data.enabled !== true) {
        throw new ConfigurationException(
          `Cannot set up the WebSocket source: the server did not enable the websocket sink of "${instance}" ` +
            `(is its socket.io on? WEBSOCKET_ENABLED=true in the server's environment)`,
          { instance },
        );
      }
    }
    this.#service = gw;
  }

  /**
   * Connect to every instance's namespace and hand each event to `target`. Reconciling (the default) needs
   * `setup(gw)` first and a store for the claims.
   */
  consume(target: SourceTarget): WebSocketConsumer {
    return new WebSocketConsumer(this.#settings, target, this.#reconcileWith(target), loadClient());
  }

  #reconcileWith(target: SourceTarget): ReconcileWith | undefined {
    if (!this.#settings.reconcile) return undefined;
    const why = "WebSocketSource.consume: reconciling on reconnect (`reconcile`, default true)";
    const service = this.#service;
    if (service === undefined) {
      throw new ConfigurationException(`${why} needs \`await source.setup(gw)\` first`, {
        setting: "reconcile",
      });
    }
    const processor = processorOf(target);
    if (processor === undefined) {
      throw new ConfigurationException(`${why} needs a WebhookProcessor or a Bot as the target`, {
        setting: "reconcile",
      });
    }
    if (processor.store === undefined && service.getStore() === undefined) {
      throw new ConfigurationException(
        `${why} needs a store for the claims: give one to the service or the processor, or pass reconcile: false`,
        { setting: "reconcile" },
      );
    }
    return { service, processor };
  }
}
