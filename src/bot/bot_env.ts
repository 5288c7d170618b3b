import { configFromEnv, mergeConfig } from "../config.ts";
import { ConfigurationException } from "../errors.ts";
import { GatewayService } from "../service.ts";
import type { GatewayStore } from "../store/store.ts";
import { type EnvWebhookHandler, webhookHandlerFromEnv } from "../webhooks/default_handler.ts";
import type { WebhookExecutionContext, WebhookHandlerOptions } from "../webhooks/handler.ts";
import type { WebhookProcessor } from "../webhooks/processor.ts";
import type { BotOptions } from "./bot_options.ts";

/** The receivers and the service of one bot. */
export class BotEnvironment {
  readonly #store: GatewayStore;
  readonly #now: () => number;
  readonly #receiver: EnvWebhookHandler;
  #service: GatewayService | undefined;

  constructor(
    options: Readonly<BotOptions>,
    processor: WebhookProcessor,
    store: GatewayStore,
    now: () => number,
  ) {
    this.#store = store;
    this.#now = now;
    this.#service = options.service;
    const overrides: WebhookHandlerOptions = { ...options.receiver, processor, store };
    if (options.signature !== undefined) overrides.signature = options.signature;
    if (options.queue !== undefined) overrides.queue = options.queue;
    if (options.dedupe !== undefined) overrides.dedupe = options.dedupe;
    if (options.now !== undefined) overrides.now = options.now;
    this.#receiver = webhookHandlerFromEnv(overrides);
  }

  /** Answer one request with the receiver of its environment (Workers bindings, else `Deno.env`). */
  fetch(request: Request, envOrInfo?: unknown, ctx?: WebhookExecutionContext): Promise<Response> {
    return this.#receiver(request, envOrInfo, ctx);
  }

  /** The service: the given one, or one built now from the environment with the bot's store. */
  service(): GatewayService {
    if (this.#service !== undefined) return this.#service;
    const config = mergeConfig(configFromEnv((name) => this.#receiver.env(name)), { store: this.#store });
    if (config.server_url === undefined || config.api_key === undefined) {
      throw new ConfigurationException(
        "Cannot build the bot's service: GATEWAY_API_URL and GATEWAY_API_KEY must be set (or pass `service`)",
        { setting: config.server_url === undefined ? "GATEWAY_API_URL" : "GATEWAY_API_KEY" },
      );
    }
    return this.#service = new GatewayService(config, { now: this.#now });
  }

  /** Close what the receivers opened (a KV queue and its worker). */
  close(): Promise<void> {
    return this.#receiver.close();
  }
}
