/**
 * Stage "verify": the signature over the raw bytes (401 when it does not hold). The body's digest, needed
 * as the delivery id when the scheme signs none, is started alongside: both are Web Crypto calls that run
 * off the main thread. Internal.
 *
 * @module
 */

import { toHex } from "../encoding.ts";
import { type WebhookVerification, WebhookVerificationException } from "../signature.ts";
import { BODIES, refuse } from "./respond.ts";
import type { Receiver, RequestState } from "./state.ts";

async function digest(body: Uint8Array): Promise<string> {
  return toHex(new Uint8Array(await crypto.subtle.digest("SHA-256", body as Uint8Array<ArrayBuffer>)));
}

/**
 * Start verifying `state.body`: sets `receivedAt` and starts the digest; the verification's promise (the
 * pipeline awaits it directly, so that this stage adds no promise of its own).
 */
export function verifyBody(receiver: Receiver, state: RequestState): Promise<WebhookVerification> {
  const now = state.receivedAt = receiver.now();
  const verifier = receiver.verifier;
  if (receiver.wantsDigest && verifier.scheme !== "standard") state.digest = digest(state.body);
  return verifier.verify(state.body, state.request.headers, now);
}

/** The 401 for a request whose verification failed (the reason goes to the log and the metrics). */
export function verificationRefused(receiver: Receiver, state: RequestState, error: unknown): Response {
  state.digest?.catch(() => {});
  const reason = error instanceof WebhookVerificationException ? error.reason : "verification_error";
  return refuse(
    receiver,
    401,
    BODIES.unauthorized,
    reason,
    error instanceof Error ? error.message : String(error),
  );
}
