import { errorMessage } from "../util/error_message.ts";
import { type Backoff, backoffDelay } from "./scope.ts";
import { settleFailure } from "./settle.ts";
import type { SourceDelivery } from "./target.ts";

/** The broker client's calls for the outcome (a NATS ack answers at once, RabbitMQ's with a promise). */
export interface BrokerSettle {
  ack: () => void | Promise<void>;
  /** Back to the broker for another delivery in `delayMs`. */
  retry: (delayMs: number) => void | Promise<void>;
  deadLetter: (reason: string) => Promise<void>;
}

/** The message as the broker handed it over. */
export interface BrokerMessage {
  /** The raw body (null when there is none). */
  text: string | null;
  /** This delivery's number, 1 based. */
  attempts: number;
  deliveryId: string | undefined;
}

/** The consumer's side: its target, clock and limits. */
export interface SettleSettings {
  deliver: (delivery: SourceDelivery) => Promise<void>;
  now: () => number;
  maxAttempts: number;
  retryDelay: Backoff;
}

/**
 * Parse, hand over to the target, then ack, retry or dead-letter `message`: not JSON or not an event, or the
 * last attempt, is dead-lettered; busy retries after the first delay; a failure after a doubling delay.
 */
export async function settleDelivery(
  message: BrokerMessage,
  settings: SettleSettings,
  settle: BrokerSettle,
): Promise<void> {
  let body: unknown;
  try {
    body = JSON.parse(message.text ?? "");
  } catch {
    return await settle.deadLetter("the body is not JSON");
  }
  try {
    await settings.deliver({ body, deliveryId: message.deliveryId, receivedAt: settings.now() });
  } catch (error) {
    const outcome = settleFailure(error, message.attempts, settings.maxAttempts);
    if (outcome === "dead-letter") return await settle.deadLetter(errorMessage(error));
    return await settle.retry(
      retryDelay(settings.retryDelay, outcome === "retry-busy" ? 1 : message.attempts),
    );
  }
  await settle.ack();
}

/** The delay before delivery `attempts + 1` (the first delay after attempt 1, doubling after). */
export function retryDelay(backoff: Backoff, attempts: number): number {
  return backoffDelay(backoff, attempts - 1);
}
