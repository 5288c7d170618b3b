/**
 * What the client classes send to `GatewayCoordinator`, and how they send it. Internal.
 *
 * @module
 */

import { GatewayApiException } from "../../errors.ts";
import type { StateListOptions, StateSetOptions } from "../../store/state.ts";
import type { DurableObjectNamespace } from "./bindings.ts";

/** One operation, as JSON. Times are epoch ms from the caller's clock (rate limits use the object's). */
export type CoordinatorRequest =
  | { op: "ratelimit.attempt"; key: string; maxAttempts: number; decaySeconds: number; now?: number }
  | { op: "ratelimit.availableIn"; key: string; decaySeconds: number; now?: number }
  | { op: "ratelimit.clear"; key: string }
  | { op: "dedupe.claim"; key: string; now: number; leaseMs: number }
  | { op: "dedupe.complete"; key: string; now: number; windowMs: number }
  | { op: "dedupe.release"; key: string }
  | { op: "dedupe.state"; key: string; now: number }
  | { op: "state.get"; namespace: string; key: string; now: number }
  | { op: "state.set"; namespace: string; key: string; value: unknown; options: StateSetOptions; now: number }
  | { op: "state.delete"; namespace: string; key: string; options: { expectedVersion?: string }; now: number }
  | { op: "state.list"; namespace: string; options: StateListOptions; now: number };

/**
 * Which coordinator object a key goes to: a fixed name (every key in one object), or a name computed from
 * the key. The same name is the same object, from every isolate.
 *
 * @example One object per instance, whatever the bucket
 * ```ts
 * import type { CoordinatorObjectName } from "@gw/gateway/cloudflare";
 * // Rate limit keys are `<prefix>:<connection>:<instance>:<bucket>`.
 * const perInstance: CoordinatorObjectName = (key) => `limits:${key.split(":").slice(0, 3).join(":")}`;
 * ```
 */
export type CoordinatorObjectName = string | ((key: string) => string);

/** Send `request` to the object called `name` and return its result; `what` starts error messages. */
export async function callCoordinator<T>(
  namespace: DurableObjectNamespace,
  name: string,
  request: CoordinatorRequest,
  what: string,
): Promise<T> {
  let response: Response;
  try {
    response = await namespace.get(namespace.idFromName(name)).fetch("https://gateway-coordinator/", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(request),
    });
  } catch (error) {
    throw new GatewayApiException(
      `${what}: the coordinator "${name}" could not be reached (${
        error instanceof Error ? error.message : error
      })`,
    );
  }
  let answer: { result?: T; error?: { name: string; message: string } };
  try {
    answer = await response.json();
  } catch {
    throw new GatewayApiException(
      `${what}: the coordinator "${name}" answered ${response.status} without JSON`,
    );
  }
  if (response.ok && answer.error === undefined) return answer.result as T;
  const message = `${what}: ${answer.error?.message ?? `the coordinator answered ${response.status}`}`;
  if (answer.error?.name === "TypeError") throw new TypeError(message);
  if (answer.error?.name === "RangeError") throw new RangeError(message);
  throw new GatewayApiException(`${message} (coordinator "${name}", status ${response.status})`);
}

/** The object name for `key`. */
export function objectFor(name: CoordinatorObjectName, key: string): string {
  return typeof name === "function" ? name(key) : name;
}
