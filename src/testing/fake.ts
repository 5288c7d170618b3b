/**
 * `GatewayFake`: a real `GatewayService` on the in-process simulator, with assertions and scripted answers.
 *
 * @module
 */

import type { GatewayConfig } from "../config.ts";
import { GatewayService } from "../service.ts";
import { type AddInstanceOptions, GatewaySimulator } from "./simulator/simulator.ts";
import type { RequestLogEntry, SimulatorOptions } from "./simulator/types.ts";
import {
  abortable,
  bodyOf,
  describe,
  type FakeResponder,
  GatewayFakeAssertionError,
  isMessageSend,
  isSubset,
  messageTexts,
  messageType,
  parseRoute,
  pathMatches,
  type SentMatcher,
} from "./fake_requests.ts";

export { type FakeResponder, GatewayFakeAssertionError, type SentMatcher } from "./fake_requests.ts";

/** Options of {@link GatewayFake.create}. */
export interface GatewayFakeOptions extends SimulatorOptions {
  /** Instance bound to the service and created open in the simulator (default `test`); null for none. */
  instance?: string | null;
  /** Options for that instance (token, number, ...); it is created `open` unless `open: false`. */
  instanceOptions?: AddInstanceOptions;
  /** Extra service configuration (store, retry, rate limiting, ...); the fetch is always the simulator. */
  config?: Omit<GatewayConfig, "fetch" | "server_url" | "api_key">;
}

interface Scripted {
  method?: string;
  path: string;
  responder: FakeResponder;
}

/**
 * The in-process fake gateway. Build it with {@link GatewayFake.create}.
 *
 * @example
 * ```ts
 * import { GatewayFake } from "@gw/gateway/testing";
 * const { service, fake } = GatewayFake.create();
 * await service.messages().text("5511999999999", "Hello");
 * fake.assertMessageSent("5511999999999", "Hello");
 * fake.assertMessageCount(1);
 * await fake.close();
 * ```
 */
export class GatewayFake {
  /** The simulated server behind the fake (instances, faults, simulate* helpers). */
  readonly simulator: GatewaySimulator;
  readonly #scripted: Scripted[] = [];
  readonly #sent: RequestLogEntry[] = [];

  private constructor(simulator: GatewaySimulator) {
    this.simulator = simulator;
  }

  /**
   * A real `GatewayService` whose fetch calls the simulator in-process, and the fake that watches it.
   * Rate limiting is off unless `config.rate_limiting` turns it on. `now` is the clock of both the simulator
   * and the service (its duplicate-send records, pacing and health), so give the store the same one.
   */
  static create(options: GatewayFakeOptions = {}): { service: GatewayService; fake: GatewayFake } {
    const { instance = "test", instanceOptions, config, ...simulatorOptions } = options;
    const simulator = new GatewaySimulator({ serverUrl: "http://gateway.test", ...simulatorOptions });
    const fake = new GatewayFake(simulator);
    if (instance !== null) simulator.addInstance(instance, { open: true, ...instanceOptions });
    const service = new GatewayService({
      rate_limiting: { enabled: false },
      ...config,
      server_url: simulator.serverUrl ?? "http://gateway.test",
      api_key: simulator.apiKey,
      ...(instance !== null ? { instance } : {}),
      fetch: (input, init) => fake.#fetch(new Request(input, init)),
    }, { now: simulatorOptions.now });
    return { service, fake };
  }

  async #fetch(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const text = request.body ? await request.clone().text() : "";
    let body: unknown = undefined;
    if (text !== "") {
      try {
        body = JSON.parse(text);
      } catch {
        body = text;
      }
    }
    const segments = url.pathname.split("/");
    const entry: RequestLogEntry = {
      method: request.method,
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      headers: Object.fromEntries(request.headers),
      body,
      instance: segments.length > 3 ? decodeURIComponent(segments[segments.length - 1]) : undefined,
    };
    this.#sent.push(entry);
    const scripted = this.#scripted.find((item) =>
      (!item.method || item.method === request.method) && pathMatches(url.pathname, item.path)
    );
    if (!scripted) return await this.simulator.handle(request);
    const responder = scripted.responder;
    const answer = typeof responder === "function" ? responder(entry) : responder.clone();
    return await abortable(Promise.resolve(answer), request.signal);
  }

  /** Every request the service sent since the last `reset()`, oldest first. */
  get sent(): readonly RequestLogEntry[] {
    return this.#sent;
  }

  #find(matcher: SentMatcher): RequestLogEntry[] {
    if (typeof matcher === "function") return this.sent.filter(matcher);
    const { method, path } = parseRoute(matcher.method ? `${matcher.method} ${matcher.path}` : matcher.path);
    return this.sent.filter((request) =>
      (!method || request.method === method) && pathMatches(request.path, path) &&
      (matcher.body === undefined || isSubset(matcher.body, request.body))
    );
  }

  /** Assert at least one sent request matches; returns the matches. */
  assertSent(matcher: SentMatcher): RequestLogEntry[] {
    const found = this.#find(matcher);
    if (found.length === 0) {
      const what = typeof matcher === "function" ? "the predicate" : JSON.stringify(matcher);
      throw new GatewayFakeAssertionError(`Expected a request matching ${what}, but ${describe(this.sent)}`);
    }
    return found;
  }

  /** Assert no sent request matches. */
  assertNotSent(matcher: SentMatcher): void {
    const found = this.#find(matcher);
    if (found.length > 0) {
      const what = typeof matcher === "function" ? "the predicate" : JSON.stringify(matcher);
      throw new GatewayFakeAssertionError(`Expected no request matching ${what}, but ${describe(found)}`);
    }
  }

  /** Assert exactly `count` HTTP requests of any kind (a retried request counts once per attempt). */
  assertRequestCount(count: number): void {
    if (this.sent.length !== count) {
      throw new GatewayFakeAssertionError(
        `Expected ${count} request(s), got ${this.sent.length}; ${describe(this.sent)}`,
      );
    }
  }

  /** Assert exactly `count` message sends (`POST /message/send*`); other requests do not count. */
  assertMessageCount(count: number): void {
    const messages = this.sent.filter(isMessageSend);
    if (messages.length !== count) {
      throw new GatewayFakeAssertionError(
        `Expected ${count} message(s), got ${messages.length}; ${describe(this.sent)}`,
      );
    }
  }

  /**
   * Assert a sent message's text contains `fragment`: its `text`, `caption`, `content`, `name`, `title`,
   * `description`, `footer` or `footerText`. Returns the matching sends.
   */
  assertMessageContains(fragment: string): RequestLogEntry[] {
    const found = this.sent.filter((request) =>
      isMessageSend(request) && messageTexts(request).some((text) => text.includes(fragment))
    );
    if (found.length === 0) {
      throw new GatewayFakeAssertionError(
        `Expected a message containing ${JSON.stringify(fragment)}, but ${describe(this.sent)}`,
      );
    }
    return found;
  }

  /**
   * Assert the last message sent was of kind `type`, named as `MessageSent.messageType` names it: `text`,
   * `image`, `video`, `document`, `audio`, `ptv`, `sticker`, `location`, `contact`, `reaction`, `poll`,
   * `list`, `buttons`, `status` or `template`.
   */
  assertMessageTypeWas(type: string): void {
    const last = this.sent.filter(isMessageSend).at(-1);
    if (last === undefined) {
      throw new GatewayFakeAssertionError(`Expected a "${type}" message, but no message was sent`);
    }
    const actual = messageType(last);
    if (actual !== type) {
      throw new GatewayFakeAssertionError(
        `Expected the last message to be "${type}", but it was "${actual}" (${last.method} ${last.path})`,
      );
    }
  }

  /** Assert nothing was sent. */
  assertNothingSent(): void {
    this.assertRequestCount(0);
  }

  /** Assert a send to `to` (digits or JID, formatting ignored), with `text` when given, was accepted. */
  assertMessageSent(to: string, text?: string): void {
    const digits = (value: unknown) => String(value ?? "").replace(/@.*$/, "").replace(/\D/g, "");
    const want = digits(to);
    const found = this.sent.filter((request) => {
      if (!isMessageSend(request)) return false;
      const body = bodyOf(request);
      if (digits(body.number) !== want) return false;
      if (text === undefined) return true;
      return body.text === text || body.caption === text;
    });
    if (found.length === 0) {
      throw new GatewayFakeAssertionError(
        `Expected a message to "${to}"${text === undefined ? "" : ` with text "${text}"`}, but ${
          describe(this.sent)
        }`,
      );
    }
  }

  /**
   * Answer requests to `route` (`"POST /message/sendText"` or `"/message/sendText"`) with a scripted
   * response instead of the simulator's, until `reset()`.
   *
   * @example
   * ```ts
   * import { GatewayFake } from "@gw/gateway/testing";
   * const { service, fake } = GatewayFake.create();
   * fake.respondWith("GET /instance/fetchInstances", Response.json([], { status: 200 }));
   * await service.instances().fetchAll();
   * await fake.close();
   * ```
   */
  respondWith(route: string, responder: FakeResponder): this {
    this.#scripted.unshift({ ...parseRoute(route), responder });
    return this;
  }

  /** Forget recorded requests and scripted answers (the simulator's state stays). */
  reset(): void {
    this.#scripted.length = 0;
    this.#sent.length = 0;
  }

  /** Stop pending webhook deliveries and timers of the simulator. */
  close(): Promise<void> {
    return this.simulator.close();
  }
}
