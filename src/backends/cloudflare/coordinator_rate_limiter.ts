/**
 * `CoordinatorRateLimiter`: the exact rate limiter on Workers, through `GatewayCoordinator`.
 *
 * @module
 */

import { checkOptionKeys } from "../../option_keys.ts";
import type { RateLimiterInterface } from "../../ratelimit/limiter.ts";
import { checkArguments, checkDecay } from "../../ratelimit/window.ts";
import type { DurableObjectNamespace } from "./bindings.ts";
import { callCoordinator, type CoordinatorObjectName, objectFor } from "./coordinator_protocol.ts";

/** Options of {@link CoordinatorRateLimiter}. */
export interface CoordinatorRateLimiterOptions {
  /** Object per key (default `ratelimit:<key>`: per connection, instance and bucket); fixed: one for all. */
  objectName?: CoordinatorObjectName;
  /** A clock to count windows on, epoch ms (default: the object's own clock, the same for every caller). */
  now?: () => number;
}

/**
 * A {@link RateLimiterInterface} whose windows live in `GatewayCoordinator` Durable Objects: each attempt
 * is one request to the key's object, which checks and counts in one step, so the limit is exact across
 * every isolate and region (100 concurrent attempts against a limit of 40 allow exactly 40). Windows
 * follow the object's clock. Pass it as `rate_limiting.limiter`.
 *
 * @example A Worker sharing one limit across isolates
 * ```ts
 * import { GatewayService } from "@gw/gateway";
 * import { CoordinatorRateLimiter, type DurableObjectNamespace, GatewayCoordinator } from "@gw/gateway/cloudflare";
 * export { GatewayCoordinator };
 * interface Env {
 *   COORDINATOR: DurableObjectNamespace;
 *   GATEWAY_API_URL: string;
 *   GATEWAY_API_KEY: string;
 * }
 * export default {
 *   async fetch(_request: Request, env: Env) {
 *     const gw = GatewayService.make({
 *       server_url: env.GATEWAY_API_URL,
 *       api_key: env.GATEWAY_API_KEY,
 *       rate_limiting: { limiter: new CoordinatorRateLimiter(env.COORDINATOR) },
 *     });
 *     await gw.messages().text("5511999999999", "Hello", {}, { instance: "sales" });
 *     return new Response("sent");
 *   },
 * };
 * ```
 */
export class CoordinatorRateLimiter implements RateLimiterInterface {
  readonly #namespace: DurableObjectNamespace;
  readonly #objectName: CoordinatorObjectName;
  readonly #now: (() => number) | undefined;

  /** Use the coordinator objects of `namespace` (the Worker's Durable Object binding). */
  constructor(namespace: DurableObjectNamespace, options: CoordinatorRateLimiterOptions = {}) {
    checkOptionKeys(options, { objectName: true, now: true }, "new CoordinatorRateLimiter");
    this.#namespace = namespace;
    this.#objectName = options.objectName ?? ((key) => `ratelimit:${key}`);
    this.#now = options.now;
  }

  /** Take one slot for `key`; true when fewer than `maxAttempts` were taken in the current window. */
  async attempt(key: string, maxAttempts: number, decaySeconds: number): Promise<boolean> {
    checkArguments(key, maxAttempts, decaySeconds);
    return await callCoordinator<boolean>(
      this.#namespace,
      objectFor(this.#objectName, key),
      { op: "ratelimit.attempt", key, maxAttempts, decaySeconds, now: this.#now?.() },
      `Cannot rate limit "${key}"`,
    );
  }

  /** Seconds until `key` has a free slot (0 when one is free now). */
  async availableIn(key: string, decaySeconds: number): Promise<number> {
    checkDecay(key, decaySeconds);
    return await callCoordinator<number>(
      this.#namespace,
      objectFor(this.#objectName, key),
      { op: "ratelimit.availableIn", key, decaySeconds, now: this.#now?.() },
      `Cannot rate limit "${key}"`,
    );
  }

  /** Forget every slot taken for `key`. */
  async clear(key: string): Promise<void> {
    await callCoordinator<null>(
      this.#namespace,
      objectFor(this.#objectName, key),
      { op: "ratelimit.clear", key },
      `Cannot clear the rate limit of "${key}"`,
    );
  }
}
