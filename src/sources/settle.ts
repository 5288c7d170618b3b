import { ValidationException, WebhookException } from "../errors.ts";

/**
 * What to do with a message whose hand-over failed. Busy (another delivery is handling it) is never
 * dead-lettered: the other delivery may succeed.
 */
export type FailedDelivery = "dead-letter" | "retry" | "retry-busy";

/** Decide for delivery number `attempts` (1 based) of at most `maxAttempts`. */
export function settleFailure(error: unknown, attempts: number, maxAttempts: number): FailedDelivery {
  // The processor's claim is held by another delivery (it answers a webhook 503 for this).
  if (error instanceof WebhookException && error.status === 503) return "retry-busy";
  if (error instanceof ValidationException || attempts >= maxAttempts) return "dead-letter";
  return "retry";
}
