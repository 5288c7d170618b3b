/**
 * The fetch for requests that are not safe to repeat (message sends): one that the runtime cannot send twice.
 *
 * Deno's fetch (since 2.7.6) retries a request by itself when its pooled connection closes before the answer:
 * a send the server had read goes out again. It replays a copy, and a streamed body cannot be copied, so in
 * Deno a send's body goes out as a stream. Node's undici and Bun do not retry (`bench/resend_probe.mjs`):
 * there, and on Workers, the global fetch is used as it is.
 *
 * @module
 */

import { hostAndPort } from "./fetch_failure.ts";

/** The global fetch, called with an undefined `this` (Workers throws "Illegal invocation" otherwise). */
export const globalFetch: typeof fetch = (input, init) => globalThis.fetch(input, init);

const encoder = new TextEncoder();

/** One chunk, then the end: a body the runtime reads once and cannot replay. */
function streamOf(body: string): ReadableStream<Uint8Array> {
  const bytes = encoder.encode(body);
  return new ReadableStream({
    start(controller) {
      if (bytes.length > 0) controller.enqueue(bytes);
      controller.close();
    },
  });
}

interface DenoPermissions {
  querySync?: (descriptor: { name: "net"; host: string }) => { state: string };
}

/** Origins whose network permission was granted (a permission is seldom revoked while a process runs). */
const granted = new Set<string>();

/**
 * True when fetch may reach `url` without asking: a streamed body is then safe to hand over. Without the
 * permission, Deno's fetch fails (or prompts) before sending, and a stream it was given stays open and keeps
 * the process alive, so such a request gets its body as a string: it cannot have gone out on a reused
 * connection anyway, since no request to that host went out before the permission.
 */
function netGranted(url: string): boolean {
  const origin = url.slice(0, url.indexOf("/", url.indexOf("//") + 2) >>> 0);
  if (granted.has(origin)) return true;
  const permissions = (globalThis as { Deno?: { permissions?: DenoPermissions } }).Deno?.permissions;
  if (typeof permissions?.querySync !== "function") return true;
  let state: string;
  try {
    state = permissions.querySync({ name: "net", host: hostAndPort(url) }).state;
  } catch {
    // A runtime with Deno's API but no permission model (a hosted platform) grants what it runs.
    return true;
  }
  if (state !== "granted") return false;
  if (granted.size < 100) granted.add(origin);
  return true;
}

/** Redirects a send follows, as many as fetch's own limit allows for any request (20). */
const MAX_REDIRECTS = 20;

/**
 * Send `body` to `url` as a stream, following a 307 or 308 itself: fetch cannot follow a redirect with a
 * streamed body ("Can not redeliver a streaming request body"), and those two keep the method and body (a
 * proxy that moves http to https answers 308), on the same host only (another would get the api key). The
 * server that redirected did not act on the request, so the send still reaches one server once. Any other
 * answer, a 301, 302 or 303 or a redirect to another host included, is returned as it is.
 */
async function streamed(url: string, init: RequestInit | undefined, body: string): Promise<Response> {
  for (let hop = 0;; hop++) {
    if (!netGranted(url)) return await globalThis.fetch(url, { ...init, body });
    const response = await globalThis.fetch(url, { ...init, body: streamOf(body), redirect: "manual" });
    if (response.status !== 307 && response.status !== 308) return response;
    const location = response.headers.get("location");
    if (location === null || hop === MAX_REDIRECTS) return response;
    const next = new URL(location, url);
    // Another host would receive the request's headers, the api key among them.
    if (next.hostname !== new URL(url).hostname) return response;
    await response.body?.cancel();
    url = next.href;
  }
}

/**
 * The fetch of sends: in Deno, every request's body (an empty one too) is sent as a stream, which Deno's own
 * retry cannot replay, and a 307 or 308 is followed with it; elsewhere the global fetch. A body that is not
 * a string, a GET or HEAD (no body allowed), or a caller's own `redirect` setting, leaves the request to the
 * global fetch as it is.
 */
export function sendFetch(): typeof fetch {
  if (typeof (globalThis as { Deno?: { version?: unknown } }).Deno?.version !== "object") return globalFetch;
  return (input, init) => {
    const body = init?.body ?? "";
    // A GET (`acceptInvite`) cannot carry a body: fetch refuses one, a stream included.
    const bodiless = init?.method === "GET" || init?.method === "HEAD";
    if (typeof body !== "string" || typeof input !== "string" || init?.redirect !== undefined || bodiless) {
      return globalThis.fetch(input, init);
    }
    return streamed(input, init, body);
  };
}
