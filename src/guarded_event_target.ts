/**
 * An `EventTarget` whose listeners cannot crash the process.
 *
 * @module
 */

import { getGatewayLogger } from "./log.ts";

const log = getGatewayLogger("events");

/**
 * An `EventTarget` that catches what its listeners throw (or the promises they return that reject) and
 * logs it, instead of letting it become an uncaught error that ends a Deno process. `GatewayService.events`
 * is one: a failing `MessageSent` listener never turns a successful send into a crash.
 *
 * @example
 * ```ts
 * import { GuardedEventTarget } from "@gw/gateway";
 * const target = new GuardedEventTarget();
 * target.addEventListener("ping", () => {
 *   throw new Error("listener bug");
 * });
 * target.dispatchEvent(new Event("ping")); // logged under ["gateway", "events"], nothing thrown
 * ```
 */
export class GuardedEventTarget extends EventTarget {
  // listener → capture flag → the wrapper registered with the EventTarget, per type.
  readonly #wrappers = new Map<
    string,
    Map<EventListenerOrEventListenerObject, Map<boolean, EventListener>>
  >();

  /**
   * Register a listener, wrapped so that its failures are logged.
   *
   * @example
   * ```ts
   * import { GuardedEventTarget } from "@gw/gateway";
   * new GuardedEventTarget().addEventListener("MessageSent", (event) => console.log(event.type));
   * ```
   */
  override addEventListener(
    type: string,
    listener: EventListenerOrEventListenerObject | null,
    options?: boolean | AddEventListenerOptions,
  ): void {
    if (listener === null) return;
    const capture = typeof options === "boolean" ? options : options?.capture === true;
    let byListener = this.#wrappers.get(type);
    if (byListener === undefined) this.#wrappers.set(type, byListener = new Map());
    let byCapture = byListener.get(listener);
    if (byCapture === undefined) byListener.set(listener, byCapture = new Map());
    if (byCapture.has(capture)) return;
    const wrapper: EventListener = (event) => {
      if (typeof options === "object" && options?.once) byCapture!.delete(capture);
      try {
        const result: unknown = typeof listener === "function"
          ? listener.call(event.currentTarget, event)
          : listener.handleEvent(event);
        if (result != null && typeof (result as PromiseLike<unknown>).then === "function") {
          Promise.resolve(result).catch((error) => report(event, error));
        }
      } catch (error) {
        report(event, error);
      }
    };
    byCapture.set(capture, wrapper);
    if (typeof options === "object" && options.signal) {
      options.signal.addEventListener("abort", () => byCapture!.delete(capture), { once: true });
    }
    super.addEventListener(type, wrapper, options);
  }

  /**
   * Remove a listener registered with `addEventListener`.
   *
   * @example
   * ```ts
   * import { GuardedEventTarget } from "@gw/gateway";
   * const target = new GuardedEventTarget();
   * const listener = () => {};
   * target.addEventListener("MessageSent", listener);
   * target.removeEventListener("MessageSent", listener);
   * ```
   */
  override removeEventListener(
    type: string,
    listener: EventListenerOrEventListenerObject | null,
    options?: boolean | EventListenerOptions,
  ): void {
    if (listener === null) return;
    const capture = typeof options === "boolean" ? options : options?.capture === true;
    const byCapture = this.#wrappers.get(type)?.get(listener);
    const wrapper = byCapture?.get(capture);
    if (wrapper === undefined) return;
    byCapture!.delete(capture);
    super.removeEventListener(type, wrapper, options);
  }
}

function report(event: Event, error: unknown): void {
  log.error("A listener of {type} failed: {error}", {
    type: event.type,
    error: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
  });
}
