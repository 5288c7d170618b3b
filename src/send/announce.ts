import { MessageSent } from "../events.ts";
import type { MetricsCollector } from "../metrics.ts";
import type { SendStage } from "./types.ts";

/** An event target that can say whether anyone listens (`GuardedEventTarget` can). */
interface CountingTarget extends EventTarget {
  listenerCount(type: string): number;
}

function counts(events: EventTarget): events is CountingTarget {
  return typeof (events as Partial<CountingTarget>).listenerCount === "function";
}

/** The announce stage: counts each successful send and dispatches `MessageSent` (built only when heard). */
export function announceStage(metrics: MetricsCollector, events: EventTarget): SendStage {
  const listened = counts(events) ? () => events.listenerCount(MessageSent.type) > 0 : () => true;
  return (send, next) =>
    next().then(() => {
      const response = send.response!;
      metrics.messageSent(send.type);
      if (listened()) {
        const messageId = response.json<unknown>("key.id");
        events.dispatchEvent(
          new MessageSent({
            messageId: typeof messageId === "string" ? messageId : null,
            instance: send.ref.instance,
            connection: send.ref.connection,
            to: send.to,
            messageType: send.type,
            response: response.data,
          }),
        );
      }
    });
}
