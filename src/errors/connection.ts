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
 * The server could not be reached, timed out, or answered 5xx (`outcomeUnknown`: the send may have gone).
 *
 * @example
 * ```ts
 * import { ConnectionException } from "@gw/gateway";
 * console.log(new ConnectionException("Cannot reach server", { reason: "timeout" }).outcomeUnknown); // false
 * ```
 */
export class ConnectionException extends GatewayApiException {
  /** The attempt timed out, or the overall deadline passed. */
  readonly timedOut: boolean;
  /** The server may have acted on the request. */
  readonly outcomeUnknown: boolean;
  /** What went wrong. */
  readonly reason: ConnectionFailureReason;

  /** Build the error. */
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
 * A send refused because an earlier one with its idempotency key may have gone (until `reconcileSends`).
 *
 * @example
 * ```ts
 * import { OutcomeUnknownException } from "@gw/gateway";
 * console.log(new OutcomeUnknownException("order-42").outcomeUnknown); // true
 * ```
 */
export class OutcomeUnknownException extends ConnectionException {
  /** The idempotency key of the send. */
  readonly idempotencyKey: string;
  /** The outbound record of the earlier send, when it was recorded. */
  readonly recordId?: string;
  /** True when the earlier send was still in flight; false when its outcome is unknown. */
  readonly inFlight: boolean;

  /** Build the error for `idempotencyKey`. */
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
