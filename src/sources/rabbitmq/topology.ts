/**
 * The exchanges and queues the server publishes to (2.3.6's RabbitMQ sink), declared by `setup` before the
 * sink is enabled, with the server's exact arguments: a queue declared with other arguments makes the
 * server's own declaration fail (PRECONDITION_FAILED) and closes its channel.
 *
 * @module
 */

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

/** Exactly what the server passes when it declares an event queue. */
export const EVENT_QUEUE_PARAMS = { durable: true, autoDelete: false } as const;
/** Exactly the arguments the server passes when it declares an event queue. */
export const EVENT_QUEUE_ARGS = { "x-queue-type": "quorum" } as const;

/**
 * Declare, for each instance, the server's topic exchange (named after the instance), its event queues and
 * their bindings, and our dead-letter queue. Idempotent: declaring what exists with the same arguments is a
 * no-op for the broker.
 */
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
