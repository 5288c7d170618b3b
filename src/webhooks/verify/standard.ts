/**
 * The `standard` scheme (Standard Webhooks): `webhook-id`, `webhook-timestamp` and `webhook-signature`
 * (`v1,<base64>`, several separated by spaces), HMAC-SHA256 over `<id>.<timestamp>.<body>` with the decoded
 * `whsec_` secret. Proves the body, the delivery id and when it was signed. Internal.
 *
 * @module
 */

import { concatBytes, fromBase64, timingSafeEqual, utf8 } from "../encoding.ts";
import {
  checkWindow,
  type HeaderSource,
  MISMATCH,
  parseTimestamp,
  reject,
  type VerifySettings,
} from "./common.ts";
import type { VerifierKeys } from "./keys.ts";
import type { WebhookVerification } from "./types.ts";

/** The `v1` signatures of the header (at most 16 entries are read). */
function signaturesOf(header: string): Uint8Array[] {
  const signatures: Uint8Array[] = [];
  for (const entry of header.trim().split(/\s+/).slice(0, 16)) {
    const comma = entry.indexOf(",");
    if (comma < 0 || entry.slice(0, comma) !== "v1") continue;
    const bytes = fromBase64(entry.slice(comma + 1));
    if (bytes !== null && bytes.length === 32) signatures.push(bytes);
  }
  if (signatures.length === 0) {
    reject("malformed_signature", 'header "webhook-signature" has no "v1,<base64 HMAC-SHA256>" entry');
  }
  return signatures;
}

/** Check a Standard Webhooks request. */
export async function verifyStandard(
  keys: VerifierKeys,
  settings: VerifySettings,
  body: Uint8Array,
  source: HeaderSource,
  now: number,
): Promise<WebhookVerification> {
  const id = source.get("webhook-id");
  const stamp = source.get("webhook-timestamp");
  const header = source.get("webhook-signature");
  if (header === null) reject("missing_signature", 'header "webhook-signature" is missing');
  if (id === null || id.length === 0 || id.length > 256) {
    reject("missing_signature", 'header "webhook-id" is missing or longer than 256 characters');
  }
  if (stamp === null) reject("missing_timestamp", 'header "webhook-timestamp" is missing');
  const timestamp = parseTimestamp(stamp, 'header "webhook-timestamp"');
  checkWindow(timestamp, Math.floor(now / 1000), settings.toleranceSeconds, "timestamp");
  const signatures = signaturesOf(header);
  const content = concatBytes(utf8(`${id}.${stamp.trim()}.`), body);
  const index = await keys.match("standard", content, (mac) => {
    // Every listed signature is compared, so the time does not tell which one matched.
    let found = false;
    for (const signature of signatures) found = timingSafeEqual(signature, mac) || found;
    return found;
  });
  if (index === -2) {
    reject(
      "signature_mismatch",
      "the request carries Standard Webhooks headers, but no configured secret is a Standard Webhooks " +
        'secret ("whsec_" followed by base64)',
    );
  }
  if (index < 0) reject("signature_mismatch", MISMATCH);
  return { scheme: "standard", secretIndex: index, id, timestamp };
}
