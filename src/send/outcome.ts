import {
  ConnectionException,
  GatewayException,
  MessageException,
  ResponseTooLargeException,
  ValidationException,
} from "../errors.ts";
import { isPermissionError } from "../client/failures.ts";

/**
 * Whether a failed send may have reached the server, so that a resend could deliver it twice: a
 * `ConnectionException` with `outcomeUnknown`, a `ResponseTooLargeException` for a successful answer, or any
 * non-`GatewayException` (an abort) except a missing permission.
 *
 * @example
 * ```ts
 * import { ConnectionException, isOutcomeUnknown, ValidationException } from "@gw/gateway";
 * isOutcomeUnknown(new ConnectionException("reset", { outcomeUnknown: true })); // true
 * isOutcomeUnknown(new DOMException("aborted", "AbortError")); // true
 * isOutcomeUnknown(new ValidationException("bad number")); // false
 * ```
 */
export function isOutcomeUnknown(error: unknown): boolean {
  if (error instanceof ConnectionException) return error.outcomeUnknown;
  // Accepted by the server, but its answer (with the message id) could not be read.
  if (error instanceof ResponseTooLargeException) return error.status !== undefined && error.status < 300;
  // A missing permission (`--allow-net`) stops the request before it leaves the process.
  if (isPermissionError(error)) return false;
  // Any other error of the library (a setup error) was thrown before anything was sent.
  return !(error instanceof GatewayException);
}

/**
 * Whether a failed send can never succeed as it is: a `ValidationException`, or `MessageException`
 * `not_on_whatsapp`. Authentication, missing instances, rate limits and connection failures can heal.
 *
 * @example
 * ```ts
 * import { isPermanentFailure, MessageException } from "@gw/gateway";
 * isPermanentFailure(new MessageException("not on WhatsApp", { reason: "not_on_whatsapp" })); // true
 * ```
 */
export function isPermanentFailure(error: unknown): boolean {
  return error instanceof ValidationException ||
    (error instanceof MessageException && error.reason === "not_on_whatsapp");
}
