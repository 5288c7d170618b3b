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

// --- simulated gateway server (MockGatewayServer, GatewaySimulator)
export {
  type AddInstanceOptions,
  GatewaySimulator,
  type SimulatedInstanceInfo,
} from "./simulator/simulator.ts";
export { MockGatewayServer, type MockGatewayServerOptions } from "./mock_server.ts";
export { SimulatedConnectionDrop } from "./simulator/faults.ts";
export { DEFAULT_WEBHOOK_RETRY } from "./simulator/outbound_webhooks.ts";
export { INSTANCE_EVENTS } from "./simulator/events.ts";
export type * from "./simulator/types.ts";

// --- in-process fake (GatewayFake)
export {
  type FakeResponder,
  GatewayFake,
  GatewayFakeAssertionError,
  type GatewayFakeOptions,
  type SentMatcher,
} from "./fake.ts";

// `GatewayApi.fake()` lives in the root entry, which must not load the simulator: this entry hands it the
// way to build a fake when it is imported (here, not in fake.ts, so that fake.ts does not import the facade
// that names its type).
import { registerGatewayFake } from "../gateway_api.ts";
import { GatewayFake } from "./fake.ts";
registerGatewayFake((options) => GatewayFake.create(options));

// --- bot harness (BotHarness)
export {
  BotHarness,
  type BotHarnessOptions,
  HarnessGroup,
  HarnessUser,
  type ImageOptions,
  type WebhookEnvelope,
} from "./bot_harness.ts";
// The bot types the harness's signatures name (the bot itself comes from `@gw/gateway/bot`).
export type { Bot, BotOptions, Context } from "../bot/mod.ts";
