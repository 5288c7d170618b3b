/**
 * Verification (and, for tests, creation) of webhook signatures, with Web Crypto only, over the raw bytes.
 *
 * Schemes:
 * - `auto` (default): whichever of `jwt`, `hmac` and `standard` the request carries, each checked with the
 *   configured secret by that scheme's rules (never `token`, never `none`; no signature is a 401).
 * - `hmac`: `x-gateway-signature` (or `x-webhook-signature`, `x-signature`) holds the hex
 *   HMAC-SHA256 of the raw body, optionally prefixed `sha256=`. When `x-gateway-timestamp` is sent (or
 *   `requireTimestamp` is on) the signed content is `<timestamp>.<body>` and the timestamp must be within
 *   `toleranceSeconds`.
 * - `standard`: Standard Webhooks (`webhook-id`, `webhook-timestamp`, `webhook-signature: v1,<base64>`,
 *   secret `whsec_<base64>`), HMAC over `<id>.<timestamp>.<body>`.
 * - `jwt`: the reference server's own mechanism (`headers: { jwt_key }` in its webhook config):
 *   `Authorization: Bearer <JWT>`, HS256 only, `exp` and `iat` checked. It does not cover the body.
 * - `token`: a static shared secret in a header, compared in constant time.
 * - `none`: no check; only when chosen explicitly (logs a warning once).
 *
 * Imported keys are cached (each secret is imported once per process). The expected MAC is computed with
 * `crypto.subtle.sign` and compared with the received one in a loop whose time depends only on the length
 * (never on where they differ); no error message ever contains a secret.
 *
 * @module
 */

import { checkOptionKeys } from "../option_keys.ts";
import { ConfigurationException, WebhookException } from "../errors.ts";
import { getGatewayLogger } from "../log.ts";
import {
  concatBytes,
  fromBase64,
  fromBase64Url,
  hexEquals,
  isHex,
  timingSafeEqual,
  toBase64,
  toBase64Url,
  toHex,
  utf8,
} from "./encoding.ts";

/** A signature scheme. */
export type WebhookSignatureScheme = "auto" | "hmac" | "standard" | "jwt" | "token" | "none";

/**
 * A scheme a request was verified with (`auto` resolves to one of them per request).
 *
 * @example
 * ```ts
 * import { verifyWebhook, type VerifiedWebhookScheme } from "@gw/gateway/webhooks";
 * export async function schemeOf(body: Uint8Array, headers: Headers): Promise<VerifiedWebhookScheme> {
 *   return (await verifyWebhook(body, headers, { signature: { secret: "s3cret" } })).scheme;
 * }
 * ```
 */
export type VerifiedWebhookScheme = Exclude<WebhookSignatureScheme, "auto">;

/** Every scheme, in documentation order. */
export const WEBHOOK_SIGNATURE_SCHEMES: readonly WebhookSignatureScheme[] = [
  "auto",
  "hmac",
  "standard",
  "jwt",
  "token",
  "none",
];

/** Why a webhook was refused (logged and counted; the HTTP answer stays a generic 401). */
export type WebhookRejectReason =
  | "no_secret"
  | "invalid_body"
  | "missing_signature"
  | "malformed_signature"
  | "signature_mismatch"
  | "missing_timestamp"
  | "malformed_timestamp"
  | "timestamp_too_old"
  | "timestamp_in_future"
  | "unsupported_algorithm";

/**
 * The signature settings: the `signature` option of `createWebhookHandler` and of {@link verifyWebhook},
 * and what a {@link WebhookVerifier} is built from.
 *
 * @example The same object in both places
 * ```ts
 * import { createWebhookHandler, verifyWebhook, type WebhookSignatureOptions } from "@gw/gateway/webhooks";
 * const signature: WebhookSignatureOptions = { scheme: "hmac", secret: "s3cret", requireTimestamp: true };
 * const handler = createWebhookHandler({ signature });
 * const check = (body: Uint8Array, headers: Headers) => verifyWebhook(body, headers, { signature });
 * ```
 */
export interface WebhookSignatureOptions {
  /**
   * `auto` (default: the JWT, hmac or Standard Webhooks signature the request carries), or one scheme only:
   * `hmac`, `standard`, `jwt`, `token` or `none`.
   */
  scheme?: WebhookSignatureScheme;
  /** The shared secret, or several during a rotation (any one may match). */
  secret?: string | readonly string[];
  /** Header that carries the signature or token, instead of the scheme's default (not with `auto`). */
  header?: string;
  /** Allowed clock difference for timestamps, in seconds (default 300). */
  toleranceSeconds?: number;
  /** Require a timestamp with the `hmac` scheme (default false). */
  requireTimestamp?: boolean;
  /** Leeway for the JWT `exp` and `iat` claims, in seconds (default 30). */
  jwtLeewaySeconds?: number;
}

/** The keys of {@link WebhookSignatureOptions}, for the unknown-key check. Internal. */
export const SIGNATURE_OPTION_KEYS = {
  scheme: true,
  secret: true,
  header: true,
  toleranceSeconds: true,
  requireTimestamp: true,
  jwtLeewaySeconds: true,
} as const satisfies Record<keyof WebhookSignatureOptions, true>;

/** Options of {@link verifyWebhook}: the signature settings, nested as in `createWebhookHandler`. */
export interface WebhookVerifyOptions {
  /** Scheme, secret and settings. */
  signature: WebhookSignatureOptions;
}

/** What a successful verification established. */
export interface WebhookVerification {
  /** The scheme the request was verified with (with `auto`, the one the request carried). */
  scheme: VerifiedWebhookScheme;
  /** Which configured secret matched (0 for the first; -1 for `none`). */
  secretIndex: number;
  /** The delivery id (`webhook-id`), with the `standard` scheme. */
  id?: string;
  /** The signed timestamp in epoch seconds, when there was one. */
  timestamp?: number;
}

/**
 * A webhook failed verification. `reason` says why; the message explains the usual mistake and never
 * contains a secret.
 *
 * @example
 * ```ts
 * import { verifyWebhook, WebhookVerificationException } from "@gw/gateway/webhooks";
 * try {
 *   await verifyWebhook("{}", new Headers(), { signature: { secret: "s3cret" } });
 * } catch (error) {
 *   if (error instanceof WebhookVerificationException) console.log(error.reason); // "missing_signature"
 * }
 * ```
 */
export class WebhookVerificationException extends WebhookException {
  /** Why verification failed. */
  readonly reason: WebhookRejectReason;

  /**
   * Build the error (status 401).
   *
   * @example
   * ```ts
   * import { WebhookVerificationException } from "@gw/gateway/webhooks";
   * new WebhookVerificationException("signature_mismatch", "Cannot verify webhook: signature does not match");
   * ```
   */
  constructor(reason: WebhookRejectReason, message: string) {
    super(message, { status: 401, messages: [reason] });
    this.reason = reason;
  }
}

/** Headers as a `Headers` object or a plain record (names in any case). */
export type WebhookHeaders = Headers | Readonly<Record<string, string | undefined>>;

// `Headers` is used as it is (no wrapper per request); a plain record becomes a lower-cased lookup.
interface HeaderSource {
  get(name: string): string | null;
}

function headerSource(headers: WebhookHeaders): HeaderSource {
  if (headers instanceof Headers) return headers;
  const lower = new Map<string, string>();
  for (const [name, value] of Object.entries(headers)) {
    if (typeof value === "string") lower.set(name.toLowerCase(), value);
  }
  return { get: (name) => lower.get(name) ?? null };
}

const SIGNATURE_HEADERS = ["x-gateway-signature", "x-webhook-signature", "x-signature"];
const TIMESTAMP_HEADER = "x-gateway-timestamp";
const TOKEN_HEADER = "x-gateway-token";
const JWT_HEADER = "authorization";
const DEFAULT_TOLERANCE = 300;
const DEFAULT_JWT_LEEWAY = 30;
const JWT_LIFETIME = 600;
// Up to 13 digits so that a timestamp in ms is reported as "in the future" with a hint, not as malformed.
const TIMESTAMP = /^\d{1,13}$/;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

// One import per (usage, secret) per process; bounded so that a caller cycling secrets cannot grow it.
const keyCache = new Map<string, Promise<CryptoKey>>();
const KEY_CACHE_LIMIT = 256;

function hmacKey(material: Uint8Array, cacheId: string): Promise<CryptoKey> {
  let key = keyCache.get(cacheId);
  if (key === undefined) {
    if (keyCache.size >= KEY_CACHE_LIMIT) keyCache.clear();
    key = crypto.subtle.importKey(
      "raw",
      material as Uint8Array<ArrayBuffer>,
      { name: "HMAC", hash: "SHA-256" },
      false,
      ["sign"],
    );
    key.catch(() => keyCache.delete(cacheId));
    keyCache.set(cacheId, key);
  }
  return key;
}

type KeyKind = "utf8" | "standard";

/** Whether `bytes` is `<base64url>.<base64url>`: the part of a JWT its signature covers. */
function isJwtSigningInput(bytes: Uint8Array): boolean {
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

/** The HMAC-SHA256 of `content` (Web Crypto). */
function hmac(key: CryptoKey, content: Uint8Array): Promise<ArrayBuffer> {
  return crypto.subtle.sign("HMAC", key, content as Uint8Array<ArrayBuffer>);
}

function standardSecretBytes(secret: string): Uint8Array | null {
  const body = secret.startsWith("whsec_") ? secret.slice(6) : secret;
  const bytes = fromBase64(body);
  return bytes !== null && bytes.length > 0 ? bytes : null;
}

function keyMaterial(scheme: WebhookSignatureScheme, secret: string): Uint8Array {
  if (scheme === "standard") {
    const bytes = standardSecretBytes(secret);
    if (bytes === null) {
      throw new ConfigurationException(
        'Invalid webhook secret: a Standard Webhooks secret is "whsec_" followed by base64 (the secret itself is not shown)',
        { setting: "signature.secret" },
      );
    }
    return bytes;
  }
  return utf8(secret);
}

function secretError(message: string): ConfigurationException {
  return new ConfigurationException(message, { setting: "signature.secret" });
}

function checkSecrets(secret: string | readonly string[] | undefined): string[] {
  if (secret === undefined || secret === null) return [];
  const list = typeof secret === "string" ? [secret] : Array.isArray(secret) ? [...secret] : null;
  if (list === null) {
    throw secretError("Invalid webhook secret: expected a string or an array of strings");
  }
  if (list.length === 0) throw secretError("Invalid webhook secret: the array of secrets is empty");
  list.forEach((item, i) => {
    const which = list.length > 1 ? ` #${i + 1}` : "";
    if (typeof item !== "string") {
      throw secretError(`Invalid webhook secret${which}: expected a string`);
    }
    if (item.length === 0) throw secretError(`Invalid webhook secret${which}: it is empty`);
    if (item.trim() !== item) {
      throw secretError(
        `Invalid webhook secret${which}: it has leading or trailing whitespace (a newline copied with it?); ` +
          "the signer uses the exact bytes, so trim it where it is stored",
      );
    }
  });
  return list;
}

function checkSeconds(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isFinite(value) || value < 0) {
    throw new ConfigurationException(
      `Invalid webhook configuration: "${name}" must be a number >= 0, got "${String(value)}"`,
      { setting: name },
    );
  }
  return value;
}

let warnedNone = false;

function reject(reason: WebhookRejectReason, message: string): never {
  throw new WebhookVerificationException(reason, `Cannot verify webhook: ${message}`);
}

const MISMATCH = "signature does not match the body (sign and verify the exact raw bytes received, not a " +
  "JSON.parse result serialized again, and check that both sides use the same secret without stray whitespace)";

function checkWindow(timestamp: number, nowSeconds: number, tolerance: number, label: string): void {
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

function parseTimestamp(value: string, label: string): number {
  const trimmed = value.trim();
  if (!TIMESTAMP.test(trimmed)) {
    reject("malformed_timestamp", `${label} is not a Unix time in seconds ("${trimmed.slice(0, 32)}")`);
  }
  return Number(trimmed);
}

function decodeJsonPart(part: string): Record<string, unknown> | null {
  const bytes = fromBase64Url(part);
  if (bytes === null) return null;
  try {
    const value = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
    return value !== null && typeof value === "object" && !Array.isArray(value) ? value : null;
  } catch {
    return null;
  }
}

/**
 * A verifier for one configuration: it validates the configuration once, imports each secret once, and
 * then checks requests. {@link createWebhookHandler} uses one internally; use it directly when you route
 * requests yourself and verify many of them.
 *
 * @example
 * ```ts
 * import { signWebhook, WebhookVerifier } from "@gw/gateway/webhooks";
 * const verifier = new WebhookVerifier({ scheme: "hmac", secret: "s3cret" });
 * const body = new TextEncoder().encode('{"event":"messages.upsert"}');
 * const headers = new Headers(await signWebhook({ body, secret: "s3cret" }));
 * await verifier.verify(body, headers); // { scheme: "hmac", secretIndex: 0, timestamp: ... }
 * ```
 */
export class WebhookVerifier {
  /** The scheme this verifier checks. */
  readonly scheme: WebhookSignatureScheme;
  /** Whether a secret is configured (false with a scheme that needs one: every request is refused). */
  readonly hasSecret: boolean;
  /** The header configured to carry the signature or token (lower case), if not the scheme's default. */
  readonly header: string | undefined;
  readonly #secrets: string[];
  readonly #header: string | undefined;
  readonly #tolerance: number;
  readonly #leeway: number;
  readonly #requireTimestamp: boolean;
  // Per key kind: the secrets' bytes (`utf8`: hmac and jwt) or their decoded `whsec_` body (`standard`); an
  // entry is null for a secret that cannot serve that kind (a plain secret, with `auto`, for `standard`).
  readonly #keys: Record<KeyKind, Promise<(CryptoKey | null)[]> | undefined> = {
    utf8: undefined,
    standard: undefined,
  };
  readonly #ready: Record<KeyKind, (CryptoKey | null)[] | undefined> = {
    utf8: undefined,
    standard: undefined,
  };
  #tokens: Uint8Array[] | undefined;

  /**
   * Validate the configuration; throws `ConfigurationException` when it is visibly wrong (empty secret, secret
   * with surrounding whitespace, NaN tolerance, unknown scheme, bad header name).
   *
   * @example
   * ```ts
   * import { WebhookVerifier } from "@gw/gateway/webhooks";
   * const verifier = new WebhookVerifier({ scheme: "standard", secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw" });
   * ```
   */
  constructor(options: WebhookSignatureOptions = {}) {
    checkOptionKeys(options, SIGNATURE_OPTION_KEYS, "WebhookVerifier");
    const scheme = options.scheme ?? "auto";
    if (!WEBHOOK_SIGNATURE_SCHEMES.includes(scheme)) {
      throw new ConfigurationException(
        `Invalid webhook configuration: unknown signature scheme "${String(scheme)}" ` +
          `(expected one of ${WEBHOOK_SIGNATURE_SCHEMES.join(", ")})`,
        { setting: "signature.scheme" },
      );
    }
    this.scheme = scheme;
    this.#secrets = scheme === "none" ? [] : checkSecrets(options.secret);
    // A `standard` secret (and, with `auto`, any secret written `whsec_...`) must decode: refused now.
    for (const secret of this.#secrets) {
      if (scheme === "standard" || (scheme === "auto" && secret.startsWith("whsec_"))) {
        keyMaterial("standard", secret);
      }
    }
    this.hasSecret = this.#secrets.length > 0;
    if (
      options.header !== undefined &&
      (typeof options.header !== "string" || !HEADER_NAME.test(options.header))
    ) {
      throw new ConfigurationException(
        'Invalid webhook configuration: "signature.header" is not a header name',
        {
          setting: "signature.header",
        },
      );
    }
    if (scheme === "auto" && options.header !== undefined) {
      throw new ConfigurationException(
        'Invalid webhook configuration: "signature.header" applies to one scheme; set "signature.scheme" ' +
          '(hmac, jwt or token) with it, the default "auto" reads each scheme\'s own headers',
        { setting: "signature.header" },
      );
    }
    this.#header = this.header = options.header?.toLowerCase();
    this.#tolerance = checkSeconds(
      "signature.toleranceSeconds",
      options.toleranceSeconds,
      DEFAULT_TOLERANCE,
    );
    this.#leeway = checkSeconds(
      "signature.jwtLeewaySeconds",
      options.jwtLeewaySeconds,
      DEFAULT_JWT_LEEWAY,
    );
    this.#requireTimestamp = options.requireTimestamp === true;
    if (scheme === "none" && !warnedNone) {
      warnedNone = true;
      getGatewayLogger("webhook").warn(
        'Webhook signature scheme "none": requests are not authenticated; use it for local development only',
      );
    }
  }

  /**
   * Check one request. Resolves with what was verified, or rejects with a
   * {@link WebhookVerificationException} whose `reason` says why.
   *
   * @example
   * ```ts
   * import { WebhookVerifier } from "@gw/gateway/webhooks";
   * const verifier = new WebhookVerifier({ scheme: "token", header: "x-token", secret: "s3cret" });
   * await verifier.verify(new Uint8Array(), new Headers({ "x-token": "s3cret" }));
   * ```
   */
  verify(body: Uint8Array, headers: WebhookHeaders, now: number = Date.now()): Promise<WebhookVerification> {
    // The checks before the Web Crypto call throw synchronously; they leave here as a rejected promise.
    try {
      const source = headerSource(headers);
      switch (this.scheme) {
        case "none":
          return Promise.resolve({ scheme: "none", secretIndex: -1 });
        case "token":
          return Promise.resolve(this.#verifyToken(source));
      }
      if (!this.hasSecret) return this.#noSecret();
      switch (this.scheme) {
        case "auto":
          return this.#verifyAuto(body, source, now);
        case "hmac":
          return this.#verifyHmac(body, source, now, this.#signatureHeader(source));
        case "standard":
          return this.#verifyStandard(body, source, now);
        default:
          return this.#verifyJwt(source, now);
      }
    } catch (error) {
      return Promise.reject(error);
    }
  }

  #noSecret(): Promise<never> {
    return Promise.reject(
      new WebhookVerificationException(
        "no_secret",
        `Cannot verify webhook: no secret is configured for the "${this.scheme}" scheme ` +
          "(set GATEWAY_WEBHOOK_SECRET or the signature.secret option); every request is refused",
      ),
    );
  }

  #loadKeys(kind: KeyKind): Promise<(CryptoKey | null)[]> {
    let keys = this.#keys[kind];
    if (keys === undefined) {
      keys = Promise.all(this.#secrets.map((secret) => {
        if (kind === "utf8") return hmacKey(utf8(secret), `utf8\u0000${secret}`);
        // With `auto`, only a secret written `whsec_...` is a Standard Webhooks secret.
        if (this.scheme === "auto" && !secret.startsWith("whsec_")) return null;
        return hmacKey(keyMaterial("standard", secret), `standard\u0000${secret}`);
      }));
      keys.catch(() => this.#keys[kind] = undefined);
      this.#keys[kind] = keys;
    }
    return keys;
  }

  // Each configured key signs the content once (Web Crypto); `accepts` compares that MAC with what the
  // request carries, in constant time. One signature per key instead of one verify per (key, signature)
  // pair, and a hex signature is compared as received, without decoding it into a buffer first.
  // Resolves with the index of the matching key, -1 when none matched, -2 when no key can serve `kind`.
  async #match(
    kind: KeyKind,
    content: Uint8Array,
    accepts: (mac: Uint8Array) => boolean,
  ): Promise<number> {
    const keys = this.#ready[kind] ??= await this.#loadKeys(kind);
    let usable = false;
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i];
      if (key === null) continue;
      usable = true;
      if (accepts(new Uint8Array(await hmac(key, content)))) return i;
    }
    return usable ? -1 : -2;
  }

  // `auto`: the scheme whose headers the request carries. When several are present the one that proves the
  // most is checked (standard, then hmac, then jwt) and its failure is final: no fallback to another one.
  #verifyAuto(body: Uint8Array, source: HeaderSource, now: number): Promise<WebhookVerification> {
    if (source.get("webhook-signature") !== null) return this.#verifyStandard(body, source, now);
    for (const name of SIGNATURE_HEADERS) {
      const value = source.get(name);
      if (value !== null) return this.#verifyHmac(body, source, now, { name, value });
    }
    if (source.get(JWT_HEADER) !== null) return this.#verifyJwt(source, now);
    reject(
      "missing_signature",
      'no signature: expected "authorization: Bearer <JWT>" (the server\'s jwt_key), "x-gateway-signature" ' +
        'or the Standard Webhooks headers ("webhook-id", "webhook-timestamp", "webhook-signature")',
    );
  }

  // The hmac signature header: the configured one, or the first of the usual names present.
  #signatureHeader(source: HeaderSource): { name: string; value: string | null } {
    if (this.#header !== undefined) return { name: this.#header, value: source.get(this.#header) };
    for (const name of SIGNATURE_HEADERS) {
      const value = source.get(name);
      if (value !== null) return { name, value };
    }
    return { name: SIGNATURE_HEADERS[0], value: null };
  }

  #verifyHmac(
    body: Uint8Array,
    source: HeaderSource,
    now: number,
    { name, value }: { name: string; value: string | null },
  ): Promise<WebhookVerification> {
    if (value === null) reject("missing_signature", `header "${name}" is missing`);
    let hex = value.trim();
    if (hex.length === 71 && hex.slice(0, 7).toLowerCase() === "sha256=") hex = hex.slice(7);
    if (hex.length !== 64 || !isHex(hex)) {
      reject(
        "malformed_signature",
        `header "${name}" is not a hex HMAC-SHA256 (64 hex digits, "sha256=" optional)`,
      );
    }
    const stamp = source.get(TIMESTAMP_HEADER);
    let timestamp: number | undefined;
    let content = body;
    if (stamp === null) {
      if (this.#requireTimestamp) reject("missing_timestamp", `header "${TIMESTAMP_HEADER}" is missing`);
      // The same secret may serve `jwt` (always with `auto`): a captured JWT's signature is the HMAC of its
      // `<header>.<claims>` part, so that part is never accepted as an hmac-signed body.
      if (isJwtSigningInput(body)) {
        reject("invalid_body", "the body is the signed part of a JWT, not a webhook body");
      }
    } else {
      timestamp = parseTimestamp(stamp, `header "${TIMESTAMP_HEADER}"`);
      checkWindow(timestamp, Math.floor(now / 1000), this.#tolerance, "timestamp");
      content = concatBytes(utf8(`${stamp.trim()}.`), body);
    }
    const result: WebhookVerification = timestamp === undefined
      ? { scheme: "hmac", secretIndex: 0 }
      : { scheme: "hmac", secretIndex: 0, timestamp };
    const keys = this.#ready.utf8;
    if (keys !== undefined && keys.length === 1) {
      // The usual case, one secret: a single Web Crypto call and one continuation.
      return hmac(keys[0]!, content).then((mac) => {
        if (!hexEquals(hex, new Uint8Array(mac))) reject("signature_mismatch", MISMATCH);
        return result;
      });
    }
    return this.#match("utf8", content, (mac) => hexEquals(hex, mac)).then((index) => {
      if (index < 0) reject("signature_mismatch", MISMATCH);
      result.secretIndex = index;
      return result;
    });
  }

  async #verifyStandard(body: Uint8Array, source: HeaderSource, now: number): Promise<WebhookVerification> {
    const id = source.get("webhook-id");
    const stamp = source.get("webhook-timestamp");
    const header = source.get("webhook-signature");
    if (header === null) reject("missing_signature", 'header "webhook-signature" is missing');
    if (id === null || id.length === 0 || id.length > 256) {
      reject("missing_signature", 'header "webhook-id" is missing or longer than 256 characters');
    }
    if (stamp === null) reject("missing_timestamp", 'header "webhook-timestamp" is missing');
    const timestamp = parseTimestamp(stamp, 'header "webhook-timestamp"');
    checkWindow(timestamp, Math.floor(now / 1000), this.#tolerance, "timestamp");
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
    const content = concatBytes(utf8(`${id}.${stamp.trim()}.`), body);
    const index = await this.#match("standard", content, (mac) => {
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

  async #verifyJwt(source: HeaderSource, now: number): Promise<WebhookVerification> {
    const name = this.#header ?? JWT_HEADER;
    const value = source.get(name);
    if (value === null) reject("missing_signature", `header "${name}" is missing`);
    const match = /^\s*Bearer\s+([A-Za-z0-9_.-]{1,8192})\s*$/i.exec(value);
    const parts = match?.[1].split(".");
    if (parts === undefined || parts.length !== 3) {
      reject("malformed_signature", `header "${name}" is not "Bearer <JWT>" with a three-part JWT`);
    }
    const header = decodeJsonPart(parts[0]);
    const claims = decodeJsonPart(parts[1]);
    if (header === null || claims === null) {
      reject("malformed_signature", "the JWT header or claims are not JSON");
    }
    if (header.alg !== "HS256") {
      reject(
        "unsupported_algorithm",
        `the JWT algorithm is "${String(header.alg).slice(0, 16)}"; only HS256 is accepted`,
      );
    }
    if (header.crit !== undefined) reject("unsupported_algorithm", 'the JWT has a "crit" header');
    const exp = claims.exp;
    const iat = claims.iat;
    if (
      typeof exp !== "number" || !Number.isFinite(exp) || typeof iat !== "number" || !Number.isFinite(iat)
    ) {
      reject("malformed_timestamp", 'the JWT needs numeric "exp" and "iat" claims');
    }
    const nowSeconds = now / 1000;
    if (exp + this.#leeway < nowSeconds) reject("timestamp_too_old", `the JWT expired ("exp" ${exp})`);
    if (iat - this.#leeway > nowSeconds) {
      reject("timestamp_in_future", `the JWT was issued in the future ("iat" ${iat})`);
    }
    if (typeof claims.nbf === "number" && claims.nbf - this.#leeway > nowSeconds) {
      reject("timestamp_in_future", `the JWT is not valid yet ("nbf" ${claims.nbf})`);
    }
    const signature = fromBase64Url(parts[2]);
    if (signature === null || signature.length !== 32) {
      reject("malformed_signature", "the JWT signature is malformed");
    }
    const index = await this.#match(
      "utf8",
      utf8(`${parts[0]}.${parts[1]}`),
      (mac) => timingSafeEqual(signature, mac),
    );
    if (index < 0) {
      reject("signature_mismatch", "the JWT signature does not match (is the secret the webhook's jwt_key?)");
    }
    return { scheme: "jwt", secretIndex: index, timestamp: iat };
  }

  #verifyToken(source: HeaderSource): WebhookVerification {
    if (!this.hasSecret) {
      throw new WebhookVerificationException(
        "no_secret",
        'Cannot verify webhook: no secret is configured for the "token" scheme ' +
          "(set GATEWAY_WEBHOOK_SECRET or the signature.secret option); every request is refused",
      );
    }
    const name = this.#header ?? TOKEN_HEADER;
    let value = source.get(name);
    if (value === null) reject("missing_signature", `header "${name}" is missing`);
    if (name === "authorization") value = value.replace(/^\s*Bearer\s+/i, "");
    const received = utf8(value.trim());
    this.#tokens ??= this.#secrets.map(utf8);
    let index = -1;
    // Compare with every secret, without stopping early, so timing does not tell which one matched.
    for (let i = 0; i < this.#tokens.length; i++) {
      if (timingSafeEqual(received, this.#tokens[i]) && index < 0) index = i;
    }
    if (index < 0) reject("signature_mismatch", `header "${name}" does not hold the configured token`);
    return { scheme: "token", secretIndex: index };
  }
}

// Every header a scheme reads, for the operator's log line (names only, never values).
const KNOWN_SIGNATURE_HEADERS = [
  JWT_HEADER,
  ...SIGNATURE_HEADERS,
  TIMESTAMP_HEADER,
  "webhook-id",
  "webhook-timestamp",
  "webhook-signature",
  TOKEN_HEADER,
];

/** The names of the signature headers `headers` carries (never their values), `header` too when given. Internal. */
export function signatureHeaderNames(headers: Headers, header?: string): string[] {
  const names = KNOWN_SIGNATURE_HEADERS.filter((name) => headers.has(name));
  if (header !== undefined && !names.includes(header) && headers.has(header)) names.push(header);
  return names;
}

/** Bodies {@link verifyWebhook} accepts: the raw bytes, or the raw text exactly as received. */
export type RawWebhookBody = Uint8Array | ArrayBuffer | ArrayBufferView | string;

function rawBytes(body: unknown): Uint8Array {
  if (body instanceof Uint8Array) return body;
  if (body instanceof ArrayBuffer) return new Uint8Array(body);
  if (ArrayBuffer.isView(body)) return new Uint8Array(body.buffer, body.byteOffset, body.byteLength);
  if (typeof body === "string") return utf8(body);
  throw new WebhookVerificationException(
    "invalid_body",
    `Cannot verify webhook: the body must be the raw request bytes or text, got ${
      body === null ? "null" : typeof body
    }; pass \`new Uint8Array(await request.arrayBuffer())\`, not a parsed JSON value`,
  );
}

// verifyWebhook keeps one verifier per options object, so repeated calls do not re-validate or re-import.
const verifiers = new WeakMap<object, WebhookVerifier>();

/**
 * Verify one webhook request for users who route requests themselves. Resolves with what was verified;
 * rejects with a {@link WebhookVerificationException} (bad or missing signature, stale timestamp) or a
 * `ConfigurationException` (configuration visibly wrong). The options are nested as in
 * `createWebhookHandler`: `{ signature: { scheme, secret, ... } }`.
 *
 * Pass the raw body exactly as received: re-serializing a parsed JSON body changes the bytes and the
 * signature no longer matches.
 *
 * @example
 * ```ts
 * import { verifyWebhook } from "@gw/gateway/webhooks";
 * const options = { signature: { scheme: "hmac" as const, secret: "s3cret" } };
 * Deno.serve(async (request) => {
 *   const body = new Uint8Array(await request.arrayBuffer());
 *   try {
 *     await verifyWebhook(body, request.headers, options);
 *   } catch {
 *     return new Response("Unauthorized", { status: 401 });
 *   }
 *   return new Response("ok");
 * });
 * ```
 */
export async function verifyWebhook(
  rawBody: RawWebhookBody,
  headers: WebhookHeaders,
  options: WebhookVerifyOptions,
  now: number = Date.now(),
): Promise<WebhookVerification> {
  let verifier = verifiers.get(options);
  if (verifier === undefined) {
    checkOptionKeys(options, { signature: SIGNATURE_OPTION_KEYS }, "verifyWebhook");
    if (options === null || typeof options !== "object" || typeof options.signature !== "object") {
      throw new ConfigurationException(
        "Invalid webhook configuration: verifyWebhook expects { signature: { scheme, secret, ... } }",
        { setting: "signature" },
      );
    }
    verifier = new WebhookVerifier(options.signature);
    verifiers.set(options, verifier);
  }
  return await verifier.verify(rawBytes(rawBody), headers, now);
}

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
  const [secret] = checkSecrets(options.secret);
  const body = typeof options.body === "string" ? utf8(options.body) : options.body;
  const timestamp = options.timestamp === false
    ? undefined
    : options.timestamp ?? Math.floor(Date.now() / 1000);
  if (scheme === "token") {
    headers[options.header?.toLowerCase() ?? TOKEN_HEADER] = secret;
    return headers;
  }
  const kind = scheme === "standard" ? "standard" : "utf8";
  const key = await hmacKey(keyMaterial(scheme, secret), `${kind}\u0000${secret}`);
  const sign = async (content: Uint8Array) => new Uint8Array(await hmac(key, content));
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

/**
 * A new random secret for a scheme: 32 random bytes as hex, or `whsec_<base64>` for `standard`.
 *
 * @example
 * ```ts
 * import { generateWebhookSecret } from "@gw/gateway/webhooks";
 * const secret = generateWebhookSecret("standard"); // "whsec_..."
 * ```
 */
export function generateWebhookSecret(scheme: WebhookSignatureScheme = "hmac"): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return scheme === "standard" ? `whsec_${toBase64(bytes)}` : toHex(bytes);
}
