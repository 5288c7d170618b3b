/**
 * Stage "verify": the signature over the raw bytes (401 when it does not hold). The body's digest, needed
 * as the delivery id when the scheme signs none, is started alongside (a large body's runs on Web Crypto's
 * thread while the signature is checked). A 401 is counted per reason and written on stderr at most once per reason per
 * minute (the scheme expected and the signature headers that arrived; never a secret or a signature).
 * Internal.
 *
 * @module
 */

import { getGatewayLogger } from "../../log.ts";
import { toHex } from "../encoding.ts";
import { digestSha256 } from "../../util/sha256.ts";
import { signatureHeaderNames } from "../verify/common.ts";
import { WebhookVerificationException } from "../verify/types.ts";
import { BODIES, count, respond } from "./respond.ts";
import type { NextFunction } from "../../util/compose.ts";
import type { Receiver, RequestState } from "./state.ts";

const logger = getGatewayLogger("webhook");

async function digest(body: Uint8Array): Promise<string> {
  return toHex(await digestSha256(body));
}

/**
 * Stage "verify": sets `receivedAt` and, when the signature holds, the signed delivery id, and goes on;
 * starts the body's digest alongside when it is needed; answers 401 otherwise.
 */
export async function verifyStage(state: RequestState, next: NextFunction): Promise<void> {
  const receiver = state.receiver;
  const now = state.receivedAt = receiver.now();
  const verifier = receiver.verifier;
  if (receiver.wantsDigest && verifier.scheme !== "standard") state.digest = digest(state.body);
  try {
    state.deliveryId = (await verifier.verify(state.body, state.request.headers, now)).id;
  } catch (error) {
    state.response = verificationRefused(receiver, state, error);
    return;
  }
  await next();
}

const EXPECTED: Readonly<Record<string, string>> = {
  auto: '"auto" (authorization: Bearer <JWT>, x-gateway-signature, or webhook-id/-timestamp/-signature)',
  hmac: '"hmac"',
  standard: '"standard" (webhook-id, webhook-timestamp, webhook-signature)',
  jwt: '"jwt" (authorization: Bearer <JWT>)',
  token: '"token"',
};

/** The 401 for a request whose verification failed (the reason goes to stderr, the log and the metrics). */
function verificationRefused(receiver: Receiver, state: RequestState, error: unknown): Response {
  state.digest?.catch(() => {});
  const reason = error instanceof WebhookVerificationException ? error.reason : "verification_error";
  const detail = error instanceof Error ? error.message : String(error);
  count(receiver, "UNKNOWN", "401");
  receiver.metrics?.increment("gateway_webhook_rejections_total", { status: "401", reason });
  logger.debug("Webhook refused (401 {reason}): {detail}", { status: 401, reason, detail });
  receiver.reports.report(`401 ${reason}`, () => {
    const verifier = receiver.verifier;
    const names = signatureHeaderNames(state.request.headers, verifier.header);
    const expected = EXPECTED[verifier.scheme] ?? `"${verifier.scheme}"`;
    const header = verifier.header === undefined ? "" : ` in header "${verifier.header}"`;
    return `Webhook refused (401 ${reason}): expected scheme ${expected}${header}; signature headers ` +
      `received: ${names.length === 0 ? "none" : names.join(", ")}; ${detail}`;
  });
  return respond(401, BODIES.unauthorized);
}
