import { GatewayApiException, type GatewayErrorContext } from "./base.ts";
import type { DisconnectReason } from "../health/disconnect_reason.ts";

/** Why a {@link MessageException} happened. */
export type MessageFailureReason = "not_on_whatsapp" | "not_connected";

/**
 * A send was rejected: the recipient is not on the network, or the instance is not connected.
 *
 * @example
 * ```ts
 * import { MessageException } from "@gw/gateway";
 * console.log(new MessageException("Not on WhatsApp", { reason: "not_on_whatsapp" }).reason);
 * ```
 */
export class MessageException extends GatewayApiException {
  /** What went wrong. */
  readonly reason: MessageFailureReason;

  /** Build the error. */
  constructor(message: string, context: GatewayErrorContext & { reason: MessageFailureReason }) {
    super(message, context);
    this.reason = context.reason;
  }

  /** A plain object for logs and `JSON.stringify`, with this class's own fields. */
  override toJSON(): Record<string, unknown> {
    return { ...super.toJSON(), reason: this.reason };
  }
}

/**
 * A send refused because the instance has no live socket: **not sent**, so a resend cannot deliver it twice.
 *
 * @example
 * ```ts
 * import { InstanceDisconnectedException } from "@gw/gateway";
 * console.log(new InstanceDisconnectedException("Not connected", { local: true }).reason); // "not_connected"
 * ```
 */
export class InstanceDisconnectedException extends MessageException {
  /** Always true: the message did not leave. */
  readonly notSent: true = true;
  /** True when the breaker refused the send without a request. */
  readonly local: boolean;
  /** The server's last disconnect reason, when known. */
  readonly disconnect?: DisconnectReason;
  /** When the breaker lets a probe through (epoch ms); undefined when only a new pairing helps. */
  readonly retryAt?: number;

  /** Build the error. */
  constructor(
    message: string,
    context: GatewayErrorContext & { local?: boolean; disconnect?: DisconnectReason; retryAt?: number } = {},
  ) {
    super(message, { ...context, reason: "not_connected" });
    this.local = context.local ?? false;
    if (context.disconnect) this.disconnect = context.disconnect;
    if (context.retryAt !== undefined) this.retryAt = context.retryAt;
  }

  /** A plain object for logs and `JSON.stringify`, with this class's own fields. */
  override toJSON(): Record<string, unknown> {
    return {
      ...super.toJSON(),
      notSent: true,
      local: this.local,
      ...(this.disconnect ? { disconnect: this.disconnect } : {}),
      ...(this.retryAt !== undefined ? { retryAt: this.retryAt } : {}),
    };
  }
}

/**
 * A message did not reach the status `MessageStatusTracker.waitFor` waited for: timed out, or `ERROR`.
 *
 * @example
 * ```ts
 * import { MessageStatusException } from "@gw/gateway";
 * const error = new MessageStatusException("PENDING", { messageId: "3EB0", deliveryStatus: "PENDING" });
 * ```
 */
export class MessageStatusException extends GatewayApiException {
  /** The message's `key.id`. */
  readonly messageId: string;
  /** The last delivery status seen (`PENDING`, `ERROR`, ...), or null. */
  readonly deliveryStatus: string | null;
  /** Likely causes of a message still pending, most likely first. */
  readonly causes: readonly string[];

  /** Build the error. */
  constructor(
    message: string,
    context: GatewayErrorContext & {
      messageId: string;
      deliveryStatus: string | null;
      causes?: readonly string[];
    },
  ) {
    super(message, context);
    this.messageId = context.messageId;
    this.deliveryStatus = context.deliveryStatus;
    this.causes = context.causes ?? [];
  }

  /** A plain object for logs and `JSON.stringify`, with this class's own fields. */
  override toJSON(): Record<string, unknown> {
    return {
      ...super.toJSON(),
      messageId: this.messageId,
      deliveryStatus: this.deliveryStatus,
      causes: this.causes,
    };
  }
}
