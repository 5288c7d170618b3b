import { getGatewayLogger } from "./log.ts";

const log = getGatewayLogger("events");

/**
 * An `EventTarget` that logs what its listeners throw or reject, instead of an uncaught error ending the
 * process: a failing `MessageSent` listener never turns a successful send into a crash.
 */
export class GuardedEventTarget extends EventTarget {
  // type → listener → capture flag → the wrapper registered with the EventTarget.
  readonly #registry = new Map<
    string,
    Map<EventListenerOrEventListenerObject, Map<boolean, EventListener>>
  >();

  /** How many listeners are registered for `type` (callers skip building events nobody listens to). */
  listenerCount(type: string): number {
    let count = 0;
    for (const byCapture of this.#registry.get(type)?.values() ?? []) count += byCapture.size;
    return count;
  }

  /** Register a listener, wrapped so that its failures go to {@link GuardedEventTarget.onListenerError}. */
  override addEventListener(
    type: string,
    listener: EventListenerOrEventListenerObject | null,
    options?: boolean | AddEventListenerOptions,
  ): void {
    if (listener === null) return;
    const capture = typeof options === "boolean" ? options : options?.capture === true;
    const once = typeof options === "object" && options?.once === true;
    const signal = typeof options === "object" ? options?.signal : undefined;
    if (signal?.aborted) return;
    let byListener = this.#registry.get(type);
    if (byListener === undefined) this.#registry.set(type, byListener = new Map());
    let byCapture = byListener.get(listener);
    if (byCapture === undefined) byListener.set(listener, byCapture = new Map());
    if (byCapture.has(capture)) return;
    const forget = () => this.#forget(type, listener, capture, wrapper);
    const wrapper = (event: Event) => {
      if (once) forget();
      try {
        const result: unknown = typeof listener === "function"
          ? listener.call(event.currentTarget, event)
          : listener.handleEvent(event);
        if (result != null && typeof (result as PromiseLike<unknown>).then === "function") {
          this.onListenerPromise(event, Promise.resolve(result));
        }
      } catch (error) {
        this.onListenerError(event, error);
      }
    };
    byCapture.set(capture, wrapper);
    signal?.addEventListener("abort", forget, { once: true });
    super.addEventListener(type, wrapper, options);
  }

  /** Remove a listener registered with `addEventListener`. */
  override removeEventListener(
    type: string,
    listener: EventListenerOrEventListenerObject | null,
    options?: boolean | EventListenerOptions,
  ): void {
    if (listener === null) return;
    const capture = typeof options === "boolean" ? options : options?.capture === true;
    const wrapper = this.#registry.get(type)?.get(listener)?.get(capture);
    // Not one of ours: the EventTarget itself removes a wrapper this way when a listener's signal aborts.
    if (wrapper === undefined) return super.removeEventListener(type, listener, options);
    this.#forget(type, listener, capture, wrapper);
    super.removeEventListener(type, wrapper, options);
  }

  /** A listener threw, or its promise rejected: logged here; subclasses may route it elsewhere. */
  protected onListenerError(event: Event, error: unknown): void {
    log.error("A listener of {type} failed: {error}", {
      type: event.type,
      error: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
    });
  }

  /** A listener returned a promise: a rejection is handled like a throw; subclasses may wait for it. */
  protected onListenerPromise(event: Event, promise: Promise<unknown>): void {
    promise.catch((error) => this.onListenerError(event, error));
  }

  #forget(
    type: string,
    listener: EventListenerOrEventListenerObject,
    capture: boolean,
    wrapper: EventListener,
  ): void {
    const byListener = this.#registry.get(type);
    const byCapture = byListener?.get(listener);
    // Only the registration this wrapper belongs to (a newer one may have replaced it).
    if (byCapture === undefined || byCapture.get(capture) !== wrapper) return;
    byCapture.delete(capture);
    if (byCapture.size === 0) byListener!.delete(listener);
    if (byListener!.size === 0) this.#registry.delete(type);
  }
}
