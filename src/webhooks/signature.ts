// The public names of verify/ (Web Crypto over the raw bytes, constant-time comparisons).

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
