/**
 * `BotHarness`: test a bot as a conversation with simulated people, in-process and without a network. The
 * harness runs the bot on the simulated gateway server (its replies are real requests to the simulator),
 * sends it webhooks shaped like the real server's, and lists what it answered to each person.
 *
 * @module
 */

import type { Bot, BotOptions } from "../bot/bot.ts";
import type { Context } from "../bot/context.ts";
import { checkOptionKeys, type OptionKeys } from "../option_keys.ts";
import { MemoryStore } from "../backends/memory/store.ts";
import type { GatewayStore } from "../store/store.ts";
import { abortableSleep } from "../timing.ts";
import { WebhookPayloadDto } from "../webhooks/payload.ts";
import { envelope, inboundMessage, type WebhookEnvelope } from "./bot_payloads.ts";
import { HarnessGroup, HarnessUser } from "./bot_harness_people.ts";
import { GatewayFake } from "./fake.ts";
import type { GatewaySimulator } from "./simulator/simulator.ts";
import type { SentMessageRecord } from "./simulator/types.ts";

export type { ImageOptions, WebhookEnvelope } from "./bot_payloads.ts";
export { HarnessGroup, HarnessUser } from "./bot_harness_people.ts";

/** Options of {@link BotHarness}. */
export interface BotHarnessOptions {
  /** The instance the bot serves (default `"bot"`). */
  instance?: string;
  /** The bot's own number (default `"5511900000000"`). */
  number?: string;
  /**
   * The bot's store. Default: the bot's own `store`, else a fresh `MemoryStore` on the bot's clock per
   * harness (a bot shared by several tests starts each one empty).
   */
  store?: GatewayStore;
}

const OPTION_KEYS: OptionKeys = { instance: true, number: true, store: true };

/**
 * A bot under test, on the simulated gateway server.
 *
 * The harness runs a copy of `bot` (same middleware, `catch` handler and options) whose service is the
 * simulator and whose plain sleeps only yield, so pacing never holds a test up. Its store is the `store`
 * option, else the bot's own when the bot was built with a `store`, else a fresh `MemoryStore` per harness
 * (then `h.bot.store` is the one a test reads, and `h.bot.pause()` the pause that counts). Time is the
 * bot's clock (`now`, default `Date.now`), given to the simulated service too: to test timeouts, build
 * the bot with a clock you move, and give its store the same clock.
 *
 * @example
 * ```ts
 * import { Bot } from "@gw/gateway/bot";
 * import { BotHarness } from "@gw/gateway/testing";
 * const bot = new Bot();
 * bot.hears("hi", (ctx) => ctx.reply(`Hello, ${ctx.from?.name}!`));
 * await using h = new BotHarness(bot);
 * const ana = h.user("5511999999999", { name: "Ana" });
 * await ana.send("hi");
 * console.log(ana.replies.at(-1)?.text); // "Hello, Ana!"
 * ```
 */
export class BotHarness<C extends Context = Context> {
  /** The simulated server's in-process fake (assertions on requests, scripted answers). */
  readonly fake: GatewayFake;
  /** The instance the bot serves. */
  readonly instance: string;
  readonly #updates: WebhookEnvelope[] = [];
  readonly #deliveryIds = new WeakMap<WebhookEnvelope, string>();
  readonly #ownerJid: string;
  readonly #instanceId: string;
  readonly #now: () => number;
  #bot: Bot<C>;

  /** Put `bot` on a fresh simulated server, with an open instance. */
  constructor(bot: Bot<C>, options: BotHarnessOptions = {}) {
    checkHarnessOptions(options);
    this.instance = options.instance ?? "bot";
    const number = options.number ?? "5511900000000";
    this.#now = bot.options.now ?? Date.now;
    const store = options.store ?? bot.options.store ?? new MemoryStore({ now: this.#now });
    const { service, fake } = GatewayFake.create({
      instance: this.instance,
      instanceOptions: { number },
      config: { store },
      now: this.#now,
    });
    this.fake = fake;
    const info = fake.simulator.instance(this.instance)!;
    this.#ownerJid = info.ownerJid!;
    this.#instanceId = info.id;
    const overrides: BotOptions = { service, store, sleep: harnessSleep };
    this.#bot = bot.restart(overrides);
  }

  /** The simulated server (instances, stored messages, faults). */
  get simulator(): GatewaySimulator {
    return this.fake.simulator;
  }

  /** The bot running now (a new one after each {@link BotHarness.restart}). */
  get bot(): Bot<C> {
    return this.#bot;
  }

  /** The bot's clock, epoch ms. */
  now(): number {
    return this.#now();
  }

  /**
   * A person writing to the bot from `number` (digits or a JID). With `lid`, their messages come addressed
   * by that `@lid` with the phone in `remoteJidAlt`, as 2.3.6 sends them.
   */
  user(number: string, options: { name?: string; lid?: string } = {}): HarnessUser {
    return new HarnessUser(this, number, options);
  }

  /**
   * A group the bot's number is in, created on the simulated server (so the bot's replies to it are
   * accepted) with `members`.
   *
   * @example
   * ```ts
   * import { Bot } from "@gw/gateway/bot";
   * import { BotHarness } from "@gw/gateway/testing";
   * await using h = new BotHarness(new Bot());
   * const ana = h.user("5511999999999");
   * const team = await h.group("Team", [ana]);
   * await team.send(ana, "hello group");
   * ```
   */
  async group(subject = "Group", members: readonly HarnessUser[] = []): Promise<HarnessGroup> {
    const simulator = this.fake.simulator;
    const response = await simulator.fetch(
      `http://gateway.test/group/create/${encodeURIComponent(this.instance)}`,
      {
        method: "POST",
        headers: { apikey: simulator.apiKey, "content-type": "application/json" },
        body: JSON.stringify({ subject, participants: members.map((m) => m.jid.split("@")[0]) }),
      },
    );
    const body = await response.json();
    if (!response.ok) throw new Error(`Cannot create group "${subject}": ${JSON.stringify(body)}`);
    return new HarnessGroup(this, String(body.id));
  }

  /** Every update delivered, oldest first. */
  get updates(): readonly WebhookEnvelope[] {
    return this.#updates;
  }

  /** The last update delivered. */
  get lastUpdate(): WebhookEnvelope | undefined {
    return this.#updates.at(-1);
  }

  /** Everything the bot sent, oldest first. */
  get sent(): readonly SentMessageRecord[] {
    return this.fake.simulator.sentMessages.filter((m) => m.instance === this.instance);
  }

  /**
   * Deliver an event as the server shapes it and wait until the bot handled it; rejects when middleware
   * failed and no `catch` handler took the error.
   */
  async deliver(event: string, data: unknown): Promise<WebhookEnvelope> {
    const body = envelope(
      { instance: this.instance, ownerJid: this.#ownerJid, now: this.#now() },
      event,
      data,
    );
    this.#updates.push(body);
    this.#deliveryIds.set(body, crypto.randomUUID());
    await this.#handle(body);
    return body;
  }

  /**
   * Deliver an update again, as the server does after a timeout or a 5xx (the same body and delivery id).
   *
   * @example
   * ```ts
   * import { Bot } from "@gw/gateway/bot";
   * import { BotHarness } from "@gw/gateway/testing";
   * const bot = new Bot();
   * bot.on("message:text", (ctx) => ctx.reply("once"));
   * await using h = new BotHarness(bot);
   * const ana = h.user("5511999999999");
   * await ana.send("hi");
   * await h.redeliver();
   * console.log(ana.replies.length); // 1
   * ```
   */
  async redeliver(update: WebhookEnvelope | undefined = this.lastUpdate): Promise<void> {
    if (update === undefined) throw new TypeError("Cannot redeliver: no update was delivered yet");
    await this.#handle(update);
  }

  /** Replace the bot by a new one on the same store and server, as a restarted process would build it. */
  restart(): Bot<C> {
    return this.#bot = this.#bot.restart();
  }

  /** Close the bot and the simulated server. */
  async close(): Promise<void> {
    await this.#bot.close();
    await this.fake.close();
  }

  /** Same as {@link BotHarness.close}, for `await using`. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  /** @internal A `messages.upsert` of `message` from `from` in chat `chat`. */
  async inbound(
    chat: { remoteJid: string; remoteJidAlt?: string; participant?: string },
    pushName: string,
    message: Record<string, unknown>,
    contextInfo: Record<string, unknown> | null = null,
  ): Promise<WebhookEnvelope> {
    const messageType = Object.keys(message).find((key) => key !== "messageContextInfo")!;
    const seconds = Math.floor(this.#now() / 1000);
    const raw = inboundMessage(
      { ...chat, pushName, instanceId: this.#instanceId },
      message,
      messageType,
      seconds,
      contextInfo,
    );
    return await this.deliver("messages.upsert", raw);
  }

  /** @internal A text through the simulator (so it stores the message), delivered. */
  async inboundText(
    options: { from: string; text: string; pushName: string; fromLid?: string; participant?: string },
  ): Promise<WebhookEnvelope> {
    const raw = this.fake.simulator.simulateInboundMessage(this.instance, options);
    return await this.deliver("messages.upsert", raw);
  }

  async #handle(body: WebhookEnvelope): Promise<void> {
    const payload = WebhookPayloadDto.from(body, {
      receivedAt: this.#now(),
      deliveryId: this.#deliveryIds.get(body),
    })!;
    await this.#bot.handleUpdate(payload);
  }
}

/**
 * The harness's sleep. A wait that can be cut short (a signal: a chat's turn being renewed or awaited) is a
 * real one, ended by its signal; a plain wait (the pacing gap, a debounce) only gives other tasks a turn, so
 * pacing never holds a test up.
 */
function harnessSleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal !== undefined) return abortableSleep(ms, signal);
  return new Promise((resolve) => setTimeout(resolve, 0));
}

function checkHarnessOptions(options: BotHarnessOptions): void {
  if (options === null || typeof options !== "object") {
    throw new TypeError("Cannot create BotHarness: options must be an object");
  }
  checkOptionKeys(options, OPTION_KEYS, "new BotHarness");
  const store = options.store;
  if (store !== undefined && (store === null || typeof store !== "object" || !("state" in store))) {
    throw new TypeError(
      `Cannot create BotHarness: "store" must be a GatewayStore (MemoryStore, KvStore, ...)`,
    );
  }
  for (const key of ["instance", "number"] as const) {
    const value = options[key];
    if (value !== undefined && (typeof value !== "string" || value === "")) {
      throw new TypeError(`Cannot create BotHarness: "${key}" must be a non-empty string`);
    }
  }
}
