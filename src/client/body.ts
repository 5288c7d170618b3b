/**
 * Read a server answer as a stream that stops at the size limit, so an oversized answer never fills memory.
 *
 * @module
 */

/** What was read of an answer body. */
export interface BoundedBody {
  /** The body as text: all of it, or its first `limit` bytes when `truncated`. */
  text: string;
  /** Bytes read (at most the limit). */
  bytes: number;
  /** The body was longer than the limit; the rest was not read and the stream was cancelled. */
  truncated: boolean;
}

const decoder = new TextDecoder();

/**
 * The body length `response` declares, when the runtime will read exactly that many bytes: its
 * `content-length`, unless a `content-encoding` makes the decoded body larger than declared. NaN otherwise.
 */
export function declaredLength(response: Response): number {
  const declared = Number(response.headers.get("content-length") ?? NaN);
  return Number.isInteger(declared) && declared >= 0 && !response.headers.has("content-encoding")
    ? declared
    : NaN;
}

/**
 * Read `response`'s body up to `limit` bytes. A declared `content-length` within the limit (with no
 * `content-encoding`, which would make the decoded body larger than declared) takes the runtime's fast path;
 * anything else is read chunk by chunk and cancelled once past the limit. With `skipWhenDeclaredOver`, a
 * body whose `content-length` already exceeds the limit is cancelled without reading any of it.
 */
export async function readBoundedText(
  response: Response,
  limit: number,
  skipWhenDeclaredOver = false,
): Promise<BoundedBody> {
  // The headers first: `response.body` builds a stream object, which the fast path never needs.
  const declared = declaredLength(response);
  if (!Number.isNaN(declared)) {
    if (declared <= limit) {
      const text = await response.text();
      return { text, bytes: declared, truncated: false };
    }
    if (skipWhenDeclaredOver) {
      await response.body?.cancel();
      return { text: "", bytes: 0, truncated: true };
    }
  }
  const body = response.body;
  if (body === null) return { text: "", bytes: 0, truncated: false };
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  let truncated = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (bytes + value.byteLength > limit) {
        chunks.push(value.subarray(0, limit - bytes));
        bytes = limit;
        truncated = true;
        break;
      }
      chunks.push(value);
      bytes += value.byteLength;
    }
  } finally {
    if (truncated) await reader.cancel().catch(() => {});
    reader.releaseLock();
  }
  if (chunks.length === 1) return { text: decoder.decode(chunks[0]), bytes, truncated };
  const all = new Uint8Array(bytes);
  let offset = 0;
  for (const chunk of chunks) {
    all.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return { text: decoder.decode(all), bytes, truncated };
}
