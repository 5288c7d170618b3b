/**
 * A hand-written HTTP/1.1 server on 127.0.0.1 (Deno.listen, no HTTP library), for what a real server does to a
 * connection and no library would: read a request in full (a `content-length` or chunked body), then close the connection without answering.
 *
 * @module
 */

/** What the server does with the n-th request it read (1-based). */
export type RawAction = { answer: number; body: string } | "close";

/** One request as the server read it. */
export interface RawRequest {
  /** The request line and headers. */
  head: string;
  /** The body's text. */
  body: string;
  /** Which accepted connection it came on (1-based). */
  connection: number;
}

/** A running raw server. */
export interface RawServer {
  /** `http://127.0.0.1:<port>`. */
  url: string;
  /** Every request read, in order. */
  requests: RawRequest[];
  /** Stop listening and close every connection. */
  close(): Promise<void>;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** The body of a chunked request whose head ends at `start`, and where the request ends; null when incomplete. */
function chunkedBody(bytes: Uint8Array, start: number): { body: Uint8Array; end: number } | null {
  const parts: Uint8Array[] = [];
  let at = start;
  for (;;) {
    const line = decoder.decode(bytes.subarray(at, Math.min(bytes.length, at + 20)));
    const eol = line.indexOf("\r\n");
    if (eol < 0) return null;
    const size = parseInt(line.slice(0, eol), 16);
    at += eol + 2;
    if (bytes.length < at + size + 2) return null;
    if (size === 0) return { body: concat(parts), end: at + 2 };
    parts.push(bytes.subarray(at, at + size));
    at += size + 2;
  }
}

function concat(parts: Uint8Array[]): Uint8Array {
  const all = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of parts) {
    all.set(part, at);
    at += part.length;
  }
  return all;
}

/** One complete request at the start of `bytes` (a `content-length` or chunked body), or null. */
function parseRequest(bytes: Uint8Array): { head: string; body: string; end: number } | null {
  const text = decoder.decode(bytes);
  const end = text.indexOf("\r\n\r\n");
  if (end < 0) return null;
  const head = text.slice(0, end);
  const start = encoder.encode(text.slice(0, end + 4)).length;
  if (/transfer-encoding:\s*chunked/i.test(head)) {
    const chunked = chunkedBody(bytes, start);
    return chunked && { head, body: decoder.decode(chunked.body), end: chunked.end };
  }
  const length = Number(/content-length:\s*(\d+)/i.exec(head)?.[1] ?? 0);
  if (bytes.length < start + length) return null;
  return { head, body: decoder.decode(bytes.subarray(start, start + length)), end: start + length };
}

/** Read one request from `buffer` plus what `conn` sends; null at EOF. */
async function readRequest(
  conn: Deno.Conn,
  buffer: { bytes: Uint8Array },
): Promise<{ head: string; body: string } | null> {
  for (;;) {
    const request = parseRequest(buffer.bytes);
    if (request !== null) {
      buffer.bytes = buffer.bytes.slice(request.end);
      return { head: request.head, body: request.body };
    }
    const chunk = new Uint8Array(16 * 1024);
    const n = await conn.read(chunk).catch(() => null);
    if (n === null) return null;
    buffer.bytes = concat([buffer.bytes, chunk.subarray(0, n)]);
  }
}

/**
 * Start a raw server: the n-th request read is answered (keep-alive, `content-length`) or, for `"close"`,
 * read in full and its connection closed unanswered. Requests past the script are answered 201 `{}`.
 */
export function rawHttpServer(script: RawAction[]): RawServer {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const requests: RawRequest[] = [];
  const open = new Set<Deno.Conn>();
  const handlers: Promise<void>[] = [];
  let connections = 0;
  const serve = async (conn: Deno.Conn, id: number) => {
    const buffer = { bytes: new Uint8Array() };
    for (;;) {
      const request = await readRequest(conn, buffer);
      if (request === null) break;
      requests.push({ ...request, connection: id });
      const action = script[requests.length - 1] ?? { answer: 201, body: "{}" };
      if (action === "close") break;
      const reply = `HTTP/1.1 ${action.answer} OK\r\ncontent-type: application/json\r\n` +
        `content-length: ${encoder.encode(action.body).length}\r\n\r\n${action.body}`;
      await conn.write(encoder.encode(reply)).catch(() => {});
    }
    if (open.delete(conn)) conn.close();
  };
  const accepting = (async () => {
    for await (const conn of listener) {
      open.add(conn);
      handlers.push(serve(conn, ++connections));
    }
  })();
  const { port } = listener.addr as Deno.NetAddr;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    async close() {
      listener.close();
      await accepting.catch(() => {});
      for (const conn of open) conn.close();
      open.clear();
      await Promise.all(handlers);
    },
  };
}
