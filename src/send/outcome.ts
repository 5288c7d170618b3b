/**
 * What a failed send's exception means for sending it again: may it have reached the server
 * (`isOutcomeUnknown`: a resend could deliver it twice), and can it ever succeed as it is
 * (`isPermanentFailure`). The send pipeline records both; the retry task reads them.
 *
 * @module
 */

import {
  ConnectionException,
  GatewayException,
  MessageException,
  ResponseTooLargeException,
  ValidationException,
} from "../errors.ts";
import { isPermissionError } from "../client/failures.ts";

/**
 * Whether a failed send may still have reached the server: a `ConnectionException` with `outcomeUnknown`,
 * a `ResponseTooLargeException` for a successful answer, or anything that is not a `GatewayException` (an abort
 * or an unexpected error mid-request) but a missing permission (`--allow-net`). A resend
 * of such a message could deliver it twice.
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
 * Whether a failed send can never succeed as it is, so resending it is pointless: the request was invalid
 * (`ValidationException`) or the recipient is not on the network (`MessageException` `not_on_whatsapp`).
 * Authentication, missing instances, rate limits and connection failures can heal and are not permanent.
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
