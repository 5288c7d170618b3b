/**
 * `StateConflictException`: a session or a dialogue changed in the store while this update ran, so this
 * update's write was refused (compare-and-set) instead of overwriting the other update's.
 *
 * @module
 */

import { GatewayApiException } from "../errors.ts";

/**
 * Another update wrote the same session or dialogue while this one ran; nothing of this update was saved.
 * The bot treats it like any handler error: the update's claim is released, so the delivery is retried and
 * runs again on the fresh value (its replies carry the same idempotency keys, so none is sent twice).
 *
 * @example
 * ```ts
 * import { StateConflictException } from "@gw/gateway/bot";
 * const error = new StateConflictException("session", "sales:5511999999999@s.whatsapp.net");
 * console.log(error.message);
 * // Cannot save session "sales:5511999999999@s.whatsapp.net": another update changed it while this one ran
 * ```
 */
export class StateConflictException extends GatewayApiException {
  /** What was being saved: `"session"` or `"conversation"`. */
  readonly kind: string;
  /** The entry's key. */
  readonly key: string;

  /** Build the error for one entry. */
  constructor(kind: string, key: string) {
    super(`Cannot save ${kind} "${key}": another update changed it while this one ran`);
    this.kind = kind;
    this.key = key;
  }
}
