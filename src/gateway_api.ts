/**
 * The `GatewayApi` facade: the one piece of module state the library keeps, because a facade is by
 * definition one shared default.
 *
 * @module
 */

import type { ChatsResource } from "./resources/chats.ts";
import type { GroupsResource } from "./resources/groups.ts";
import type { InstancesResource } from "./resources/instances.ts";
import type { MessagesResource } from "./resources/messages.ts";
import type { ProfileResource } from "./resources/profile.ts";
import type { SettingsResource } from "./resources/settings.ts";
import type { WebhooksResource } from "./resources/webhooks.ts";
import type { ConnectionManager } from "./client/connection_manager.ts";
import { GatewayService } from "./service.ts";
import type { GatewayFake, GatewayFakeOptions } from "./testing/fake.ts";

let defaultService: GatewayService | undefined;

type FakeFactory = (options?: GatewayFakeOptions) => { service: GatewayService; fake: GatewayFake };
let fakeFactory: FakeFactory | undefined;

/** Called by `@gw/gateway/testing` on load, so the root entry need not import the simulator for `fake()`. */
export function registerGatewayFake(factory: FakeFactory): void {
  fakeFactory = factory;
}

/**
 * The default service: `GatewayService.fromEnv()` built on first use from the `GATEWAY_*` variables
 * (Deno), or the fake `GatewayApi.fake()` installed.
 *
 * @example
 * ```ts
 * import { gatewayApi } from "@gw/gateway";
 * const up = await gatewayApi().ping();
 * ```
 */
export function gatewayApi(): GatewayService {
  defaultService ??= GatewayService.fromEnv();
  return defaultService;
}

/** The shape of {@link GatewayApi}. */
export interface GatewayApiFacade {
  /** Instance management on the default service. */
  instances(): InstancesResource;
  /** Message sends on the default service. */
  message(): MessagesResource;
  /** Message sends on the default service (alias of `message()`). */
  messages(): MessagesResource;
  /** Chats on the default service. */
  chats(): ChatsResource;
  /** Groups on the default service. */
  groups(): GroupsResource;
  /** Profile on the default service. */
  profile(): ProfileResource;
  /** Webhook configuration on the default service. */
  webhooks(): WebhooksResource;
  /** Settings on the default service. */
  settings(): SettingsResource;
  /** A view of the default service bound to a connection. */
  connection(name: string): GatewayService;
  /** A view of the default service bound to an instance. */
  instance(name: string): GatewayService;
  /** The default service's connections. */
  getConnectionManager(): ConnectionManager;
  /** Whether the default connection's server answers. */
  ping(): Promise<boolean>;
  /**
   * Make the default service a {@link GatewayFake}'s (until the next `fake()`) and return the fake; needs
   * `@gw/gateway/testing` imported.
   */
  fake(options?: GatewayFakeOptions): GatewayFake;
}

/**
 * Static-style access to the default service, e.g. `GatewayApi.message().text(...)`.
 *
 * @example Send through the default service (configured by GATEWAY_API_URL, GATEWAY_API_KEY, GATEWAY_INSTANCE)
 * ```ts
 * import { GatewayApi } from "@gw/gateway";
 * const res = await GatewayApi.message().text("5511999999999", "Hello");
 * console.log(res.json("key.id"));
 * ```
 *
 * @example In a test: swap the default service for a fake
 * ```ts
 * import { GatewayApi } from "@gw/gateway";
 * import "@gw/gateway/testing";
 *
 * const fake = GatewayApi.fake();
 * await GatewayApi.message().text("5511999999999", "Your code is 4821");
 * fake.assertMessageSent("5511999999999");
 * fake.assertMessageContains("4821");
 * fake.assertMessageTypeWas("text");
 * await fake.close();
 * ```
 */
export const GatewayApi: GatewayApiFacade = {
  instances: () => gatewayApi().instances(),
  message: () => gatewayApi().messages(),
  messages: () => gatewayApi().messages(),
  chats: () => gatewayApi().chats(),
  groups: () => gatewayApi().groups(),
  profile: () => gatewayApi().profile(),
  webhooks: () => gatewayApi().webhooks(),
  settings: () => gatewayApi().settings(),
  connection: (name) => gatewayApi().connection(name),
  instance: (name) => gatewayApi().instance(name),
  getConnectionManager: () => gatewayApi().getConnectionManager(),
  ping: () => gatewayApi().ping(),
  fake: (options) => {
    if (fakeFactory === undefined) {
      throw new Error('Cannot fake GatewayApi: import "@gw/gateway/testing" first (it provides GatewayFake)');
    }
    const { service, fake } = fakeFactory(options);
    defaultService = service;
    return fake;
  },
};
