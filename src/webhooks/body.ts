/**
 * Reading a request body with a size limit: refused from `content-length` before reading when possible,
 * else counted while streaming and cancelled as soon as it passes the limit. Internal.
 *
 * @module
 */

const EMPTY = new Uint8Array(0);
const DIGITS = /^\d{1,15}$/;

function discard(request: Request): void {
  if (request.body !== null && !request.bodyUsed) request.body.cancel().catch(() => {});
}

/** The body bytes, or the status to answer: 413 over `max`, 400 for a malformed length or a failed read. */
export async function readBody(request: Request, max: number): Promise<Uint8Array | 400 | 413> {
  const declared = request.headers.get("content-length");
  if (declared !== null) {
    if (!DIGITS.test(declared)) {
      discard(request);
      return 400;
    }
    if (Number(declared) > max) {
      discard(request);
      return 413;
    }
  }
  if (declared !== null) {
    // The length is known and small enough: read in one go, and still check what came. `request.body` is
    // not touched on this path: in Deno, creating the stream object moves the read off its fast path.
    let bytes: Uint8Array;
    try {
      bytes = new Uint8Array(await request.arrayBuffer());
    } catch {
      return 400;
    }
    return bytes.byteLength > max ? 413 : bytes;
  }
  if (request.body === null) return EMPTY;
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    while (true) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > max) {
        reader.cancel().catch(() => {});
        return 413;
      }
      chunks.push(value);
    }
  } catch {
    return 400;
  } finally {
    reader.releaseLock();
  }
  if (chunks.length === 1) return chunks[0];
  const out = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
}
