/**
 * Test doubles for `@gw/gateway`: a simulated gateway server reachable over real HTTP
 * (`MockGatewayServer`) or in-process (`GatewayFake`), and `signWebhook` to sign test webhooks.
 *
 * @example
 * ```ts
 * import { MockGatewayServer } from "@gw/gateway/testing";
 * await using mock = await MockGatewayServer.start({ apiKey: "test-key" });
 * console.log(mock.url);
 * ```
 *
 * @module
 */

// --- webhooks (signing test requests)
export {
  generateWebhookSecret,
  signWebhook,
  type SignWebhookOptions,
  type WebhookSignatureScheme,
} from "../webhooks/signature.ts";
export { signedWebhookRequest, type SignedWebhookRequestOptions } from "./webhook_request.ts";
