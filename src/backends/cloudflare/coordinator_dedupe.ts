/**
 * `CoordinatorWebhookDedupe`: webhook redelivery claims on Workers, through `GatewayCoordinator`.
 *
 * @module
 */

import { checkOptionKeys } from "../../option_keys.ts";
import { WebhookException } from "../../errors.ts";
import { dedupeMilliseconds, type WebhookDedupe, type WebhookDedupeOptions } from "../../webhooks/dedupe.ts";
import type { DurableObjectNamespace } from "./bindings.ts";
import { callCoordinator, type CoordinatorObjectName, objectFor } from "./coordinator_protocol.ts";

/** Options of {@link CoordinatorWebhookDedupe}. */
export interface CoordinatorWebhookDedupeOptions extends WebhookDedupeOptions {
  /** The object that holds a delivery's claim (default `webhook_dedupe`: one object for every delivery). */
  objectName?: CoordinatorObjectName;
}

/**
 * A {@link WebhookDedupe} whose claims live in a `GatewayCoordinator` Durable Object: a claim is one
 * check-and-set inside the object, so of concurrent deliveries of one webhook, to any isolate, exactly one
 * is processed (50 concurrent deliveries run the handlers once). Pass it as the webhook handler's `dedupe`.
 * A claim holds for `leaseSeconds` (120) while processing, and a processed delivery is remembered for
 * `windowSeconds` (3600); the object's alarm deletes expired claims.
 *
 * @example
 * ```ts
 * import { createWebhookHandler } from "@gw/gateway";
 * import { CoordinatorWebhookDedupe, type DurableObjectNamespace, GatewayCoordinator } from "@gw/gateway/cloudflare";
 * export { GatewayCoordinator };
 * export default {
 *   fetch(request: Request, env: { COORDINATOR: DurableObjectNamespace; GATEWAY_WEBHOOK_SECRET: string }) {
 *     const handler = createWebhookHandler({
 *       signature: { secret: env.GATEWAY_WEBHOOK_SECRET },
 *       dedupe: new CoordinatorWebhookDedupe(env.COORDINATOR, { windowSeconds: 3600 }),
 *     });
 *     return handler(request);
 *   },
 * };
 * ```
 */
export class CoordinatorWebhookDedupe implements WebhookDedupe {
  readonly #namespace: DurableObjectNamespace;
  readonly #objectName: CoordinatorObjectName;
  readonly #windowMs: number;
  readonly #leaseMs: number;

  /** Use the coordinator objects of `namespace`; bad timings throw a `ConfigurationException` here. */
  constructor(namespace: DurableObjectNamespace, options: CoordinatorWebhookDedupeOptions = {}) {
    checkOptionKeys(
      options,
      { windowSeconds: true, leaseSeconds: true, objectName: true },
      "new CoordinatorWebhookDedupe",
    );
    this.#namespace = namespace;
    this.#objectName = options.objectName ?? "webhook_dedupe";
    this.#windowMs = dedupeMilliseconds("windowSeconds", options.windowSeconds, 3600);
    this.#leaseMs = dedupeMilliseconds("leaseSeconds", options.leaseSeconds, 120);
  }

  #call<T>(key: string, request: Parameters<typeof callCoordinator>[2], what: string): Promise<T> {
    if (typeof key !== "string" || key === "") {
      return Promise.reject(
        new WebhookException(`${what}: the delivery key must be a non-empty string`),
      );
    }
    return callCoordinator<T>(this.#namespace, objectFor(this.#objectName, key), request, what);
  }

  /** Claim `key`: true when this delivery should be processed. */
  claim(key: string, now: number): Promise<boolean> {
    return this.#call(
      key,
      { op: "dedupe.claim", key, now, leaseMs: this.#leaseMs },
      "Cannot claim webhook delivery",
    );
  }

  /** The delivery was processed (or queued): refuse duplicates until `now` + window. */
  async complete(key: string, now: number): Promise<void> {
    await this.#call(
      key,
      { op: "dedupe.complete", key, now, windowMs: this.#windowMs },
      "Cannot record processed webhook",
    );
  }

  /** Processing failed: drop the claim so that the next delivery is processed. */
  async release(key: string): Promise<void> {
    await this.#call(key, { op: "dedupe.release", key }, "Cannot release webhook claim");
  }

  /** Where a claimed key stands: `processing`, `done`, or null. */
  state(key: string, now: number): Promise<"processing" | "done" | null> {
    return this.#call(key, { op: "dedupe.state", key, now }, "Cannot read webhook claim");
  }
}
