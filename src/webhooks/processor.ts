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

/** A handler of the events `S`; a returned promise is awaited before the next handler runs. */
export type WebhookEventHandler<S extends WebhookEventSpelling> = (payload: WebhookPayloadOf<S>) => unknown;

function checkFunction(fn: unknown): void {
  if (typeof fn !== "function") throw new WebhookException("Cannot register webhook handler: not a function");
}

/**
 * Runs the handlers for each verified webhook in registration order, after the inbound middleware
 * (observers, then `use`); dispatches `WebhookReceived` and `MessageReceived` on `events`.
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
  /** Where `WebhookReceived`, `MessageReceived` and the status tracker's events are dispatched. */
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

  /** Create a processor. */
  constructor(options: WebhookProcessorOptions = {}) {
    checkOptions(options);
    this.#connection = options.connection ?? "default";
    this.#now = options.now ?? Date.now;
    this.#claimOptions = options.claims;
    // Not a stage: the log line costs only a level check.
    this.#log = options.log === false ? undefined : new LogWebhookEvent();
    const events = new WebhookEventTarget();
    this.events = events;
    // Observed from the first listener on: nobody listening costs nothing.
    events.whenListened(() => this.#chain.observe(events));
    if (options.lines !== undefined) this.#book = new ArrivalBook(options.lines);
    if (options.store !== undefined) this.useStore(options.store);
  }

  /** The store inbound messages are written to, if any. */
  get store(): GatewayStore | undefined {
    return this.#store;
  }

  /** Give the processor a store and its observers; the first store given is kept. */
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

  /** The claims on inbound updates (with a store), shared with the bot. */
  get claims(): InboundMessageClaims | undefined {
    return this.#claims;
  }

  /** The LID ↔ phone directory fed from every webhook (with a store). */
  get lidDirectory(): LidDirectory | undefined {
    return this.#lids;
  }

  /** The message status tracker (with a store); its events are dispatched on `events`. */
  get messageStatus(): MessageStatusTracker | undefined {
    return this.#status;
  }

  /** The instance health `connection.update` webhooks are recorded in (with a store). */
  get instanceHealth(): InstanceHealth | undefined {
    return this.#health;
  }

  /** Add inbound middleware `(ctx, next)`, run before the handlers; not calling `next()` ends the update. */
  use(...middleware: InboundMiddleware[]): this {
    this.#chain.use(middleware);
    return this;
  }

  /** Register a handler object for the kinds in its `events` (all kinds when empty). */
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
   * Run `fn` for webhooks of `kind` (one name or several, any spelling); an unknown name throws a
   * `WebhookException` listing the valid ones.
   */
  on<S extends WebhookEventSpelling>(kind: S | readonly S[], fn: WebhookEventHandler<S>): this {
    checkFunction(fn);
    const kinds = normalizeKinds(typeof kind === "string" ? [kind] : kind);
    if (kinds.length === 0) {
      throw new WebhookException("Cannot register webhook handler: no event kind given");
    }
    return this.#add(kinds, fn as (payload: WebhookPayloadDto) => unknown, fn);
  }

  /** Run `fn` for every webhook, including kinds the server adds later. */
  onAny(fn: (payload: WebhookPayloadDto) => unknown): this {
    checkFunction(fn);
    return this.#add([], fn, fn);
  }

  /** Remove a handler object or function; returns whether it was registered. */
  removeHandler(handler: AbstractWebhookHandler | ((payload: never) => unknown)): boolean {
    return this.#registry.remove(handler);
  }

  /** How many handlers would run for `kind` (all of them without `kind`). */
  handlerCount(kind?: string): number {
    if (kind === undefined) return this.#registry.handlerCount();
    return this.#registry.handlerCount(normalizeWebhookEvent(kind) ?? "");
  }

  #add(kinds: string[], run: HandlerEntry["run"], owner: unknown): this {
    this.#registry.add({ kinds: kinds.length === 0 ? null : kinds, run, owner });
    return this;
  }

  /**
   * Run the middleware and every handler for `payload.event`; the event takes its arrival place
   * synchronously. All handlers run even when one fails, then a {@link WebhookProcessingException} lists the
   * failures. With a store, an inbound message already handled is skipped.
   */
  async process(payload: WebhookPayloadDto): Promise<void> {
    const pending = this[PROCESS](payload);
    if (pending !== undefined) await pending;
  }

  /** An event entering now (see {@link ARRIVE}): nothing to place without `lines`. Internal. */
  [ARRIVE](): Arrival<WebhookPayloadDto> {
    return this.#book?.arrive() ?? NO_ARRIVAL;
  }

  /** How `payload` was read on arrival and its place in its line (`lines`); else the payload, unplaced. */
  placed<T = WebhookPayloadDto>(payload: WebhookPayloadDto): Promise<Placed<T>> {
    if (this.#book === undefined) return Promise.resolve({ value: payload as T, place: undefined });
    return this.#book.placed(payload) as Promise<Placed<T>>;
  }

  /** Internal `process`: undefined when all ran at once (why: bench/README.md, synchronous results). */
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
            { status: 503 }, // The server retries.
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

  /** Run an inbound message once by id: `duplicate` if handled, `busy` if another holds it. Internal. */
  async [PROCESS_MESSAGE](payload: WebhookPayloadDto): Promise<MessageOutcome> {
    const claims = this.#claims;
    const id = payload.messageId;
    const run = () => this.#chain.run(payload);
    if (claims === undefined || id === undefined) return (await run(), "processed");
    return await claims.once(payload.instance, id, run, { chat: payload.chatJid, from: payload.senderJid });
  }
}
