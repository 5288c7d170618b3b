/**
 * How `GatewayFake` reads its recorded requests: selectors, matchers, sends, kinds, texts, errors.
 *
 * @module
 */

import { parseSelector } from "./simulator/faults.ts";
import type { RequestLogEntry } from "./simulator/types.ts";
import { isRecord } from "../util/json_shape.ts";

/** A scripted answer: a ready `Response`, or a function of the request that returns one. */
export type FakeResponder = Response | ((request: RequestLogEntry) => Response | Promise<Response>);

/** What `assertSent` and friends match: a predicate, or a path (and optional method and body subset). */
export type SentMatcher =
  | ((request: RequestLogEntry) => boolean)
  | { path: string; method?: string; body?: Record<string, unknown> };

/**
 * Thrown by the fake's assertions; the message lists what was sent.
 *
 * @example
 * ```ts
 * import { GatewayFakeAssertionError } from "@gw/gateway/testing";
 * new GatewayFakeAssertionError("Expected a request to /message/sendText");
 * ```
 */
export class GatewayFakeAssertionError extends Error {
  /** Build the error. */
  constructor(message: string) {
    super(message);
    this.name = "GatewayFakeAssertionError";
  }
}

/** The simulator's route selector syntax (`"POST /path"` or `"/path"`), so both doubles read routes alike. */
export function parseRoute(route: string): { method?: string; path: string } {
  const { method, path } = parseSelector(route);
  return { method, path: path ?? "/" };
}

/** The request's path with and without its last segment (the instance name on instance routes). */
export function pathMatches(requestPath: string, path: string): boolean {
  // Selectors are lower-cased by the simulator's parser; routes are matched without regard to case there too.
  const decoded = requestPath.split("?")[0].toLowerCase();
  if (decoded === path) return true;
  const cut = decoded.lastIndexOf("/");
  return cut > 0 && decoded.slice(0, cut) === path;
}

/** Reject with the signal's reason when it aborts first, as `fetch` does. */
export function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

/** Whether `actual` has every field `expected` has, with equal values (arrays element by element). */
export function isSubset(expected: unknown, actual: unknown): boolean {
  if (expected === null || typeof expected !== "object") return Object.is(expected, actual);
  if (actual === null || typeof actual !== "object") return false;
  if (Array.isArray(expected)) {
    return Array.isArray(actual) && expected.length === actual.length &&
      expected.every((item, i) => isSubset(item, actual[i]));
  }
  return Object.entries(expected).every(([key, value]) =>
    isSubset(value, (actual as Record<string, unknown>)[key])
  );
}

/** Whether a request is a message send (`POST /message/send*`). */
export function isMessageSend(request: RequestLogEntry): boolean {
  return request.method === "POST" && request.path.startsWith("/message/send");
}

/** The body of a request, as an object. */
export function bodyOf(request: RequestLogEntry): Record<string, unknown> {
  return isRecord(request.body) ? request.body : {};
}

/** Send route → message kind, the names `MessageSent.messageType` uses (`sendMedia` uses its `mediatype`). */
const MESSAGE_TYPES: Readonly<Record<string, string>> = {
  sendText: "text",
  sendWhatsAppAudio: "audio",
  sendPtv: "ptv",
  sendSticker: "sticker",
  sendLocation: "location",
  sendContact: "contact",
  sendReaction: "reaction",
  sendPoll: "poll",
  sendList: "list",
  sendButtons: "buttons",
  sendStatus: "status",
  sendTemplate: "template",
};

/** The kind of a message send, as `MessageSent.messageType` names it. */
export function messageType(request: RequestLogEntry): string {
  const route = request.path.split("/")[2] ?? "";
  if (route === "sendMedia") return String(bodyOf(request).mediatype);
  return MESSAGE_TYPES[route] ?? route;
}

/** The fields a recipient reads, by message kind: text, caption, a status's content, a poll or list's title... */
const TEXT_FIELDS = ["text", "caption", "content", "name", "title", "description", "footer", "footerText"];

/** The texts a recipient reads in a message send. */
export function messageTexts(request: RequestLogEntry): string[] {
  const body = bodyOf(request);
  return TEXT_FIELDS.map((field) => body[field]).filter((value): value is string =>
    typeof value === "string"
  );
}

/** The sends, one per line, for an assertion's message. */
export function describe(requests: readonly RequestLogEntry[]): string {
  if (requests.length === 0) return "nothing was sent";
  return `sent:\n${
    requests.map((r) => `  ${r.method} ${r.path} ${JSON.stringify(r.body) ?? ""}`).join("\n")
  }`;
}
