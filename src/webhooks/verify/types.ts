/**
 * The public shapes of webhook verification: schemes, options, results, the refusal exception, and the
 * header and body types the verifier takes.
 *
 * @module
 */

import { WebhookException } from "../../errors.ts";

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
  | "invalid_claims"
  | "unsupported_algorithm";

/**
 * The signature settings: the `signature` option of `createWebhookHandler` and of `verifyWebhook`,
 * and what a `WebhookVerifier` is built from.
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
  /** Leeway for the JWT `iat` and `nbf` claims and its window, in seconds (default 30). */
  jwtLeewaySeconds?: number;
  /**
   * How long after its `iat` the server's JWT is accepted, in seconds (default 1800). The server signs one
   * token per event, valid 600 s, and sends it again with every retry for about twenty minutes; the token
   * covers no body, so a captured one replays for this long (dedupe and the message claims stay on).
   */
  jwtMaxAgeSeconds?: number;
}

/** The keys of {@link WebhookSignatureOptions}, for the unknown-key check. Internal. */
export const SIGNATURE_OPTION_KEYS = {
  scheme: true,
  secret: true,
  header: true,
  toleranceSeconds: true,
  requireTimestamp: true,
  jwtLeewaySeconds: true,
  jwtMaxAgeSeconds: true,
} as const satisfies Record<keyof WebhookSignatureOptions, true>;

/** Options of `verifyWebhook`: the signature settings, nested as in `createWebhookHandler`. */
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

/** Bodies `verifyWebhook` accepts: the raw bytes, or the raw text exactly as received. */
export type RawWebhookBody = Uint8Array | ArrayBuffer | ArrayBufferView | string;
