import { MessageReceived, WebhookEvent, WebhookReceived } from "../../events.ts";
import { GuardedEventTarget } from "../../guarded_event_target.ts";
import type { WebhookPayloadDto } from "../payload.ts";
import { settleAll } from "./dispatch.ts";

/** The processor's events: a listener's promise is waited for, and its failure fails the webhook. */
export class WebhookEventTarget extends GuardedEventTarget {
  #onListened: (() => void) | undefined;

  /** Call `fn` once, when the first `WebhookReceived` or `MessageReceived` listener is added. */
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

  /** Dispatch `WebhookReceived`, then `MessageReceived`, each only to listeners; settles with their work. */
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
