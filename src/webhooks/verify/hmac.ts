/**
 * The `hmac` scheme: `x-gateway-signature` (or `x-webhook-signature`, `x-signature`, or the configured header)
 * holds the hex HMAC-SHA256 of the raw body, optionally prefixed `sha256=`. With `x-gateway-timestamp` (or
 * when `requireTimestamp` is on) the signed content is `<timestamp>.<body>` and the timestamp must be within
 * the tolerance. Proves the exact body (and, with a timestamp, when it was signed). Internal.
 *
 * @module
 */

import { concatBytes, hexEquals, isHex, utf8 } from "../encoding.ts";
import {
  checkWindow,
  type HeaderSource,
  MISMATCH,
  parseTimestamp,
  reject,
  SIGNATURE_HEADERS,
  TIMESTAMP_HEADER,
  type VerifySettings,
} from "./common.ts";
import type { VerifierKeys } from "./keys.ts";
import type { WebhookVerification } from "./types.ts";

/** A signature header found in a request. */
export interface FoundHeader {
  readonly name: string;
  readonly value: string | null;
}

/** The hmac signature header: the configured one, or the first of the usual names present. */
export function signatureHeader(source: HeaderSource, configured: string | undefined): FoundHeader {
  if (configured !== undefined) return { name: configured, value: source.get(configured) };
  for (const name of SIGNATURE_HEADERS) {
    const value = source.get(name);
    if (value !== null) return { name, value };
  }
  return { name: SIGNATURE_HEADERS[0], value: null };
}

/** Whether `bytes` is `<base64url>.<base64url>`: the part of a JWT its signature covers. */
export function isJwtSigningInput(bytes: Uint8Array): boolean {
  let dots = 0;
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes[i];
    if (c === 46) {
      if (++dots > 1) return false;
    } else if (
      !((c >= 65 && c <= 90) || (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 45 || c === 95)
    ) return false;
  }
  return dots === 1;
}

/** The hex signature of `found`, checked for shape. */
function signatureHex({ name, value }: FoundHeader): string {
  if (value === null) reject("missing_signature", `header "${name}" is missing`);
  let hex = value.trim();
  if (hex.length === 71 && hex.slice(0, 7).toLowerCase() === "sha256=") hex = hex.slice(7);
  if (hex.length !== 64 || !isHex(hex)) {
    reject(
      "malformed_signature",
      `header "${name}" is not a hex HMAC-SHA256 (64 hex digits, "sha256=" optional)`,
    );
  }
  return hex;
}

/** Check an hmac-signed request; `found` is its signature header. */
export function verifyHmac(
  keys: VerifierKeys,
  settings: VerifySettings,
  body: Uint8Array,
  source: HeaderSource,
  now: number,
  found: FoundHeader,
): Promise<WebhookVerification> {
  const hex = signatureHex(found);
  const stamp = source.get(TIMESTAMP_HEADER);
  let timestamp: number | undefined;
  let content = body;
  if (stamp === null) {
    if (settings.requireTimestamp) reject("missing_timestamp", `header "${TIMESTAMP_HEADER}" is missing`);
    // The same secret may serve `jwt` (always with `auto`): a captured JWT's signature is the HMAC of its
    // `<header>.<claims>` part, so that part is never accepted as an hmac-signed body.
    if (isJwtSigningInput(body)) {
      reject("invalid_body", "the body is the signed part of a JWT, not a webhook body");
    }
  } else {
    timestamp = parseTimestamp(stamp, `header "${TIMESTAMP_HEADER}"`);
    checkWindow(timestamp, Math.floor(now / 1000), settings.toleranceSeconds, "timestamp");
    content = concatBytes(utf8(`${stamp.trim()}.`), body);
  }
  const result: WebhookVerification = timestamp === undefined
    ? { scheme: "hmac", secretIndex: 0 }
    : { scheme: "hmac", secretIndex: 0, timestamp };
  const only = keys.secrets.length === 1 ? keys.of("utf8")[0] : null;
  if (only !== null) {
    // The usual case, one secret: one signature and one continuation.
    return only.sign(content).then((mac) => {
      if (!hexEquals(hex, mac)) reject("signature_mismatch", MISMATCH);
      return result;
    });
  }
  return keys.match("utf8", content, (mac) => hexEquals(hex, mac)).then((index) => {
    if (index < 0) reject("signature_mismatch", MISMATCH);
    result.secretIndex = index;
    return result;
  });
}
