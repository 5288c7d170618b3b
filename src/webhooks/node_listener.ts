/** The parts of Node's `IncomingMessage` the listener reads (structurally: no Node import). */
export interface NodeRequestLike extends AsyncIterable<Uint8Array> {
  /** `POST`, `GET` ... */
  method?: string;
  /** Path and query, e.g. `/gateway/webhook/sales`. */
  url?: string;
  /** Lower-case header names to values. */
  headers: Record<string, string | string[] | undefined>;
}

/** The parts of Node's `ServerResponse` the listener writes. */
export interface NodeResponseLike {
  /** Set the status and headers. */
  writeHead(status: number, headers: Record<string, string>): unknown;
  /** Send the body and finish. */
  end(body?: Uint8Array): unknown;
}

/** Options of {@link toNodeListener}. */
export interface NodeListenerOptions {
  /** Origin for the `Request` URL (default `http://` + the `host` header, or `http://localhost`). */
  origin?: string;
}

/**
 * Wrap `handler` as a Node request listener; the body is streamed (size limits stop early), a throw is a 500.
 *
 * @example The webhook receiver in node:http
 * ```ts
 * import { createServer } from "node:http";
 * import { createWebhookHandler, toNodeListener } from "@gw/gateway/webhooks";
 * const handler = createWebhookHandler({ signature: { secret: process.env.GATEWAY_WEBHOOK_SECRET } });
 * createServer(toNodeListener(handler)).listen(3000);
 * ```
 */
export function toNodeListener(
  handler: (request: Request) => Response | Promise<Response>,
  options: NodeListenerOptions = {},
): (request: NodeRequestLike, response: NodeResponseLike) => Promise<void> {
  return async (req, res) => {
    let response: Response;
    try {
      response = await handler(toRequest(req, options.origin));
    } catch {
      response = new Response('{"ok":false,"error":"Internal error"}', {
        status: 500,
        headers: { "content-type": "application/json" },
      });
    }
    const headers: Record<string, string> = {};
    response.headers.forEach((value, name) => headers[name] = value);
    res.writeHead(response.status, headers);
    res.end(new Uint8Array(await response.arrayBuffer()));
  };
}

function toRequest(req: NodeRequestLike, origin: string | undefined): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) value.forEach((item) => headers.append(name, item));
    else headers.set(name, value);
  }
  const host = headers.get("host");
  const base = origin ?? (host ? `http://${host}` : "http://localhost");
  const method = req.method ?? "GET";
  const init: RequestInit & { duplex?: "half" } = { method, headers };
  if (method !== "GET" && method !== "HEAD") {
    const chunks = req[Symbol.asyncIterator]();
    init.body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const next = await chunks.next();
        if (next.done) controller.close();
        else controller.enqueue(new Uint8Array(next.value));
      },
      async cancel() {
        await chunks.return?.();
      },
    });
    // Node's fetch needs this for a streamed request body.
    init.duplex = "half";
  }
  return new Request(new URL(req.url ?? "/", base), init);
}
