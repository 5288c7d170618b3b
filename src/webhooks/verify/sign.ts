/**
 * Signing, for tests and for servers you control: the headers that make a request pass a scheme's
 * verification. The reference gateway server itself signs only with `jwt`.
 *
 * @module
 */

import { ConfigurationException } from "../../errors.ts";
import { checkOptionKeys } from "../../option_keys.ts";
import { concatBytes, toBase64, toBase64Url, toHex, utf8 } from "../encoding.ts";
import { JWT_HEADER, SIGNATURE_HEADERS, TIMESTAMP_HEADER, TOKEN_HEADER } from "./common.ts";
import { HmacSha256 } from "../../util/sha256.ts";
import { checkSecrets, standardKeyBytes } from "./secrets.ts";
import type { WebhookSignatureScheme } from "./types.ts";

// What the reference server gives its JWT: ten minutes.
const JWT_LIFETIME = 600;

/** Options of {@link signWebhook}. */
export interface SignWebhookOptions {
  /** The exact body that will be sent (text or bytes). */
  body: string | Uint8Array;
  /** The secret (for `standard`, `whsec_<base64>`). */
  secret: string;
  /** Scheme to sign for (default `hmac`). */
  scheme?: WebhookSignatureScheme;
  /**
   * Signing time in epoch seconds (default now). With `hmac`, `false` signs the body alone without a
   * timestamp header.
   */
  timestamp?: number | false;
  /** Delivery id for `standard` (default a random `msg_...`). */
  id?: string;
  /** Header to put the signature or token in, instead of the scheme's default. */
  header?: string;
}

const SIGN_OPTION_KEYS = {
  body: true,
  secret: true,
  scheme: true,
  timestamp: true,
  id: true,
  header: true,
} as const satisfies Record<keyof SignWebhookOptions, true>;

/**
 * Headers that make a test request pass the chosen scheme's verification (plus `content-type`). Ships for
 * tests and for servers you control; the reference gateway server itself signs only with `jwt`.
 *
 * @example
 * ```ts
 * import { signWebhook } from "@gw/gateway/testing";
 * const body = JSON.stringify({ event: "messages.upsert", instance: "sales", data: {} });
 * const headers = await signWebhook({ body, secret: "s3cret" });
 * await fetch("http://127.0.0.1:8000/gateway/webhook/sales", { method: "POST", headers, body });
 * ```
 */
export async function signWebhook(options: SignWebhookOptions): Promise<Record<string, string>> {
  const scheme = options.scheme ?? "hmac";
  if (scheme === "auto") {
    throw new ConfigurationException(
      'Invalid signing options: "auto" only verifies; choose the scheme to sign for (hmac, standard, jwt, token)',
      { setting: "scheme" },
    );
  }
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (scheme === "none") return headers;
  checkOptionKeys(options, SIGN_OPTION_KEYS, "signWebhook");
  const [secret] = checkSecrets(options.secret);
  const body = typeof options.body === "string" ? utf8(options.body) : options.body;
  const timestamp = options.timestamp === false
    ? undefined
    : options.timestamp ?? Math.floor(Date.now() / 1000);
  if (scheme === "token") {
    headers[options.header?.toLowerCase() ?? TOKEN_HEADER] = secret;
    return headers;
  }
  const key = new HmacSha256(scheme === "standard" ? standardKeyBytes(secret) : utf8(secret));
  const sign = (content: Uint8Array) => key.sign(content);
  if (scheme === "hmac") {
    const content = timestamp === undefined ? body : concatBytes(utf8(`${timestamp}.`), body);
    headers[options.header?.toLowerCase() ?? SIGNATURE_HEADERS[0]] = `sha256=${toHex(await sign(content))}`;
    if (timestamp !== undefined) headers[TIMESTAMP_HEADER] = String(timestamp);
    return headers;
  }
  const stamp = timestamp ?? Math.floor(Date.now() / 1000);
  if (scheme === "standard") {
    const id = options.id ?? `msg_${crypto.randomUUID().replaceAll("-", "")}`;
    const signature = await sign(concatBytes(utf8(`${id}.${stamp}.`), body));
    headers["webhook-id"] = id;
    headers["webhook-timestamp"] = String(stamp);
    headers["webhook-signature"] = `v1,${toBase64(signature)}`;
    return headers;
  }
  const head = toBase64Url(utf8(JSON.stringify({ alg: "HS256", typ: "JWT" })));
  const claims = toBase64Url(
    utf8(JSON.stringify({ iat: stamp, exp: stamp + JWT_LIFETIME, app: "evolution", action: "webhook" })),
  );
  const signature = toBase64Url(await sign(utf8(`${head}.${claims}`)));
  headers[options.header?.toLowerCase() ?? JWT_HEADER] = `Bearer ${head}.${claims}.${signature}`;
  return headers;
}
