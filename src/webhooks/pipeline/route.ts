/**
 * Stage "route": is this request for the receiver at all? Matching on the raw request URL (no `URL` object
 * on the hot path), then the method: 404 off the route or when disabled, 405 for a method other than POST,
 * 200 for the health check. Internal.
 *
 * Accepted: `/<prefix>/<instance>`, `/<prefix>/<instance>/<event-kebab>` (the server's byEvents suffix, also
 * with the `//` it produces when the configured URL ends in `/`), `/<prefix>` (instance from the body), and
 * `/<prefix>/health`. Segments are percent-decoded once; a decoded segment with `/`, `\`, a control
 * character, or equal to `.` or `..` does not match, so `..%2Fx` can never reach a handler.
 *
 * @module
 */

import { normalizeWebhookEvent } from "../payload.ts";
import { BODIES, refuse, respond, RETRY_AFTER } from "./respond.ts";
import type { Receiver, ReceiverStage, RequestState, WebhookRoute } from "./state.ts";

const MAX_SEGMENT = 200;
// deno-lint-ignore no-control-regex -- control characters are exactly what must not pass
const BAD_SEGMENT = /[\/\\\u0000-\u001f\u007f]/;

/** Normalize a configured prefix: no leading or trailing slashes. */
export function normalizePrefix(prefix: string): string {
  return prefix.replace(/^\/+|\/+$/g, "");
}

function pathOf(url: string): string | null {
  const scheme = url.indexOf("://");
  const start = url.indexOf("/", scheme < 0 ? 0 : scheme + 3);
  if (start < 0) return "/";
  let end = url.length;
  const query = url.indexOf("?", start);
  if (query >= 0) end = query;
  const hash = url.indexOf("#", start);
  if (hash >= 0 && hash < end) end = hash;
  return url.slice(start, end);
}

function decodeSegment(raw: string): string | null {
  if (raw.length === 0 || raw.length > MAX_SEGMENT * 3) return null;
  let value = raw;
  if (raw.includes("%")) {
    try {
      value = decodeURIComponent(raw);
    } catch {
      return null;
    }
  }
  if (value.length > MAX_SEGMENT || value === "." || value === ".." || BAD_SEGMENT.test(value)) return null;
  return value;
}

/** Match `url` against the routes under `prefix` (normalized); null when it is not a webhook route. */
export function matchRoute(url: string, prefix: string): WebhookRoute | null {
  const path = pathOf(url);
  if (path === null) return null;
  const base = prefix.length === 0 ? "" : `/${prefix}`;
  if (!path.startsWith(base)) return null;
  const rest = path.slice(base.length);
  if (rest === "" || rest === "/") return { instance: undefined, event: undefined, health: false };
  if (rest.charCodeAt(0) !== 47 /* / */) return null;
  const parts = rest.slice(1).split("/");
  // A trailing slash leaves an empty last part; the byEvents `//` leaves an empty middle one.
  if (parts.length > 1 && parts[parts.length - 1] === "") parts.pop();
  if (parts.length === 3 && parts[1] === "") parts.splice(1, 1);
  if (parts.length > 2) return null;
  // A global webhook URL ending in "/" with byEvents: "<prefix>//<event>", the instance is in the body.
  if (parts.length === 2 && parts[0] === "") {
    const decoded = decodeSegment(parts[1]);
    if (decoded === null || normalizeWebhookEvent(decoded) === null) return null;
    return { instance: undefined, event: decoded, health: false };
  }
  const instance = decodeSegment(parts[0]);
  if (instance === null) return null;
  let event: string | undefined;
  if (parts.length === 2) {
    const decoded = decodeSegment(parts[1]);
    if (decoded === null || normalizeWebhookEvent(decoded) === null) return null;
    event = decoded;
  }
  return { instance, event, health: parts.length === 1 && instance === "health" };
}

/** Cancel a body the receiver will not read, so that the connection can be reused or closed. */
export function discardBody(request: Request): void {
  if (request.body !== null && !request.bodyUsed) request.body.cancel().catch(() => {});
}

// deno-lint-ignore no-control-regex -- control characters are escaped before a path is written to stderr
const CONTROL = /[\u0000-\u001f\u007f]/g;

/**
 * A POST off the route is most often a sender configured with another path (`/webhook/sales` for
 * `/gateway/webhook/sales`), which the server does not retry: one line per interval names the route served.
 * Scanners' GETs stay quiet.
 */
function reportOffRoute(receiver: Receiver, url: string): void {
  receiver.reports.report("404 off route", () => {
    const path = (pathOf(url) ?? "").slice(0, 100).replace(
      CONTROL,
      (char) => `%${char.charCodeAt(0).toString(16).toUpperCase().padStart(2, "0")}`,
    );
    const base = receiver.prefix.length === 0 ? "" : `/${receiver.prefix}`;
    return `Webhook refused (404): POST ${
      JSON.stringify(path)
    } is not a webhook route; this receiver serves ` +
      `POST ${base}/<instance> (routePrefix "${receiver.prefix}")`;
  });
}

/** The health check: 200, or 503 with the reason while the receiver cannot verify anything. */
function health(receiver: Receiver): Response {
  const problem = receiver.secretProblem;
  if (problem === undefined) return respond(200, BODIES.health);
  const body = JSON.stringify({
    ok: false,
    status: "misconfigured",
    error: problem.message,
    setting: problem.setting,
  });
  return respond(503, body, RETRY_AFTER);
}

/** The answer for a request that is not a POST to the receiver; undefined (and `state.route` set) for one. */
function routeRefusal(receiver: Receiver, state: RequestState): Response | undefined {
  const request = state.request;
  if (!receiver.enabled) {
    discardBody(request);
    return refuse(receiver, 404, BODIES.notFound, "disabled", "webhooks disabled");
  }
  const url = request.url;
  let matched = receiver.routes.get(url);
  if (matched === undefined) {
    matched = matchRoute(url, receiver.prefix);
    if (receiver.routes.size >= 512) receiver.routes.clear();
    receiver.routes.set(url, matched);
  }
  if (matched === null) {
    discardBody(request);
    if (request.method === "POST") reportOffRoute(receiver, url);
    return refuse(receiver, 404, BODIES.notFound, "not_found", "not the webhook route");
  }
  const method = request.method;
  if (method !== "POST") {
    discardBody(request);
    if (matched.health && (method === "GET" || method === "HEAD")) return health(receiver);
    return refuse(receiver, 405, BODIES.method, "method_not_allowed", method.slice(0, 16), "UNKNOWN", [[
      "allow",
      matched.health ? "GET, HEAD, POST" : "POST",
    ]]);
  }
  state.route = matched;
  return undefined;
}

/** Stage "route": on with `state.route` set for a POST to the receiver; anything else is answered here. */
export const routeStage: ReceiverStage = (state, next) => {
  const refused = routeRefusal(state.receiver, state);
  if (refused === undefined) return next();
  state.response = refused;
};
