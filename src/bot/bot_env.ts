/**
 * What a bot takes from its environment: the webhook receiver (built per environment like `handleWebhook`'s,
 * with the bot's processor, store and options on top) and the default service (`GATEWAY_API_*` from the
 * same environment, with the bot's store).
 *
 * @module
 */

import { configFromEnv, mergeConfig } from "../config.ts";
import { ConfigurationException } from "../errors.ts";
import { GatewayService } from "../service.ts";
import type { GatewayStore } from "../store/store.ts";
import { buildFromEnv, type Built, denoLookup, isBindings } from "../webhooks/default_handler.ts";
import type { WebhookExecutionContext, WebhookHandlerOptions } from "../webhooks/handler.ts";
import { misconfigured } from "../webhooks/pipeline/guard.ts";
import { discardBody } from "../webhooks/pipeline/route.ts";
import type { WebhookProcessor } from "../webhooks/processor.ts";
import type { BotOptions } from "./bot_options.ts";

/** The receivers and the service of one bot. */
export class BotEnvironment {
  readonly #options: Readonly<BotOptions>;
  readonly #processor: WebhookProcessor;
  readonly #store: GatewayStore;
  readonly #now: () => number;
  #service: GatewayService | undefined;
  #lookup: ((name: string) => string | undefined) | undefined;
  #denoReceiver: Built | undefined;
  readonly #bindingReceivers = new WeakMap<object, Built>();
  readonly #opened: Built[] = [];

  constructor(
    options: Readonly<BotOptions>,
    processor: WebhookProcessor,
    store: GatewayStore,
    now: () => number,
  ) {
    this.#options = options;
    this.#processor = processor;
    this.#store = store;
    this.#now = now;
    this.#service = options.service;
  }

  /** Answer one request with the receiver of its environment (Workers bindings, else `Deno.env`). */
  fetch(request: Request, envOrInfo?: unknown, ctx?: WebhookExecutionContext): Promise<Response> {
    const built = this.#receiverFor(envOrInfo);
    if (typeof built !== "function") {
      discardBody(request);
      return Promise.resolve(misconfigured({ metrics: undefined }, built.problem));
    }
    return built(request, envOrInfo, ctx);
  }

  #receiverFor(envOrInfo: unknown): Built {
    if (!isBindings(envOrInfo)) return this.#denoReceiver ??= this.#build(denoLookup);
    let built = this.#bindingReceivers.get(envOrInfo);
    if (built === undefined) {
      const env = envOrInfo;
      const get = (name: string) => typeof env[name] === "string" ? env[name] as string : denoLookup(name);
      this.#lookup ??= (name) => get(name) ?? undefined; // the service reads the same environment
      built = this.#build(get);
      this.#bindingReceivers.set(envOrInfo, built);
    }
    return built;
  }

  #build(get: (name: string) => string | undefined | null): Built {
    const o = this.#options;
    const overrides: WebhookHandlerOptions = {
      ...o.receiver,
      processor: this.#processor,
      store: this.#store,
    };
    if (o.signature !== undefined) overrides.signature = o.signature;
    if (o.queue !== undefined) overrides.queue = o.queue;
    if (o.dedupe !== undefined) overrides.dedupe = o.dedupe;
    if (o.now !== undefined) overrides.now = o.now;
    const built = buildFromEnv(get, overrides);
    this.#opened.push(built);
    return built;
  }

  /** The service: the given one, or one built now from the environment with the bot's store. */
  service(): GatewayService {
    if (this.#service !== undefined) return this.#service;
    const lookup = this.#lookup ?? ((name: string) => denoLookup(name) ?? undefined);
    const config = mergeConfig(configFromEnv(lookup), { store: this.#store });
    if (config.server_url === undefined || config.api_key === undefined) {
      throw new ConfigurationException(
        "Cannot build the bot's service: GATEWAY_API_URL and GATEWAY_API_KEY must be set (or pass `service`)",
        { setting: config.server_url === undefined ? "GATEWAY_API_URL" : "GATEWAY_API_KEY" },
      );
    }
    return this.#service = new GatewayService(config, { now: this.#now });
  }

  /** Close what the receivers opened (a KV queue and its worker). */
  async close(): Promise<void> {
    const opened = this.#opened.splice(0);
    this.#denoReceiver = undefined;
    for (const built of opened) if (typeof built === "function") await built.close();
  }
}
