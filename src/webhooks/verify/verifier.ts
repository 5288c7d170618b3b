/**
 * The verifier: it checks its options once (unknown keys, scheme, secrets, header, windows), holds the
 * imported keys, and hands each request to its scheme's check (`auto.ts`, `hmac.ts`, `standard.ts`,
 * `jwt.ts`, `token.ts`). {@link verifyWebhook} is the one-call form for requests routed by the application.
 *
 * @module
 */

import { ConfigurationException } from "../../errors.ts";
import { getGatewayLogger } from "../../log.ts";
import { checkOptionKeys } from "../../option_keys.ts";
import { numberSetting } from "../../util/checks.ts";
import { utf8 } from "../encoding.ts";
import { verifyAuto } from "./auto.ts";
import { headerSource, type VerifySettings } from "./common.ts";
import { signatureHeader, verifyHmac } from "./hmac.ts";
import { verifyJwt } from "./jwt.ts";
import { VerifierKeys } from "./keys.ts";
import { checkSecrets, standardKeyBytes, warnWeakSecrets } from "./secrets.ts";
import { verifyStandard } from "./standard.ts";
import { verifyToken } from "./token.ts";
import {
  type RawWebhookBody,
  SIGNATURE_OPTION_KEYS,
  WEBHOOK_SIGNATURE_SCHEMES,
  type WebhookHeaders,
  type WebhookSignatureOptions,
  type WebhookSignatureScheme,
  type WebhookVerification,
  WebhookVerificationException,
  type WebhookVerifyOptions,
} from "./types.ts";

const DEFAULT_TOLERANCE = 300;
const DEFAULT_JWT_LEEWAY = 30;
// The server's retries of one event span about twenty minutes (9 delays of 5 s to 300 s, ±20 %, plus the
// attempts' own time); the window covers them with room.
const DEFAULT_JWT_MAX_AGE = 1800;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

// Time settings in seconds: 0 is allowed (no tolerance).
const checkSeconds = (name: string, value: number | undefined, fallback: number, max?: number): number =>
  numberSetting("Invalid webhook configuration", name, value, fallback, { min: 0, max });

// A captured token replays for this long (the JWT covers no body): a day at most, the server retries for ~20 min.
const MAX_JWT_MAX_AGE = 86_400;

function checkScheme(scheme: unknown): WebhookSignatureScheme {
  if (!WEBHOOK_SIGNATURE_SCHEMES.includes(scheme as WebhookSignatureScheme)) {
    throw new ConfigurationException(
      `Invalid webhook configuration: unknown signature scheme "${String(scheme)}" ` +
        `(expected one of ${WEBHOOK_SIGNATURE_SCHEMES.join(", ")})`,
      { setting: "signature.scheme" },
    );
  }
  return scheme as WebhookSignatureScheme;
}

function checkHeader(scheme: WebhookSignatureScheme, header: unknown): string | undefined {
  if (header === undefined) return undefined;
  if (typeof header !== "string" || !HEADER_NAME.test(header)) {
    throw new ConfigurationException(
      'Invalid webhook configuration: "signature.header" is not a header name',
      {
        setting: "signature.header",
      },
    );
  }
  if (scheme === "auto") {
    throw new ConfigurationException(
      'Invalid webhook configuration: "signature.header" applies to one scheme; set "signature.scheme" ' +
        '(hmac, jwt or token) with it, the default "auto" reads each scheme\'s own headers',
      { setting: "signature.header" },
    );
  }
  return header.toLowerCase();
}

function noSecret(scheme: WebhookSignatureScheme): WebhookVerificationException {
  return new WebhookVerificationException(
    "no_secret",
    `Cannot verify webhook: no secret is configured for the "${scheme}" scheme ` +
      "(set GATEWAY_WEBHOOK_SECRET or the signature.secret option); every request is refused",
  );
}

/**
 * A verifier for one configuration: it validates the configuration once, imports each secret once, and
 * then checks requests. `createWebhookHandler` uses one internally; use it directly when you route
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
  /** The scheme this verifier checks (`auto`: the one each request carries). */
  readonly scheme: WebhookSignatureScheme;
  /** Whether a secret is configured (false with a scheme that needs one: every request is refused). */
  readonly hasSecret: boolean;
  /** The header configured to carry the signature or token (lower case), if not the scheme's default. */
  readonly header: string | undefined;
  readonly #settings: VerifySettings;
  readonly #keys: VerifierKeys;

  /**
   * Validate the configuration; throws `ConfigurationException` when it is visibly wrong (unknown key, empty
   * secret, secret with surrounding whitespace, NaN tolerance, unknown scheme, bad header name).
   */
  constructor(options: WebhookSignatureOptions = {}) {
    checkOptionKeys(options, SIGNATURE_OPTION_KEYS, "WebhookVerifier");
    const scheme = this.scheme = checkScheme(options.scheme ?? "auto");
    const secrets = scheme === "none" ? [] : checkSecrets(options.secret);
    // A `standard` secret (and, with `auto`, any secret written `whsec_...`) must decode: refused now.
    for (const secret of secrets) {
      if (scheme === "standard" || (scheme === "auto" && secret.startsWith("whsec_"))) {
        standardKeyBytes(secret);
      }
    }
    warnWeakSecrets(
      secrets,
      (secret) => scheme === "standard" || (scheme === "auto" && secret.startsWith("whsec_")),
    );
    this.hasSecret = secrets.length > 0;
    this.header = checkHeader(scheme, options.header);
    this.#settings = {
      header: this.header,
      toleranceSeconds: checkSeconds(
        "signature.toleranceSeconds",
        options.toleranceSeconds,
        DEFAULT_TOLERANCE,
      ),
      jwtLeewaySeconds: checkSeconds(
        "signature.jwtLeewaySeconds",
        options.jwtLeewaySeconds,
        DEFAULT_JWT_LEEWAY,
      ),
      jwtMaxAgeSeconds: checkSeconds(
        "signature.jwtMaxAgeSeconds",
        options.jwtMaxAgeSeconds,
        DEFAULT_JWT_MAX_AGE,
        MAX_JWT_MAX_AGE,
      ),
      requireTimestamp: options.requireTimestamp === true,
    };
    this.#keys = new VerifierKeys(secrets, scheme === "auto");
    if (scheme === "none") {
      // Said by each verifier (one per receiver; verifyWebhook keeps the ones it built), on the LogTape category.
      getGatewayLogger("webhook").warn(
        'Webhook signature scheme "none": requests are not authenticated; use it for local development only',
      );
    }
  }

  /**
   * Check one request. Resolves with what was verified, or rejects with a
   * {@link WebhookVerificationException} whose `reason` says why.
   */
  verify(body: Uint8Array, headers: WebhookHeaders, now: number = Date.now()): Promise<WebhookVerification> {
    // The checks before the signature throw synchronously; they leave here as a rejected promise.
    try {
      if (this.scheme === "none") return Promise.resolve({ scheme: "none", secretIndex: -1 });
      if (!this.hasSecret) return Promise.reject(noSecret(this.scheme));
      const source = headerSource(headers);
      const keys = this.#keys;
      const settings = this.#settings;
      switch (this.scheme) {
        case "auto":
          return verifyAuto(keys, settings, body, source, now);
        case "hmac":
          return verifyHmac(keys, settings, body, source, now, signatureHeader(source, this.header));
        case "standard":
          return verifyStandard(keys, settings, body, source, now);
        case "jwt":
          return verifyJwt(keys, settings, source, now);
        default:
          return Promise.resolve(verifyToken(keys, settings, source));
      }
    } catch (error) {
      return Promise.reject(error);
    }
  }
}

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

// verifyWebhook keeps the verifiers it built, so that a call does not validate its options and import its
// secret again: by the options object's identity, and, for options written inline (a new object per call),
// by their content. The content cache is bounded: at most CACHED distinct configurations, the oldest dropped
// first. It holds the verifiers (and so their secrets and keys) and nothing else.
const byIdentity = new WeakMap<object, WebhookVerifier>();
const byContent = new Map<string, WebhookVerifier>();
const CACHED = 64;

/**
 * A key that names the content of `{ signature: {...} }` without ambiguity (each part length-prefixed), or
 * undefined for a shape it does not describe (the verifier is then built and checked every time).
 */
function contentKey(options: WebhookVerifyOptions): string | undefined {
  if (options === null || typeof options !== "object") return undefined;
  let key = "";
  for (const name in options) if (name !== "signature") return undefined;
  const signature = options.signature as unknown as Record<string, unknown>;
  if (signature === null || typeof signature !== "object") return undefined;
  for (const name in signature) {
    const value = signature[name];
    key += `${name.length}:${name}`;
    if (typeof value === "string") key += `s${value.length}:${value}`;
    else if (typeof value === "number" || typeof value === "boolean") key += `${typeof value}${value};`;
    else if (value === undefined) key += "u";
    else if (Array.isArray(value)) {
      key += `a${value.length}`;
      for (const item of value) {
        if (typeof item !== "string") return undefined;
        key += `:${item.length}:${item}`;
      }
    } else return undefined;
  }
  return key;
}

function verifierFor(options: WebhookVerifyOptions): WebhookVerifier {
  const known = byIdentity.get(options);
  if (known !== undefined) return known;
  const key = contentKey(options);
  let verifier = key === undefined ? undefined : byContent.get(key);
  if (verifier === undefined) {
    checkOptionKeys(options, { signature: SIGNATURE_OPTION_KEYS }, "verifyWebhook");
    if (options === null || typeof options !== "object" || typeof options.signature !== "object") {
      throw new ConfigurationException(
        "Invalid webhook configuration: verifyWebhook expects { signature: { scheme, secret, ... } }",
        { setting: "signature" },
      );
    }
    verifier = new WebhookVerifier(options.signature);
    if (key !== undefined) {
      if (byContent.size >= CACHED) byContent.delete(byContent.keys().next().value!);
      byContent.set(key, verifier);
    }
  }
  byIdentity.set(options, verifier);
  return verifier;
}

/**
 * Verify one webhook request for users who route requests themselves. Resolves with what was verified;
 * rejects with a {@link WebhookVerificationException} (bad or missing signature, stale timestamp) or a
 * `ConfigurationException` (configuration visibly wrong). The options are nested as in
 * `createWebhookHandler`: `{ signature: { scheme, secret, ... } }`; written inline they cost no more than a
 * kept object (the verifier is reused by content).
 *
 * Pass the raw body exactly as received: re-serializing a parsed JSON body changes the bytes and the
 * signature no longer matches.
 *
 * @example
 * ```ts
 * import { verifyWebhook } from "@gw/gateway/webhooks";
 * Deno.serve(async (request) => {
 *   const body = new Uint8Array(await request.arrayBuffer());
 *   try {
 *     await verifyWebhook(body, request.headers, { signature: { secret: "s3cret" } });
 *   } catch {
 *     return new Response("Unauthorized", { status: 401 });
 *   }
 *   return new Response("ok");
 * });
 * ```
 */
export function verifyWebhook(
  rawBody: RawWebhookBody,
  headers: WebhookHeaders,
  options: WebhookVerifyOptions,
  now: number = Date.now(),
): Promise<WebhookVerification> {
  try {
    return verifierFor(options).verify(rawBytes(rawBody), headers, now);
  } catch (error) {
    return Promise.reject(error);
  }
}
