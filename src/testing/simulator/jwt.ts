/**
 * The HS256 JWT a webhook with a `jwt_key` carries as `Authorization: Bearer` (contract §5.1).
 *
 * @module
 */

import { toBase64Url } from "../../util/base64.ts";

const encoder = new TextEncoder();

/** Sign `payload` as a compact HS256 JWT with the secret string as given. */
export async function signHs256Jwt(payload: Record<string, unknown>, secret: string): Promise<string> {
  const header = toBase64Url(encoder.encode(JSON.stringify({ alg: "HS256", typ: "JWT" })));
  const body = toBase64Url(encoder.encode(JSON.stringify(payload)));
  const key = await crypto.subtle.importKey(
    "raw",
    encoder.encode(secret),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  const signature = await crypto.subtle.sign("HMAC", key, encoder.encode(`${header}.${body}`));
  return `${header}.${body}.${toBase64Url(new Uint8Array(signature))}`;
}

/** The webhook JWT for the time `nowMs`. */
export function webhookJwt(secret: string, nowMs: number): Promise<string> {
  const iat = Math.floor(nowMs / 1000);
  return signHs256Jwt({ iat, exp: iat + 600, app: "evolution", action: "webhook" }, secret);
}
