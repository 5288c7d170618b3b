/**
 * What to do after a disconnect: `needs_qr` (pair again), `stop` (restricted, banned or taken over: stop
 * sending and look), `transient` (the server reconnects by itself).
 */
export type DisconnectKind = "needs_qr" | "stop" | "transient";

/** A `statusReason` code with its meaning. */
export interface DisconnectReason {
  /** The numeric code (`statusReason`, `disconnectionReasonCode`). */
  code: number;
  /** Short name, e.g. `logged_out`, `forbidden`, `connection_closed` (`unknown` for a code not listed). */
  name: string;
  /** What to do. */
  kind: DisconnectKind;
  /** One sentence for people: what happened and what to do. */
  description: string;
}

const REASONS: Record<number, Omit<DisconnectReason, "code">> = {
  401: {
    name: "logged_out",
    kind: "needs_qr",
    description: "the phone logged this device out; pair again with a QR code or a pairing code",
  },
  402: {
    name: "payment_required",
    kind: "stop",
    description:
      "WhatsApp refused the account (the server does not reconnect); stop sending and check the number",
  },
  403: {
    name: "forbidden",
    kind: "stop",
    description: "WhatsApp restricted or banned the number; stop sending and check the phone",
  },
  406: {
    name: "not_acceptable",
    kind: "stop",
    description:
      "WhatsApp refused the session (the server does not reconnect); stop sending and check the number",
  },
  408: {
    name: "timed_out",
    kind: "transient",
    description: "the connection timed out or was lost; the server reconnects by itself",
  },
  411: {
    name: "multidevice_mismatch",
    kind: "needs_qr",
    description: "the session does not match the phone's multi-device state; pair again",
  },
  428: {
    name: "connection_closed",
    kind: "transient",
    description: "the connection was closed; the server reconnects by itself",
  },
  440: {
    name: "connection_replaced",
    kind: "stop",
    description: "another connection opened this session and replaced this one; stop the other one",
  },
  500: {
    name: "bad_session",
    kind: "needs_qr",
    description: "the stored session is corrupt; log out and pair again",
  },
  503: {
    name: "unavailable",
    kind: "transient",
    description: "WhatsApp's service is unavailable; the server reconnects by itself",
  },
  515: {
    name: "restart_required",
    kind: "transient",
    description: "WhatsApp asked for a restart (normal right after pairing); the server reconnects by itself",
  },
};

/** Codes the server never reconnects after (it sends the final `connection.update` close for them). */
export const FINAL_DISCONNECT_CODES: readonly number[] = [401, 402, 403, 406];

/**
 * The meaning of a disconnect code. A code not listed is `transient` with the name `unknown` (the server
 * reconnects after every code but 401, 402, 403 and 406).
 *
 * @example
 * ```ts
 * import { disconnectReason } from "@gw/gateway/delivery";
 * disconnectReason(401).kind; // "needs_qr"
 * disconnectReason(403).kind; // "stop"
 * disconnectReason(428).name; // "connection_closed"
 * ```
 */
export function disconnectReason(code: number): DisconnectReason {
  const known = Number.isInteger(code) ? REASONS[code] : undefined;
  if (known) return { code, ...known };
  return {
    code,
    name: "unknown",
    kind: "transient",
    description: `disconnected with code "${code}"; the server reconnects by itself`,
  };
}
