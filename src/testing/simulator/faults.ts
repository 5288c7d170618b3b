/**
 * Fault injection for the simulated server: failures, delays and dropped connections by route selector.
 *
 * @module
 */

import { abortableSleep } from "../../timing.ts";
import { envelope, jsonResponse, STATUS_TEXT } from "./errors.ts";
import type { FailNextOptions, RouteSelector } from "./types.ts";

/**
 * Thrown by `GatewaySimulator.handle` when a dropped connection is scripted: a `TypeError`, like the one
 * `fetch` rejects with when a connection closes before the response. `MockGatewayServer` turns it into
 * a real connection reset.
 *
 * @example
 * ```ts
 * import { GatewaySimulator, SimulatedConnectionDrop } from "@gw/gateway/testing";
 * const sim = new GatewaySimulator();
 * sim.dropConnection("/instance/fetchInstances");
 * try {
 *   await sim.fetch("http://gateway.test/instance/fetchInstances");
 * } catch (error) {
 *   console.log(error instanceof SimulatedConnectionDrop); // true
 * }
 * await sim.close();
 * ```
 */
export class SimulatedConnectionDrop extends TypeError {
  /** Build the error for a request. */
  constructor(method: string, path: string) {
    super(
      `Cannot complete request ${method} ${path}: connection closed before message completed (simulated)`,
    );
    this.name = "TypeError";
  }
}

interface Selector {
  method?: string;
  path?: string;
  instance?: string;
}

interface Rule<T> {
  selector: Selector;
  remaining: number;
  value: T;
}

/** What a rule is matched against. */
export interface FaultTarget {
  method: string;
  /** Route template (`/message/sendText`) or, for an unknown route, the request path. */
  path: string;
  instance?: string;
}

/** Parse `"POST /message/sendText"`, `"/message/sendText"` or `"/message/sendText/{instance}"`. */
export function parseSelector(route: RouteSelector | undefined, instance?: string): Selector {
  if (route === undefined) return { instance };
  const text = route.trim();
  const space = text.indexOf(" ");
  const method = space > 0 ? text.slice(0, space).toUpperCase() : undefined;
  let path = (space > 0 ? text.slice(space + 1) : text).trim();
  path = path.replace(/\/(\{instance\}|:instanceName|\{instanceName\})$/i, "");
  if (path.length > 1) path = path.replace(/\/$/, "");
  if (!path.startsWith("/")) {
    throw new TypeError(`Cannot use route selector "${route}": give "METHOD /path" or "/path"`);
  }
  return { method, path: path.toLowerCase(), instance };
}

function matches(selector: Selector, target: FaultTarget): boolean {
  if (selector.method && selector.method !== target.method) return false;
  if (selector.path && selector.path !== target.path.toLowerCase()) return false;
  if (selector.instance !== undefined && selector.instance !== target.instance) return false;
  return true;
}

function take<T>(rules: Rule<T>[], target: FaultTarget): T | undefined {
  const index = rules.findIndex((r) => r.remaining > 0 && matches(r.selector, target));
  if (index < 0) return undefined;
  const rule = rules[index];
  rule.remaining--;
  if (rule.remaining <= 0) rules.splice(index, 1);
  return rule.value;
}

/** Holds the scripted faults and applies them to each request. */
export class FaultInjector {
  readonly #fails: Rule<FailNextOptions>[] = [];
  readonly #delays: Rule<number>[] = [];
  readonly #drops: Rule<true>[] = [];
  #webhookDrops: { event?: string; instance?: string; share: number; seen: number; dropped: number }[] = [];

  failNext(options: FailNextOptions): void {
    const times = options.times ?? 1;
    this.#fails.push({
      selector: parseSelector(options.route, options.instance),
      remaining: times,
      value: options,
    });
  }

  delay(route: RouteSelector | undefined, ms: number, times = Infinity): void {
    this.#delays.push({ selector: parseSelector(route), remaining: times, value: ms });
  }

  dropConnection(route: RouteSelector | undefined, times = 1): void {
    this.#drops.push({ selector: parseSelector(route), remaining: times, value: true });
  }

  /**
   * Drop `share` (0..1) of the matching webhooks, as if the server gave up after its retries. Spread
   * evenly and deterministically: of every 100 matching webhooks, exactly `share * 100` are dropped.
   */
  dropWebhooks(options: { event?: string; instance?: string; share: number }): void {
    if (!(options.share >= 0 && options.share <= 1)) {
      throw new RangeError(`Cannot drop webhooks: "share" must be between 0 and 1, got "${options.share}"`);
    }
    this.#webhookDrops.push({ ...options, seen: 0, dropped: 0 });
  }

  /** Whether the webhook of `event` for `instance` is dropped (counts it against the matching rules). */
  dropsWebhook(event: string, instance: string): boolean {
    for (const rule of this.#webhookDrops) {
      if (rule.event !== undefined && rule.event !== event) continue;
      if (rule.instance !== undefined && rule.instance !== instance) continue;
      rule.seen++;
      if (Math.floor(rule.seen * rule.share + 1e-9) > rule.dropped) {
        rule.dropped++;
        return true;
      }
    }
    return false;
  }

  clear(): void {
    this.#webhookDrops = [];
    this.#fails.length = 0;
    this.#delays.length = 0;
    this.#drops.length = 0;
  }

  /** Apply one request's faults (drop, delay, scripted failure): the scripted response, or undefined. */
  async apply(target: FaultTarget, signal: AbortSignal): Promise<Response | undefined> {
    if (take(this.#drops, target)) throw new SimulatedConnectionDrop(target.method, target.path);
    const ms = take(this.#delays, target);
    if (ms !== undefined && ms > 0) await abortableSleep(ms, signal);
    const fail = take(this.#fails, target);
    if (!fail) return undefined;
    const headers: Record<string, string> = { ...fail.headers };
    if (fail.retryAfter !== undefined) headers["retry-after"] = String(fail.retryAfter);
    if (typeof fail.body === "string") {
      return new Response(fail.body, {
        status: fail.status,
        headers: { "content-type": "text/plain; charset=utf-8", ...headers },
      });
    }
    const reason = STATUS_TEXT[fail.status] ?? "Error";
    return jsonResponse(fail.status, fail.body ?? envelope(fail.status, reason, reason), headers);
  }
}
