/**
 * Webhook signatures, verified with Web Crypto only over the raw bytes; one file per concern in `verify/`:
 * `auto.ts` (the default: the signature the request carries), `hmac.ts`, `standard.ts`, `jwt.ts`,
 * `token.ts`, the verifier that picks them (`verifier.ts`), signing for tests (`sign.ts`) and secrets
 * (`secrets.ts`). This module gathers their public names.
 *
 * Every MAC is computed with `crypto.subtle.sign` and compared with the received one in a loop whose time
 * depends only on the length; no error message ever contains a secret or a signature.
 *
 * @module
 */

export {
  type RawWebhookBody,
  type VerifiedWebhookScheme,
  WEBHOOK_SIGNATURE_SCHEMES,
  type WebhookHeaders,
  type WebhookRejectReason,
  type WebhookSignatureOptions,
  type WebhookSignatureScheme,
  type WebhookVerification,
  WebhookVerificationException,
  type WebhookVerifyOptions,
} from "./verify/types.ts";
export { verifyWebhook, WebhookVerifier } from "./verify/verifier.ts";
export { signWebhook, type SignWebhookOptions } from "./verify/sign.ts";
export { generateWebhookSecret } from "./verify/secrets.ts";
