/**
 * The processor's `events` (`WebhookReceived`, `MessageReceived`): notifications dispatched by one of the
 * processor's observers (inbound middleware), built only when someone listens; what the listeners leave to
 * `waitUntil` (or throw) settles with the webhook like any observer's work.
 *
 * @module
 */

import { MessageReceived, WebhookEvent, WebhookReceived } from "../../events.ts";
import { GuardedEventTarget } from "../../guarded_event_target.ts";
import type { WebhookPayloadDto } from "../payload.ts";
import { settleAll } from "./dispatch.ts";

/**
 * The processor's events: a listener that throws (or returns a promise that rejects) fails the webhook
 * being processed instead of only being logged, and a listener that returns a promise is waited for.
 */
export class WebhookEventTarget extends GuardedEventTarget {
  #onListened: (() => void) | undefined;

  /**
   * Call `fn` once, when the first `WebhookReceived` or `MessageReceived` listener is added: the processor
   * adds this target as an observer only then, so that a processor nobody listens to pays nothing for it.
   */
  whenListened(fn: () => void): void {
    this.#onListened = fn;
  }

  override addEventListener(
    type: string,
    listener: EventListenerOrEventListenerObject | null,
    options?: boolean | AddEventListenerOptions,
  ): void {
    super.addEventListener(type, listener, options);
    const listened = this.#onListened;
    if (listened !== undefined && (type === WebhookReceived.type || type === MessageReceived.type)) {
      this.#onListened = undefined;
      listened();
    }
  }
  protected override onListenerError(event: Event, error: unknown): void {
    if (event instanceof WebhookEvent) event.waitUntil(Promise.reject(error));
    else super.onListenerError(event, error);
  }

  protected override onListenerPromise(event: Event, promise: Promise<unknown>): void {
    if (event instanceof WebhookEvent) event.waitUntil(promise);
    else super.onListenerPromise(event, promise);
  }

  /**
   * Dispatch `WebhookReceived` (every webhook), then `MessageReceived` (inbound messages), each only when it
   * has listeners; settles when the listeners' pending work has.
   */
  async observe(payload: WebhookPayloadDto): Promise<void> {
    let pending: Promise<unknown>[] | undefined;
    if (this.listenerCount(WebhookReceived.type) > 0) {
      const received = new WebhookReceived(payload);
      this.dispatchEvent(received);
      if (received.pending.length > 0) pending = [...received.pending];
    }
    if (this.listenerCount(MessageReceived.type) > 0 && payload.isInboundMessage) {
      const message = new MessageReceived(payload);
      this.dispatchEvent(message);
      if (message.pending.length > 0) pending = [...(pending ?? []), ...message.pending];
    }
    if (pending !== undefined) await settleAll(pending);
  }
}
