/**
 * The `token` scheme: a static shared secret in a header (default `x-gateway-token`; with `authorization`,
 * `Bearer` is stripped), compared in constant time with every configured secret. Proves only that the sender
 * knows the token (no body, no time). Internal.
 *
 * @module
 */

import { timingSafeEqual, utf8 } from "../encoding.ts";
import { type HeaderSource, reject, TOKEN_HEADER, type VerifySettings } from "./common.ts";
import type { VerifierKeys } from "./keys.ts";
import type { WebhookVerification } from "./types.ts";

/** Check a request that carries the token. */
export function verifyToken(
  keys: VerifierKeys,
  settings: VerifySettings,
  source: HeaderSource,
): WebhookVerification {
  const name = settings.header ?? TOKEN_HEADER;
  let value = source.get(name);
  if (value === null) reject("missing_signature", `header "${name}" is missing`);
  if (name === "authorization") value = value.replace(/^\s*Bearer\s+/i, "");
  const received = utf8(value.trim());
  const tokens = keys.tokens();
  let index = -1;
  // Compare with every secret, without stopping early, so timing does not tell which one matched.
  for (let i = 0; i < tokens.length; i++) {
    if (timingSafeEqual(received, tokens[i]) && index < 0) index = i;
  }
  if (index < 0) reject("signature_mismatch", `header "${name}" does not hold the configured token`);
  return { scheme: "token", secretIndex: index };
}
