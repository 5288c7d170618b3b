/**
 * Routing of verified webhooks to the application: handlers by event kind, and the `WebhookReceived` /
 * `MessageReceived` events.
 *
 * @module
 */

import { LidDirectory } from "../address/lid_directory.ts";
import { MessageStatusTracker } from "../delivery/status_tracker.ts";
import { WebhookException } from "../errors.ts";
import { MessageReceived, WebhookEvent, WebhookReceived } from "../events.ts";
import { GuardedEventTarget } from "../guarded_event_target.ts";
import type { GatewayStore } from "../store/store.ts";
import { AbstractWebhookHandler, normalizeKinds } from "./handler_base.ts";
import { LearnFromWebhook, LogWebhookEvent, ProcessIncomingMessage } from "./listeners.ts";
import { InboundMessageClaims } from "./message_claims.ts";
import type { WebhookEventSpelling } from "./events/names.ts";
import { normalizeWebhookEvent, type WebhookPayloadDto, type WebhookPayloadOf } from "./payload.ts";

/** A function handling webhooks of any kind. */
export type WebhookHandlerFunction = (payload: WebhookPayloadDto) => void | Promise<void>;

/**
 * A function handling the events `S` (one spelling or a union): its payload's `data` is typed by the event
 * (`WebhookEventData`). A returned promise is awaited before the next handler runs; other return values
 * are ignored.
 */
export type WebhookEventHandler<S extends WebhookEventSpelling> = (payload: WebhookPayloadOf<S>) => unknown;

// What the registry stores: any handler, seen from the dispatch loop.
type AnyHandler = (payload: WebhookPayloadDto) => unknown;

/**
 * Handlers or listeners failed for one webhook. `errors` holds every failure, in the order they happened.
 *
 * @example
 * ```ts
 * import { WebhookProcessingException, WebhookProcessor, WebhookPayloadDto } from "@gw/gateway";
 * const processor = new WebhookProcessor().onAny(() => {
 *   throw new Error("down");
 * });
 * try {
 *   await processor.process(WebhookPayloadDto.from({ event: "call", data: {} })!);
 * } catch (error) {
 *   if (error instanceof WebhookProcessingException) console.log(error.errors.length); // 1
 * }
 * ```
 */
export class WebhookProcessingException extends WebhookException {
  /** Every failure. */
  readonly errors: readonly unknown[];

  /**
   * Build from the failures of one webhook.
   *
   * @example
   * ```ts
   * import { WebhookProcessingException } from "@gw/gateway";
   * new WebhookProcessingException("CALL", [new Error("down")]);
   * ```
   */
  constructor(event: string, errors: readonly unknown[]) {
    const first = errors[0] instanceof Error ? errors[0].message : String(errors[0]);
    const more = errors.length > 1 ? ` (and ${errors.length - 1} more)` : "";
    super(`Cannot process webhook "${event}": ${first}${more}`, { status: 500, cause: errors[0] });
    this.errors = errors;
  }
}

/**
 * The processor's events: a listener that throws (or returns a promise that rejects) fails the webhook
 * being processed instead of only being logged, and a listener that returns a promise is waited for.
 */
class WebhookEventTarget extends GuardedEventTarget {
  protected override onListenerError(event: Event, error: unknown): void {
    if (event instanceof WebhookEvent) event.waitUntil(Promise.reject(error));
    else super.onListenerError(event, error);
  }

  protected override onListenerPromise(event: Event, promise: Promise<unknown>): void {
    if (event instanceof WebhookEvent) event.waitUntil(promise);
    else super.onListenerPromise(event, promise);
  }
}

/** Key of the processor's internal fast path (used by the handler and the queue worker). */
export const PROCESS: unique symbol = Symbol("gateway.webhook.process");

/** Key of the processor's inbound-message path that says what happened (used by the reconciler). */
export const PROCESS_MESSAGE: unique symbol = Symbol("gateway.webhook.processMessage");

/** What {@link PROCESS_MESSAGE} did with an inbound message. */
export type MessageOutcome = "processed" | "duplicate" | "busy";

interface Entry {
  fn: AnyHandler;
  owner: unknown;
}

/** Options of a {@link WebhookProcessor}. */
export interface WebhookProcessorOptions {
  /**
   * Store inbound messages here (binds `ProcessIncomingMessage`), handle each inbound message once by its
   * id, and feed `lidDirectory` and `messageStatus` from every webhook.
   */
  store?: GatewayStore;
  /** Bind `LogWebhookEvent` (default true). */
  log?: boolean;
}

/**
 * Runs the application's handlers for each verified webhook, in registration order, and dispatches
 * `WebhookReceived` (every webhook) and `MessageReceived` (inbound messages) on `events`.
 *
 * @example
 * ```ts
 * import { MessageReceived, WebhookProcessor, WebhookPayloadDto } from "@gw/gateway";
 * const processor = new WebhookProcessor()
 *   .on("messages.upsert", (payload) => console.log(payload.text))
 *   .on(["connection.update"], (payload) => console.log(payload.connectionState))
 *   .onAny((payload) => console.log(payload.event));
 * processor.events.addEventListener(MessageReceived.type, (event) => console.log((event as MessageReceived).sender));
 * await processor.process(WebhookPayloadDto.from({ event: "connection.update", instance: "sales", data: { state: "open" } })!);
 * ```
 */
export class WebhookProcessor {
  /** Where `WebhookReceived` and `MessageReceived` are dispatched. */
  readonly events: EventTarget = new WebhookEventTarget();
  #log: LogWebhookEvent | undefined;
  #store: GatewayStore | undefined;
  #claims: InboundMessageClaims | undefined;
  #lids: LidDirectory | undefined;
  #status: MessageStatusTracker | undefined;
  // Handlers per kind, each list in registration order (catch-all handlers included where they belong).
  #byKind = new Map<string, Entry[]>();
  #any: Entry[] = [];
  #all: Entry[] = [];

  /**
   * Create a processor.
   *
   * @example
   * ```ts
   * import { MemoryStore, WebhookProcessor } from "@gw/gateway";
   * const processor = new WebhookProcessor({ store: new MemoryStore() });
   * ```
   */
  constructor(options: WebhookProcessorOptions = {}) {
    if (options.log !== false) {
      this.#log = new LogWebhookEvent();
      this.events.addEventListener(WebhookReceived.type, this.#log);
    }
    if (options.store !== undefined) this.useStore(options.store);
  }

  /** The store inbound messages are written to, if any. */
  get store(): GatewayStore | undefined {
    return this.#store;
  }

  /**
   * Store inbound messages in `store` from now on (binds `ProcessIncomingMessage` once). A processor keeps
   * the first store it is given.
   *
   * @example
   * ```ts
   * import { MemoryStore, WebhookProcessor } from "@gw/gateway";
   * new WebhookProcessor().useStore(new MemoryStore());
   * ```
   */
  useStore(store: GatewayStore): this {
    if (this.#store === undefined) {
      this.#store = store;
      this.#claims = new InboundMessageClaims(store.state);
      this.#lids = new LidDirectory(store);
      this.#status = new MessageStatusTracker({ store, events: this.events });
      this.events.addEventListener(MessageReceived.type, new ProcessIncomingMessage(store));
      this.events.addEventListener(WebhookReceived.type, new LearnFromWebhook(this.#lids, this.#status));
    }
    return this;
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
   * Register a handler object for the kinds in its `events` (all kinds when empty).
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
    const kinds = handler.handledEvents();
    return this.#add(kinds, { fn: (payload) => handler.handle(payload), owner: handler });
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
    if (typeof fn !== "function") {
      throw new WebhookException("Cannot register webhook handler: not a function");
    }
    const kinds = normalizeKinds(typeof kind === "string" ? [kind] : kind);
    if (kinds.length === 0) {
      throw new WebhookException("Cannot register webhook handler: no event kind given");
    }
    return this.#add(kinds, { fn: fn as AnyHandler, owner: fn });
  }

  /**
   * Run `fn` for every webhook.
   *
   * @example
   * ```ts
   * import { WebhookProcessor } from "@gw/gateway";
   * new WebhookProcessor().onAny((payload) => console.log(payload.event, payload.instance));
   * ```
   */
  onAny(fn: (payload: WebhookPayloadDto) => unknown): this {
    if (typeof fn !== "function") {
      throw new WebhookException("Cannot register webhook handler: not a function");
    }
    return this.#add([], { fn, owner: fn });
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
    const keep = (entry: Entry) => entry.owner !== handler;
    const before = this.#all.length;
    this.#all = this.#all.filter(keep);
    this.#any = this.#any.filter(keep);
    for (const [kind, list] of this.#byKind) this.#byKind.set(kind, list.filter(keep));
    return this.#all.length !== before;
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
    if (kind === undefined) return this.#all.length;
    return this.#handlersFor(normalizeWebhookEvent(kind) ?? "").length;
  }

  #add(kinds: string[], entry: Entry): this {
    this.#all.push(entry);
    if (kinds.length === 0) {
      this.#any.push(entry);
      for (const list of this.#byKind.values()) list.push(entry);
      return this;
    }
    for (const kind of kinds) {
      let list = this.#byKind.get(kind);
      if (list === undefined) {
        // Catch-alls registered so far come before this handler.
        list = [...this.#any];
        this.#byKind.set(kind, list);
      }
      list.push(entry);
    }
    return this;
  }

  #handlersFor(kind: string): Entry[] {
    return this.#byKind.get(kind) ?? this.#any;
  }

  /**
   * Dispatch the events and run every handler for `payload.event`, in registration order. All handlers run
   * even when one fails; then a {@link WebhookProcessingException} lists the failures (handlers that threw,
   * listeners that threw, promises given to `waitUntil` that rejected).
   *
   * @example
   * ```ts
   * import { WebhookProcessor, WebhookPayloadDto } from "@gw/gateway";
   * const processor = new WebhookProcessor().on("call", (payload) => console.log(payload.data));
   * await processor.process(WebhookPayloadDto.from({ event: "call", data: { id: "1" } })!);
   * ```
   */
  async process(payload: WebhookPayloadDto): Promise<void> {
    const pending = this[PROCESS](payload);
    if (pending !== undefined) await pending;
  }

  /**
   * `process` without promise layers when everything is synchronous: returns undefined when every handler
   * and listener finished at once and succeeded, throws when one of them failed, or returns a promise.
   * Internal (the handler's hot path).
   */
  [PROCESS](payload: WebhookPayloadDto): Promise<void> | undefined {
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
    return this.#dispatch(payload);
  }

  /**
   * Run an inbound message once by its id (with a store): `duplicate` when it was already handled,
   * `busy` when another delivery holds it now. Internal (the reconciler counts what it recovered).
   */
  async [PROCESS_MESSAGE](payload: WebhookPayloadDto): Promise<MessageOutcome> {
    const claims = this.#claims;
    const id = payload.messageId;
    if (claims === undefined || id === undefined) {
      await this.#dispatch(payload);
      return "processed";
    }
    if (!(await claims.claim(payload.instance, id))) {
      return (await claims.state(payload.instance, id)) === "processing" ? "busy" : "duplicate";
    }
    try {
      await this.#dispatch(payload);
    } catch (error) {
      await claims.release(payload.instance, id).catch(() => {});
      throw error;
    }
    await claims.complete(payload.instance, id);
    return "processed";
  }

  #dispatch(payload: WebhookPayloadDto): Promise<void> | undefined {
    let errors: unknown[] | undefined;
    const events = this.events as WebhookEventTarget;
    // Events are only built when someone listens (the log listener counts only when its level is on).
    let received: WebhookReceived | undefined;
    const quietLog = this.#log !== undefined && !this.#log.enabled ? 1 : 0;
    if (events.listenerCount(WebhookReceived.type) > quietLog) {
      received = new WebhookReceived(payload);
      events.dispatchEvent(received);
    }
    let message: MessageReceived | undefined;
    if (events.listenerCount(MessageReceived.type) > 0 && payload.isInboundMessage) {
      message = new MessageReceived(payload);
      events.dispatchEvent(message);
    }
    const handlers = this.#handlersFor(payload.event);
    for (let i = 0; i < handlers.length; i++) {
      try {
        const result = handlers[i].fn(payload);
        if (result != null && typeof (result as PromiseLike<void>).then === "function") {
          return this.#continue(payload, handlers, i, result as PromiseLike<void>, received, message, errors);
        }
      } catch (error) {
        (errors ??= []).push(error);
      }
    }
    if (
      (received === undefined || received.pending.length === 0) &&
      (message === undefined || message.pending.length === 0)
    ) {
      if (errors !== undefined) throw new WebhookProcessingException(payload.event, errors);
      return undefined;
    }
    return this.#finish(payload.event, received, message, errors);
  }

  async #continue(
    payload: WebhookPayloadDto,
    handlers: Entry[],
    index: number,
    first: PromiseLike<void>,
    received: WebhookReceived | undefined,
    message: MessageReceived | undefined,
    errors: unknown[] | undefined,
  ): Promise<void> {
    try {
      await first;
    } catch (error) {
      (errors ??= []).push(error);
    }
    for (let i = index + 1; i < handlers.length; i++) {
      try {
        await handlers[i].fn(payload);
      } catch (error) {
        (errors ??= []).push(error);
      }
    }
    await this.#finish(payload.event, received, message, errors);
  }

  async #finish(
    event: string,
    received: WebhookReceived | undefined,
    message: MessageReceived | undefined,
    errors: unknown[] | undefined,
  ): Promise<void> {
    for (const dispatched of [received, message]) {
      if (dispatched === undefined || dispatched.pending.length === 0) continue;
      for (const outcome of await Promise.allSettled(dispatched.pending)) {
        if (outcome.status === "rejected") (errors ??= []).push(outcome.reason);
      }
    }
    if (errors !== undefined) throw new WebhookProcessingException(event, errors);
  }
}
