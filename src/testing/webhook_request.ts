/**
 * Signed webhook requests for tests.
 *
 * @module
 */

import { signWebhook, type SignWebhookOptions } from "../webhooks/signature.ts";

/** Options of {@link signedWebhookRequest}. */
export interface SignedWebhookRequestOptions extends Omit<SignWebhookOptions, "body"> {
  /** Extra headers (they win over the signed ones, so a test can break a signature on purpose). */
  headers?: Record<string, string>;
}

/**
 * A `POST` request carrying `body` (an envelope object, serialized once, or the exact text or bytes) with
 * the headers that make it pass the chosen scheme's verification.
 *
 * @example
 * ```ts
 * import { signedWebhookRequest } from "@gw/gateway/testing";
 * import { createWebhookHandler } from "@gw/gateway";
 * const handler = createWebhookHandler({ signature: { secret: "s3cret" } });
 * const request = await signedWebhookRequest("http://localhost/gateway/webhook/sales", {
 *   event: "messages.upsert",
 *   instance: "sales",
 *   data: { key: { id: "3EB0", remoteJid: "5511999999999@s.whatsapp.net", fromMe: false } },
 * }, { secret: "s3cret" });
 * const response = await handler(request); // 200
 * ```
 */
export async function signedWebhookRequest(
  url: string,
  body: unknown,
  options: SignedWebhookRequestOptions,
): Promise<Request> {
  const raw = typeof body === "string" || body instanceof Uint8Array ? body : JSON.stringify(body);
  const { headers: extra, ...signing } = options;
  const headers = await signWebhook({ ...signing, body: raw });
  return new Request(url, {
    method: "POST",
    headers: { ...headers, ...extra },
    body: raw as BodyInit,
  });
}
