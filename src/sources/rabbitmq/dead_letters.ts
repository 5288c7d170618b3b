import { isRecord } from "../../util/json_shape.ts";
import type { AmqpChannel, AmqpMessage } from "./client.ts";
import { deadLetterQueue } from "./topology.ts";

/** One event a consumer gave up on (a handler failed `maxAttempts` times, or the body is not an event). */
export interface RabbitMqDeadLetter {
  /** Its id (give it to `requeueDeadLetter`). */
  id: string;
  /** The instance whose queue it came from. */
  instance: string;
  /** The queue it came from (`sales.messages.upsert`). */
  queue: string;
  /** The routing key it was published with (`messages.upsert`). */
  routingKey: string;
  /** Why it was given up: the last handler error, or why the body is not an event. */
  reason: string;
  /** How many times it was delivered. */
  attempts: number;
  /** When it was dead-lettered (epoch ms). */
  deadAt: number;
  /** The body as published (parsed JSON, or the text when it is not JSON). */
  body: unknown;
}

const MAX_REASON = 500;

/** Where a message is dead-lettered from, and why. */
export interface DeadLetterCause {
  instance: string;
  queue: string;
  reason: string;
  attempts: number;
  now: number;
  id: string;
}

/** Publish `message` to the instance's dead-letter queue; resolves once the broker confirmed it. */
export async function publishDeadLetter(
  channel: AmqpChannel,
  message: AmqpMessage,
  cause: DeadLetterCause,
): Promise<void> {
  await channel.basicPublish("", deadLetterQueue(cause.instance), message.body ?? new Uint8Array(), {
    deliveryMode: 2,
    messageId: cause.id,
    contentType: "application/json",
    headers: {
      "x-gw-queue": cause.queue,
      "x-gw-routing-key": message.routingKey,
      "x-gw-reason": cause.reason.slice(0, MAX_REASON),
      "x-gw-attempts": cause.attempts,
      "x-gw-dead-at": cause.now,
    },
  });
}

/** Read one dead-lettered message as a {@link RabbitMqDeadLetter}. */
export function readDeadLetter(instance: string, message: AmqpMessage): RabbitMqDeadLetter {
  const headers = isRecord(message.properties.headers) ? message.properties.headers : {};
  const text = message.bodyString() ?? "";
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // kept as text: a body that is not JSON is one reason to be here
  }
  return {
    id: message.properties.messageId ?? "",
    instance,
    queue: String(headers["x-gw-queue"] ?? ""),
    routingKey: String(headers["x-gw-routing-key"] ?? ""),
    reason: String(headers["x-gw-reason"] ?? ""),
    attempts: Number(headers["x-gw-attempts"] ?? 0),
    deadAt: Number(headers["x-gw-dead-at"] ?? 0),
    body,
  };
}

/** Read up to `limit` dead letters of `instance`, unacked: back in place when the caller closes `channel`. */
export async function peekDeadLetters(
  channel: AmqpChannel,
  instance: string,
  limit: number,
  visit: (letter: RabbitMqDeadLetter, message: AmqpMessage) => Promise<boolean>,
): Promise<void> {
  for (let read = 0; read < limit; read++) {
    const message = await channel.basicGet(deadLetterQueue(instance), { noAck: false });
    if (message === null) return;
    if (await visit(readDeadLetter(instance, message), message)) return;
  }
}
