/**
 * How a broker source reads a failed hand-over: a body that is not an event (dead-letter it now), an event
 * another delivery is handling right now (retry later, never dead-letter: the other delivery may succeed),
 * or a handler that failed (retry, then dead-letter after `maxAttempts`).
 *
 * @module
 */

import { ValidationException, WebhookException } from "../errors.ts";

/** What to do with a message whose hand-over failed. */
export type FailedDelivery = "dead-letter" | "retry" | "retry-busy";

/** Decide for delivery number `attempts` (1 based) of at most `maxAttempts`. */
export function settleFailure(error: unknown, attempts: number, maxAttempts: number): FailedDelivery {
  // The processor's claim is held by another delivery (it answers a webhook 503 for this).
  if (error instanceof WebhookException && error.status === 503) return "retry-busy";
  if (error instanceof ValidationException || attempts >= maxAttempts) return "dead-letter";
  return "retry";
}
