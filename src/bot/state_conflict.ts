import { GatewayApiException } from "../errors.ts";

/**
 * Another update wrote the same session or dialogue while this one ran (compare-and-set); nothing of this
 * one was saved. Like any handler error the claim is released and the retry runs on the fresh value (its
 * replies keep their idempotency keys: none is sent twice).
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
