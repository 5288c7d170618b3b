/**
 * What every scheme's check shares: the header lookup, the header names, the settings a verifier resolved,
 * the refusal helper and the timestamp rules. Internal.
 *
 * @module
 */

import { type WebhookHeaders, type WebhookRejectReason, WebhookVerificationException } from "./types.ts";

/** A header lookup: `Headers` as it is (no wrapper per request), or a lower-cased plain record. */
export interface HeaderSource {
  get(name: string): string | null;
}

/** The lookup for `headers`. */
export function headerSource(headers: WebhookHeaders): HeaderSource {
  if (headers instanceof Headers) return headers;
  const lower = new Map<string, string>();
  for (const [name, value] of Object.entries(headers)) {
    if (typeof value === "string") lower.set(name.toLowerCase(), value);
  }
  return { get: (name) => lower.get(name) ?? null };
}

/** Where the hmac signature may be, in the order looked at. */
export const SIGNATURE_HEADERS = ["x-gateway-signature", "x-webhook-signature", "x-signature"];
/** The hmac timestamp. */
export const TIMESTAMP_HEADER = "x-gateway-timestamp";
/** The `token` scheme's default header. */
export const TOKEN_HEADER = "x-gateway-token";
/** The JWT's header (`Bearer <JWT>`). */
export const JWT_HEADER = "authorization";
/** The Standard Webhooks headers. */
export const STANDARD_HEADERS = ["webhook-id", "webhook-timestamp", "webhook-signature"] as const;

// Every header a scheme reads, for the operator's log line (names only, never values).
const KNOWN_SIGNATURE_HEADERS = [
  JWT_HEADER,
  ...SIGNATURE_HEADERS,
  TIMESTAMP_HEADER,
  ...STANDARD_HEADERS,
  TOKEN_HEADER,
];

/** The names of the signature headers `headers` carries (never their values), `header` too when given. */
export function signatureHeaderNames(headers: Headers, header?: string): string[] {
  const names = KNOWN_SIGNATURE_HEADERS.filter((name) => headers.has(name));
  if (header !== undefined && !names.includes(header) && headers.has(header)) names.push(header);
  return names;
}

/** What a verifier resolved from its options, as the scheme checks read it. */
export interface VerifySettings {
  /** The configured header (lower case), if not the scheme's default. */
  readonly header: string | undefined;
  /** Allowed clock difference for timestamps, in seconds. */
  readonly toleranceSeconds: number;
  /** Leeway for the JWT's `exp`, `iat` and `nbf`, in seconds. */
  readonly jwtLeewaySeconds: number;
  /** How long after its `iat` the server's JWT is accepted, in seconds (its retries reuse it). */
  readonly jwtMaxAgeSeconds: number;
  /** Whether an hmac request needs `x-gateway-timestamp`. */
  readonly requireTimestamp: boolean;
}

/** Refuse the request (401) with `reason`; the message never holds a secret or a signature. */
export function reject(reason: WebhookRejectReason, message: string): never {
  throw new WebhookVerificationException(reason, `Cannot verify webhook: ${message}`);
}

/** The refusal for a MAC that does not match, with the usual mistakes. */
export const MISMATCH =
  "signature does not match the body (sign and verify the exact raw bytes received, not " +
  "a JSON.parse result serialized again, and check that both sides use the same secret without stray whitespace)";

// Up to 13 digits so that a timestamp in ms is reported as "in the future" with a hint, not as malformed.
const TIMESTAMP = /^\d{1,13}$/;

/** A signed Unix time in seconds, or a refusal. */
export function parseTimestamp(value: string, label: string): number {
  const trimmed = value.trim();
  if (!TIMESTAMP.test(trimmed)) {
    reject("malformed_timestamp", `${label} is not a Unix time in seconds ("${trimmed.slice(0, 32)}")`);
  }
  return Number(trimmed);
}

/** Refuse a timestamp outside `tolerance` seconds of `nowSeconds`, both ways. */
export function checkWindow(timestamp: number, nowSeconds: number, tolerance: number, label: string): void {
  if (timestamp < nowSeconds - tolerance) {
    reject("timestamp_too_old", `${label} is too old ("${timestamp}", tolerance ${tolerance} s)`);
  }
  if (timestamp > nowSeconds + tolerance) {
    reject(
      "timestamp_in_future",
      `${label} is in the future ("${timestamp}", tolerance ${tolerance} s; is it in ms instead of s?)`,
    );
  }
}
