// Declared with the server's exact arguments (2.3.6's sink): other arguments make the server's own
// declaration fail (PRECONDITION_FAILED), which closes its channel.

import type { AmqpChannel } from "./client.ts";

/** The server's per-event queue: `<instance>.<event>`, dotted lower case (`sales.messages.upsert`). */
export function eventQueue(instance: string, event: string): string {
  return `${instance}.${bindingKey(event)}`;
}

/** The binding key the server uses for an event: its name with `_` as `.`, lower case. */
export function bindingKey(event: string): string {
  return event.replace(/_/g, ".").toLowerCase();
}

/** Our dead-letter queue of an instance: `<instance>.gw.dead-letters` (a classic queue; no event has this name). */
export function deadLetterQueue(instance: string): string {
  return `${instance}.gw.dead-letters`;
}

/** The server's parameters of an event queue. */
export const EVENT_QUEUE_PARAMS = { durable: true, autoDelete: false } as const;
/** Exactly the arguments the server passes when it declares an event queue. */
export const EVENT_QUEUE_ARGS = { "x-queue-type": "quorum" } as const;

/** Declare each instance's topic exchange, event queues, bindings and dead-letter queue (idempotent). */
export async function declareTopology(
  channel: AmqpChannel,
  instances: string[],
  events: string[],
): Promise<void> {
  for (const instance of instances) {
    await channel.exchangeDeclare(instance, "topic", { durable: true, autoDelete: false });
    for (const event of events) {
      const queue = eventQueue(instance, event);
      await channel.queueDeclare(queue, { ...EVENT_QUEUE_PARAMS }, { ...EVENT_QUEUE_ARGS });
      await channel.queueBind(queue, instance, bindingKey(event));
    }
    // Classic, without a delivery limit: listing the dead letters reads and returns them without ever
    // dropping one (a quorum queue counts those returns).
    await channel.queueDeclare(deadLetterQueue(instance), { durable: true, autoDelete: false });
  }
}
