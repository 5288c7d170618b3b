/**
 * Routing of verified webhooks to the application. An update goes through one chain of `(ctx, next)`
 * middleware (`inbound_middleware.ts`): the processor's observers (the `WebhookReceived` / `MessageReceived`
 * events once listened to, and — once the processor has a store — the inbound records, `@lid` learning,
 * message statuses and instance health), then the application's middleware (`use`), then the handlers
 * (`on`, `onAny`; `registerHandler` is a form of `on`), which one loop runs (`events/dispatch.ts`).
 *
 * @module
 */

import { LidDirectory } from "../address/lid_directory.ts";
import { MessageStatusTracker } from "../delivery/status_tracker.ts";
import { WebhookException } from "../errors.ts";
import { InstanceHealth } from "../health/instance_health.ts";
import type { GatewayStore } from "../store/store.ts";
import { dispatchWebhook } from "./events/dispatch.ts";
import { WebhookEventTarget } from "./events/event_target.ts";
import type { WebhookEventSpelling } from "./events/names.ts";
import { type HandlerEntry, HandlerRegistry } from "./events/registry.ts";
import { AbstractWebhookHandler, normalizeKinds } from "./handler_base.ts";
import { type Arrival, NO_ARRIVAL } from "../inbound/arrivals.ts";
import { ArrivalBook, type Placed } from "../inbound/lines.ts";
import { type InboundClaimOptions, InboundMessageClaims } from "./message_claims.ts";
import { normalizeWebhookEvent, type WebhookPayloadDto, type WebhookPayloadOf } from "./payload.ts";
import { checkOptions, type WebhookProcessorOptions } from "./processor_options.ts";
import { InboundChain, type InboundMiddleware } from "./inbound_middleware.ts";
import { ProcessIncomingMessage } from "./plugins/inbound_records.ts";
import { RecordInstanceHealth } from "./plugins/instance_health.ts";
import { LearnLidPairs } from "./plugins/lid_pairs.ts";
import { LogWebhookEvent } from "./plugins/log.ts";
import { TrackMessageStatus } from "./plugins/message_status.ts";

export { WebhookProcessingException } from "./events/dispatch.ts";
export type { WebhookProcessorOptions } from "./processor_options.ts";
export type { InboundContext, InboundMiddleware } from "./inbound_middleware.ts";
export { ARRIVE, type MessageOutcome, PROCESS, PROCESS_MESSAGE } from "./processor_keys.ts";
import { ARRIVE, type MessageOutcome, PROCESS, PROCESS_MESSAGE } from "./processor_keys.ts";

/** A function handling webhooks of any kind. */
export type WebhookHandlerFunction = (payload: WebhookPayloadDto) => void | Promise<void>;

/**
 * A function handling the events `S` (one spelling or a union): its payload's `data` is typed by the event
 * (`WebhookEventData`). A returned promise is awaited before the next handler runs; other return values
 * are ignored.
 */
export type WebhookEventHandler<S extends WebhookEventSpelling> = (payload: WebhookPayloadOf<S>) => unknown;

function checkFunction(fn: unknown): void {
  if (typeof fn !== "function") throw new WebhookException("Cannot register webhook handler: not a function");
}

/**
 * Runs the application's handlers for each verified webhook, in registration order, after its inbound
 * middleware; dispatches `WebhookReceived` (every webhook) and `MessageReceived` (inbound messages) on
 * `events` (notifications, not a way to handle a webhook: use `on`).
 *
 * @example
 * ```ts
 * import { MessageReceived, WebhookProcessor, WebhookPayloadDto } from "@gw/gateway";
 * const processor = new WebhookProcessor()
 *   .on("messages.upsert", (payload) => console.log(payload.data.key.id, payload.text))
 *   .on(["connection.update"], (payload) => console.log(payload.data.state))
 *   .onAny((payload) => console.log(payload.event));
 * processor.events.addEventListener(MessageReceived.type, (event) => console.log((event as MessageReceived).sender));
 * await processor.process(WebhookPayloadDto.from({ event: "connection.update", instance: "sales", data: { state: "open" } })!);
 * ```
 */
export class WebhookProcessor {
  /** Where `WebhookReceived` and `MessageReceived` are dispatched (and the status tracker's events). */
  readonly events: EventTarget;
  readonly #registry = new HandlerRegistry();
  readonly #chain = new InboundChain((payload) => this.#handle(payload));
  readonly #log: LogWebhookEvent | undefined;
  readonly #connection: string;
  readonly #now: () => number;
  readonly #claimOptions: InboundClaimOptions | undefined;
  #store: GatewayStore | undefined;
  #claims: InboundMessageClaims | undefined;
  #lids: LidDirectory | undefined;
  #status: MessageStatusTracker | undefined;
  #health: InstanceHealth | undefined;
  readonly #book: ArrivalBook<unknown> | undefined;

  /**
   * Create a processor.
   *
   * @example
   * ```ts
   * import { MemoryStore, WebhookProcessor } from "@gw/gateway";
   * const processor = new WebhookProcessor({ store: new MemoryStore(), connection: "default" });
   * ```
   */
  constructor(options: WebhookProcessorOptions = {}) {
    checkOptions(options);
    this.#connection = options.connection ?? "default";
    this.#now = options.now ?? Date.now;
    this.#claimOptions = options.claims;
    // The log line is the processor's own, before the handlers: not a stage (it costs a level check).
    this.#log = options.log === false ? undefined : new LogWebhookEvent();
    const events = new WebhookEventTarget();
    this.events = events;
    // The events observe from their first listener on: a processor nobody listens to pays nothing.
    events.whenListened(() => this.#chain.observe(events));
    if (options.lines !== undefined) this.#book = new ArrivalBook(options.lines);
    if (options.store !== undefined) this.useStore(options.store);
  }

  /** The store inbound messages are written to, if any. */
  get store(): GatewayStore | undefined {
    return this.#store;
  }

  /**
   * Give the processor a store (see {@link WebhookProcessorOptions.store}): registers the store observers
   * (inbound middleware) once. A processor keeps the first store it is given.
   *
   * @example
   * ```ts
   * import { MemoryStore, WebhookProcessor } from "@gw/gateway";
   * new WebhookProcessor().useStore(new MemoryStore());
   * ```
   */
  useStore(store: GatewayStore): this {
    if (this.#store !== undefined) return this;
    checkOptions({ store });
    const now = this.#now;
    this.#store = store;
    this.#claims = new InboundMessageClaims(store.state, now, this.#claimOptions);
    this.#lids = new LidDirectory(store, { now });
    this.#status = new MessageStatusTracker({ store, events: this.events, now });
    this.#health = new InstanceHealth(store.state, { now });
    this.#chain.observe(new ProcessIncomingMessage(store));
    this.#chain.observe(new LearnLidPairs(this.#lids));
    this.#chain.observe(new TrackMessageStatus(this.#status));
    this.#chain.observe(new RecordInstanceHealth(this.#health, { connection: this.#connection }));
    return this;
  }

  /**
   * The claims on inbound updates, once the processor has a store: the one claim service its processing
   * and the bot share (keyed by instance and update id; held while the update waits or runs).
   *
   * @example
   * ```ts
   * import { MemoryStore, WebhookProcessor } from "@gw/gateway";
   * const processor = new WebhookProcessor({ store: new MemoryStore() });
   * await processor.claims?.state("sales", "3EB0"); // null: never claimed
   * ```
   */
  get claims(): InboundMessageClaims | undefined {
    return this.#claims;
  }

  /**
   * The LID ↔ phone directory this processor feeds from every webhook, once it has a store.
   *
   * @example
   * ```ts
   * import { MemoryStore, WebhookProcessor } from "@gw/gateway";
   * const processor = new WebhookProcessor({ store: new MemoryStore() });
   * await processor.lidDirectory?.toPhone("123456789012345@lid"); // undefined until a webhook showed it
   * ```
   */
  get lidDirectory(): LidDirectory | undefined {
    return this.#lids;
  }

  /**
   * The message status tracker this processor feeds (`send.message`, `messages.update`), once it has a
   * store. Its `MessageStatusChanged` and `MessageStuck` events are dispatched on `events`.
   *
   * @example
   * ```ts
   * import { MemoryStore, WebhookProcessor } from "@gw/gateway";
   * const processor = new WebhookProcessor({ store: new MemoryStore() });
   * await processor.messageStatus?.get("3EB0"); // null until a webhook reported it
   * ```
   */
  get messageStatus(): MessageStatusTracker | undefined {
    return this.#status;
  }

  /**
   * The instance health this processor records `connection.update` webhooks in, once it has a store
   * (under the `connection` option's name). A `GatewayService` over the same store reads the same records.
   *
   * @example
   * ```ts
   * import { MemoryStore, WebhookProcessor } from "@gw/gateway";
   * const processor = new WebhookProcessor({ store: new MemoryStore() });
   * (await processor.instanceHealth?.get({ connection: "default", instance: "sales" }))?.status; // "unknown"
   * ```
   */
  get instanceHealth(): InstanceHealth | undefined {
    return this.#health;
  }

  /**
   * Add inbound middleware `(ctx, next)`: it runs for every update, after the processor's own observers and
   * the middleware added before, and before the handlers; `ctx.payload` is the update, `next()` runs the
   * rest, and not calling it ends the update there (see {@link InboundMiddleware}).
   *
   * @example
   * ```ts
   * import { WebhookProcessor } from "@gw/gateway";
   * new WebhookProcessor()
   *   .use(async (ctx, next) => {
   *     if (ctx.payload.instance !== "test") await next(); // updates of "test" reach no handler
   *   })
   *   .onAny((payload) => console.log(payload.event));
   * ```
   */
  use(...middleware: InboundMiddleware[]): this {
    this.#chain.use(middleware);
    return this;
  }

  /**
   * Register a handler object for the kinds in its `events` (all kinds when empty): the seed's form of
   * `on(handler.events, (payload) => handler.handle(payload))`; `removeHandler(handler)` removes it.
   *
   * @example
   * ```ts
   * import { AbstractWebhookHandler, WebhookProcessor, type WebhookPayloadDto } from "@gw/gateway";
   * class OnConnection extends AbstractWebhookHandler {
   *   protected events = ["CONNECTION_UPDATE"];
   *   handle(payload: WebhookPayloadDto): void {
   *     console.log(payload.connectionState);
   *   }
   * }
   * new WebhookProcessor().registerHandler(new OnConnection());
   * ```
   */
  registerHandler(handler: AbstractWebhookHandler): this {
    if (
      !(handler instanceof AbstractWebhookHandler) &&
      typeof (handler as { handle?: unknown })?.handle !== "function"
    ) {
      throw new WebhookException("Cannot register webhook handler: it has no handle() method");
    }
    return this.#add(handler.handledEvents(), (payload) => handler.handle(payload), handler);
  }

  /**
   * Run `fn` for webhooks of `kind`: one event name or several, in any spelling the event table lists
   * (`messages.upsert`, `MESSAGES_UPSERT`, `messages_upsert`, `messages-upsert`). `fn`'s payload is typed
   * by the name (`payload.data` is `WebhookEventData["messages.upsert"]`). A name that is not an event is a
   * type error, and a `WebhookException` listing the valid names at run time.
   *
   * @example
   * ```ts
   * import { WebhookProcessor } from "@gw/gateway";
   * new WebhookProcessor()
   *   .on("messages.upsert", (payload) => console.log(payload.data.key.id, payload.text))
   *   .on("qrcode.updated", (payload) => console.log(payload.data.qrcode?.code));
   * ```
   */
  on<S extends WebhookEventSpelling>(kind: S | readonly S[], fn: WebhookEventHandler<S>): this {
    checkFunction(fn);
    const kinds = normalizeKinds(typeof kind === "string" ? [kind] : kind);
    if (kinds.length === 0) {
      throw new WebhookException("Cannot register webhook handler: no event kind given");
    }
    return this.#add(kinds, fn as (payload: WebhookPayloadDto) => unknown, fn);
  }

  /**
   * Run `fn` for every webhook, including kinds the server adds later.
   *
   * @example
   * ```ts
   * import { WebhookProcessor } from "@gw/gateway";
   * new WebhookProcessor().onAny((payload) => console.log(payload.event, payload.instance));
   * ```
   */
  onAny(fn: (payload: WebhookPayloadDto) => unknown): this {
    checkFunction(fn);
    return this.#add([], fn, fn);
  }

  /**
   * Remove a handler object or function registered before; returns whether it was registered.
   *
   * @example
   * ```ts
   * import { WebhookProcessor } from "@gw/gateway";
   * const log = () => {};
   * const processor = new WebhookProcessor().onAny(log);
   * processor.removeHandler(log); // true
   * ```
   */
  removeHandler(handler: AbstractWebhookHandler | ((payload: never) => unknown)): boolean {
    return this.#registry.remove(handler);
  }

  /**
   * How many handlers would run for `kind` (or are registered in total without `kind`).
   *
   * @example
   * ```ts
   * import { WebhookProcessor } from "@gw/gateway";
   * new WebhookProcessor().onAny(() => {}).handlerCount("messages.upsert"); // 1
   * ```
   */
  handlerCount(kind?: string): number {
    if (kind === undefined) return this.#registry.handlerCount();
    return this.#registry.handlerCount(normalizeWebhookEvent(kind) ?? "");
  }

  #add(kinds: string[], run: HandlerEntry["run"], owner: unknown): this {
    this.#registry.add({ kinds: kinds.length === 0 ? null : kinds, run, owner });
    return this;
  }

  /**
   * The one way in for an event from any source (the receiver, a queue worker, a RabbitMQ, NATS or
   * WebSocket consumer, a test): the event arrives when `process` is called, and takes its place in
   * arrival order then, synchronously (a bot's processor places it in its chat's line).
   *
   * Run the inbound middleware, then every handler for `payload.event`, in registration order. All the
   * handlers run even when one fails; then a {@link WebhookProcessingException} lists the failures
   * (handlers and middleware that threw, observers and listeners that failed, promises given to `waitUntil`
   * that rejected). With a store, an inbound message already handled is skipped.
   *
   * @example
   * ```ts
   * import { WebhookProcessor, WebhookPayloadDto } from "@gw/gateway";
   * const processor = new WebhookProcessor().on("call", (payload) => console.log(payload.data.from));
   * await processor.process(WebhookPayloadDto.from({ event: "call", data: { id: "1", from: "5511999999999@s.whatsapp.net" } })!);
   * ```
   */
  async process(payload: WebhookPayloadDto): Promise<void> {
    const pending = this[PROCESS](payload);
    if (pending !== undefined) await pending;
  }

  /** An event entering now (see {@link ARRIVE}): nothing to place without `lines`. Internal. */
  [ARRIVE](): Arrival<WebhookPayloadDto> {
    return this.#book?.arrive() ?? NO_ARRIVAL;
  }

  /**
   * How `payload` was read when it arrived, and its place in its line (the `lines` option), while it is
   * processed. Without `lines` the payload itself, unplaced.
   *
   * @example
   * ```ts
   * import { WebhookProcessor } from "@gw/gateway/webhooks";
   * const processor = new WebhookProcessor();
   * processor.onAny(async (payload) => console.log((await processor.placed(payload)).value === payload)); // true
   * ```
   */
  async placed<T = WebhookPayloadDto>(payload: WebhookPayloadDto): Promise<Placed<T>> {
    if (this.#book === undefined) return { value: payload as T, place: undefined };
    return await this.#book.placed(payload) as Placed<T>;
  }

  /**
   * `process` of a payload placed at `arrival`: undefined when it all ran at once and succeeded, a throw when
   * a handler failed at once, else a promise. Internal; why not plain `async`: bench/README.md, "Where a
   * result may be synchronous".
   */
  [PROCESS](payload: WebhookPayloadDto, arrival?: Arrival<WebhookPayloadDto>): Promise<void> | undefined {
    if (this.#book !== undefined) return this.#book.process(payload, arrival, (p) => this.#dispatch(p));
    return this.#dispatch(payload);
  }

  #dispatch(payload: WebhookPayloadDto): Promise<void> | undefined {
    if (this.#claims !== undefined && payload.isInboundMessage) {
      return this[PROCESS_MESSAGE](payload).then((outcome) => {
        if (outcome === "busy") {
          throw new WebhookException(
            `Cannot process message "${payload.messageId}": another delivery is processing it`,
            { status: 503 }, // The receiver answers 500 for any processing failure: the server retries.
          );
        }
      });
    }
    return this.#chain.run(payload);
  }

  #handle(payload: WebhookPayloadDto): Promise<void> | undefined {
    if (this.#log?.enabled) this.#log.observe(payload);
    return dispatchWebhook(this.#registry.for(payload.event), payload);
  }

  /**
   * Run an inbound message once by its id (with a store): `duplicate` when it was already handled,
   * `busy` when another delivery holds it now. Internal (the reconciler counts what it recovered).
   */
  async [PROCESS_MESSAGE](payload: WebhookPayloadDto): Promise<MessageOutcome> {
    const claims = this.#claims;
    const id = payload.messageId;
    const run = () => this.#chain.run(payload);
    if (claims === undefined || id === undefined) return (await run(), "processed");
    return await claims.once(payload.instance, id, run, { chat: payload.chatJid, from: payload.senderJid });
  }
}
