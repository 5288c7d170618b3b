/**
 * The `auto` scheme (the default): whichever of `standard`, `hmac` and `jwt` the request carries, each
 * checked with the configured secret by that scheme's rules. Never `token`, never `none`: a request without
 * a signature is refused. When several signatures are present the one that proves the most is checked
 * (`standard`, then `hmac`, then `jwt`) and its failure is final, so a valid weaker signature never rescues
 * a wrong stronger one. Internal.
 *
 * @module
 */

import { JWT_HEADER, reject, SIGNATURE_HEADERS } from "./common.ts";
import { verifyHmac } from "./hmac.ts";
import { verifyJwt } from "./jwt.ts";
import { verifyStandard } from "./standard.ts";

/** Check a request by the scheme its headers show (the same inputs as the Standard Webhooks check). */
export const verifyAuto: typeof verifyStandard = (keys, settings, body, source, now) => {
  if (source.get("webhook-signature") !== null) return verifyStandard(keys, settings, body, source, now);
  for (const name of SIGNATURE_HEADERS) {
    const value = source.get(name);
    if (value !== null) return verifyHmac(keys, settings, body, source, now, { name, value });
  }
  if (source.get(JWT_HEADER) !== null) return verifyJwt(keys, settings, source, now);
  reject(
    "missing_signature",
    'no signature: expected "authorization: Bearer <JWT>" (the server\'s jwt_key), "x-gateway-signature" ' +
      'or the Standard Webhooks headers ("webhook-id", "webhook-timestamp", "webhook-signature")',
  );
};
