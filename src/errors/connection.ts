/**
 * Exceptions for a request that did not get an answer: the connection failed, or a send's outcome is unknown.
 *
 * @module
 */

import { GatewayApiException, type GatewayErrorContext } from "./base.ts";

/** Why a {@link ConnectionException} happened. */
export type ConnectionFailureReason =
  | "network"
  | "timeout"
  | "deadline"
  | "server_error"
  | "license_required"
  | "outcome_unknown";

/**
 * The server could not be reached, timed out, or answered 5xx.
 *
 * `outcomeUnknown` is true when a request that is not safe to repeat (a message send) may have reached the
 * server: the library did not retry it, because a retry could deliver the message twice.
 *
 * @example
 * ```ts
 * import { ConnectionException } from "@gw/gateway";
 * const error = new ConnectionException("Cannot reach server", { reason: "timeout", timedOut: true });
 * console.log(error.timedOut, error.outcomeUnknown);
 * ```
 */
export class ConnectionException extends GatewayApiException {
  /** The attempt timed out, or the overall deadline passed. */
  readonly timedOut: boolean;
  /** The server may have acted on the request. */
  readonly outcomeUnknown: boolean;
  /** What went wrong. */
  readonly reason: ConnectionFailureReason;

  /**
   * Build a connection error.
   */
  constructor(
    message: string,
    context: GatewayErrorContext & {
      reason?: ConnectionFailureReason;
      timedOut?: boolean;
      outcomeUnknown?: boolean;
    } = {},
  ) {
    super(message, context);
    this.reason = context.reason ?? "network";
    this.timedOut = context.timedOut ?? false;
    this.outcomeUnknown = context.outcomeUnknown ?? false;
  }

  /** A plain object for logs and `JSON.stringify`, with this class's own fields. */
  override toJSON(): Record<string, unknown> {
    return {
      ...super.toJSON(),
      reason: this.reason,
      timedOut: this.timedOut,
      outcomeUnknown: this.outcomeUnknown,
    };
  }
}

/**
 * A send with an idempotency key was refused, and nothing was sent, because an earlier send with the same
 * key may have been delivered: its outcome is unknown (`inFlight` false), or it was still in flight when
 * this call's deadline came (`inFlight` true). An unknown outcome stays refused until the earlier send's
 * record is settled by `reconcileSends` (or `retryFailedMessages`), or until the key's window ends.
 * `outcomeUnknown` is true: a blind resend could deliver the message twice.
 *
 * @example
 * ```ts
 * import { OutcomeUnknownException } from "@gw/gateway";
 * const error = new OutcomeUnknownException("order-42", { recordId: "0b6f8a2e" });
 * console.log(error.idempotencyKey, error.recordId, error.inFlight, error.outcomeUnknown); // "order-42" "0b6f8a2e" false true
 * ```
 */
export class OutcomeUnknownException extends ConnectionException {
  /** The idempotency key of the send. */
  readonly idempotencyKey: string;
  /** The outbound record of the earlier send, when it was recorded. */
  readonly recordId?: string;
  /** True when the earlier send was still in flight (it may yet complete); false when its outcome is unknown. */
  readonly inFlight: boolean;

  /**
   * Build the error for `idempotencyKey`.
   */
  constructor(
    idempotencyKey: string,
    options: GatewayErrorContext & { recordId?: string; inFlight?: boolean } = {},
  ) {
    const { recordId, inFlight = false, ...context } = options;
    const record = recordId === undefined ? "" : ` (record "${recordId}")`;
    super(
      inFlight
        ? `Cannot send with idempotency key "${idempotencyKey}": an earlier send with this key is still in flight${record}`
        : `Cannot send with idempotency key "${idempotencyKey}": an earlier send with this key has an unknown outcome${record}; reconcile it first`,
      { ...context, reason: "outcome_unknown", outcomeUnknown: true, timedOut: inFlight },
    );
    this.idempotencyKey = idempotencyKey;
    this.recordId = recordId;
    this.inFlight = inFlight;
  }

  /** A plain object for logs and `JSON.stringify`, with this class's own fields. */
  override toJSON(): Record<string, unknown> {
    return {
      ...super.toJSON(),
      idempotencyKey: this.idempotencyKey,
      recordId: this.recordId,
      inFlight: this.inFlight,
    };
  }
}
