/**
 * The `jwt` scheme: what the reference server sends when its webhook `headers` hold `jwt_key`:
 * `Authorization: Bearer <JWT>`, HS256 only (`none` and every other algorithm refused), with the server's
 * claims only (`app: "evolution"`, `action: "webhook"`, `exp` at most 600 s after `iat`).
 *
 * The server signs one token per event and sends it again with every retry (about twenty minutes of
 * them), so a token is accepted for `jwtMaxAgeSeconds` from its `iat` (default 1800), not until its `exp`:
 * otherwise every retry after ten minutes is refused and the event lost. The token signs no body: it proves
 * the sender, not the content, and a captured one can be replayed for that window (dedupe and the message
 * claims stay on). Internal.
 *
 * @module
 */

import { fromBase64Url, timingSafeEqual, utf8 } from "../encoding.ts";
import { type HeaderSource, JWT_HEADER, reject, type VerifySettings } from "./common.ts";
import type { VerifierKeys } from "./keys.ts";
import type { WebhookVerification } from "./types.ts";
import { isRecord } from "../../util/json_shape.ts";

const BEARER = /^\s*Bearer\s+([A-Za-z0-9_.-]{1,8192})\s*$/i;

function decodeJsonPart(part: string): Record<string, unknown> | null {
  const bytes = fromBase64Url(part);
  if (bytes === null) return null;
  try {
    const value = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
    return isRecord(value) ? value : null;
  } catch {
    return null;
  }
}

// What the server's token claims (Evolution 2.3 `webhook.controller.ts`): a lifetime of 600 s, read from
// two `Date.now()` calls, so `exp - iat` may be 601 when a second ticks between them.
const SERVER_LIFETIME = 601;
const SERVER_APP = "evolution";
const SERVER_ACTION = "webhook";

/** The algorithm and the claims, refused before any signature work when they do not hold. */
function checkClaims(
  header: Record<string, unknown>,
  claims: Record<string, unknown>,
  now: number,
  settings: VerifySettings,
) {
  if (header.alg !== "HS256") {
    reject(
      "unsupported_algorithm",
      // The sender's text, quoted with its control characters escaped (it reaches the operator's log).
      `the JWT algorithm is ${JSON.stringify(String(header.alg).slice(0, 16))}; only HS256 is accepted`,
    );
  }
  if (header.crit !== undefined) reject("unsupported_algorithm", 'the JWT has a "crit" header');
  const { exp, iat, nbf } = claims;
  if (
    typeof exp !== "number" || !Number.isFinite(exp) || typeof iat !== "number" || !Number.isFinite(iat)
  ) {
    reject("malformed_timestamp", 'the JWT needs numeric "exp" and "iat" claims');
  }
  if (
    exp < iat || exp - iat > SERVER_LIFETIME || claims.app !== SERVER_APP || claims.action !== SERVER_ACTION
  ) {
    reject(
      "invalid_claims",
      `the JWT's claims are not the server's ("app" "${SERVER_APP}", "action" "${SERVER_ACTION}", "exp" at ` +
        'most 600 s after "iat")',
    );
  }
  const nowSeconds = now / 1000;
  const { jwtLeewaySeconds: leeway, jwtMaxAgeSeconds: maxAge } = settings;
  if (iat + maxAge + leeway < nowSeconds) {
    reject(
      "timestamp_too_old",
      `the JWT was issued more than ${maxAge} s ago ("iat" ${iat}; jwtMaxAgeSeconds ${maxAge})`,
    );
  }
  if (iat - leeway > nowSeconds) {
    reject("timestamp_in_future", `the JWT was issued in the future ("iat" ${iat})`);
  }
  if (typeof nbf === "number" && nbf - leeway > nowSeconds) {
    reject("timestamp_in_future", `the JWT is not valid yet ("nbf" ${nbf})`);
  }
  return iat;
}

/** Check a request signed with the server's JWT. */
export async function verifyJwt(
  keys: VerifierKeys,
  settings: VerifySettings,
  source: HeaderSource,
  now: number,
): Promise<WebhookVerification> {
  const name = settings.header ?? JWT_HEADER;
  const value = source.get(name);
  if (value === null) reject("missing_signature", `header "${name}" is missing`);
  const parts = BEARER.exec(value)?.[1].split(".");
  if (parts === undefined || parts.length !== 3) {
    reject("malformed_signature", `header "${name}" is not "Bearer <JWT>" with a three-part JWT`);
  }
  const header = decodeJsonPart(parts[0]);
  const claims = decodeJsonPart(parts[1]);
  if (header === null || claims === null) {
    reject("malformed_signature", "the JWT header or claims are not JSON");
  }
  const iat = checkClaims(header, claims, now, settings);
  const signature = fromBase64Url(parts[2]);
  if (signature === null || signature.length !== 32) {
    reject("malformed_signature", "the JWT signature is malformed");
  }
  const index = await keys.match(
    "utf8",
    utf8(`${parts[0]}.${parts[1]}`),
    (mac) => timingSafeEqual(signature, mac),
  );
  if (index < 0) {
    reject("signature_mismatch", "the JWT signature does not match (is the secret the webhook's jwt_key?)");
  }
  return { scheme: "jwt", secretIndex: index, timestamp: iat };
}
