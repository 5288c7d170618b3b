/**
 * The `jwt` scheme: what the reference server sends when its webhook `headers` hold `jwt_key`:
 * `Authorization: Bearer <JWT>`, HS256 only (`none` and every other algorithm refused), `exp` and `iat`
 * (and `nbf` when present) checked with a leeway. The token signs no body: it proves the sender, not the
 * content, and can be replayed within its lifetime (ten minutes from the server). Internal.
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

/** The algorithm and the time claims, refused before any signature work when they do not hold. */
function checkClaims(
  header: Record<string, unknown>,
  claims: Record<string, unknown>,
  now: number,
  leeway: number,
) {
  if (header.alg !== "HS256") {
    reject(
      "unsupported_algorithm",
      `the JWT algorithm is "${String(header.alg).slice(0, 16)}"; only HS256 is accepted`,
    );
  }
  if (header.crit !== undefined) reject("unsupported_algorithm", 'the JWT has a "crit" header');
  const { exp, iat, nbf } = claims;
  if (
    typeof exp !== "number" || !Number.isFinite(exp) || typeof iat !== "number" || !Number.isFinite(iat)
  ) {
    reject("malformed_timestamp", 'the JWT needs numeric "exp" and "iat" claims');
  }
  const nowSeconds = now / 1000;
  if (exp + leeway < nowSeconds) reject("timestamp_too_old", `the JWT expired ("exp" ${exp})`);
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
  const iat = checkClaims(header, claims, now, settings.jwtLeewaySeconds);
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
