/**
 * The fetch for requests that are not safe to repeat (message sends): one that the runtime cannot send twice.
 *
 * Deno's fetch retries a request once, by itself, when the pooled keep-alive connection it went out on closes
 * before the answer (`ext/fetch`'s retry policy, meant for stale connections, since Deno 2.7.6; from 2.7.6 to
 * 2.9.5 on a fresh connection too): a send the server had read in full goes out again, and the caller sees one
 * answer. That retry replays a copy of the request, and a streamed body cannot be copied, so in Deno a send's
 * body goes out as a stream (HTTP/1.1 `transfer-encoding: chunked` instead of `content-length`). Node's undici
 * and Bun do not retry such a request (`bench/resend_probe.mjs`): there, and on Workers, the global fetch is
 * used as it is.
 *
 * @module
 */

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

/**
 * The fetch of sends: in Deno, every request's body (an empty one too) is sent as a stream, which Deno's own
 * retry cannot replay; elsewhere the global fetch. The body must be a string or absent.
 *
 * @example
 * ```ts
 * import { sendFetch } from "./send_fetch.ts";
 * const send = sendFetch();
 * // await send("http://127.0.0.1:8080/message/sendText/sales", { method: "POST", body: "{}" });
 * ```
 */
export function sendFetch(): typeof fetch {
  if (typeof (globalThis as { Deno?: { version?: unknown } }).Deno?.version !== "object") return globalFetch;
  return (input, init) => {
    const body = init?.body;
    if (body !== undefined && body !== null && typeof body !== "string") return globalThis.fetch(input, init);
    return globalThis.fetch(input, { ...init, body: streamOf(body ?? "") });
  };
}
