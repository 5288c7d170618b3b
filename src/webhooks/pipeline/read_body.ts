/**
 * Stage "read body": the raw bytes, with a size limit and a time limit. Over the size (413) is refused from
 * `content-length` before reading when possible, else counted while streaming; a malformed length or a
 * failed read is 400; a body that has not fully arrived within the time limit is 408 and its connection is
 * asked to close (a stalled sender must not hold a request for ever). Internal.
 *
 * @module
 */

import { BODIES, refuse, timedOut } from "./respond.ts";
import type { Receiver, RequestState } from "./state.ts";

const EMPTY = new Uint8Array(0);
const DIGITS = /^\d{1,15}$/;

function discard(request: Request): void {
  if (request.body !== null && !request.bodyUsed) request.body.cancel().catch(() => {});
}

/**
 * The body bytes, or the status to answer: 413 over `max`, 400 for a malformed length or a failed read.
 * A streamed body (no length) is read through a reader, handed to `onReader` so that it can be cancelled.
 */
export async function readBody(
  request: Request,
  max: number,
  onReader?: (reader: ReadableStreamDefaultReader<Uint8Array>) => void,
): Promise<Uint8Array | 400 | 413> {
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
  onReader?.(reader);
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

interface PendingRead {
  readonly deadline: number;
  reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  readonly expire: () => void;
}

/**
 * The time limits of the body reads in flight, with one timer for all of them: under load reads overlap and
 * one timer serves them all (a set entry costs a few ns, a timer about 1 µs). The timer is armed while
 * reads are pending, cleared when none is, and fires at the earliest deadline.
 */
export class ReadDeadlines {
  readonly timeoutMs: number;
  readonly #reads = new Set<PendingRead>();
  readonly #now: () => number;
  #timer: number | undefined;

  constructor(timeoutMs: number, now: () => number = Date.now) {
    this.timeoutMs = timeoutMs;
    this.#now = now;
  }

  /** Read `request`'s body; resolves 408 when it has not arrived within the time limit. */
  read(request: Request, max: number): Promise<Uint8Array | 400 | 408 | 413> {
    return new Promise((resolve) => {
      const pending: PendingRead = {
        deadline: this.#now() + this.timeoutMs,
        reader: undefined,
        expire: () => {
          pending.reader?.cancel().catch(() => {});
          resolve(408);
        },
      };
      this.#reads.add(pending);
      if (this.#timer === undefined) this.#arm(this.timeoutMs);
      readBody(request, max, (reader) => pending.reader = reader).then((result) => {
        this.#reads.delete(pending);
        if (this.#reads.size === 0 && this.#timer !== undefined) {
          clearTimeout(this.#timer);
          this.#timer = undefined;
        }
        resolve(result);
      });
    });
  }

  #arm(ms: number): void {
    this.#timer = setTimeout(() => this.#fire(), ms) as unknown as number;
  }

  #fire(): void {
    this.#timer = undefined;
    const now = this.#now();
    let next = Infinity;
    for (const read of this.#reads) {
      if (read.deadline <= now) {
        this.#reads.delete(read);
        read.expire();
      } else if (read.deadline < next) next = read.deadline;
    }
    if (next !== Infinity) this.#arm(next - now);
  }

  /** Stop the timer (the handler is closed); reads still pending are not answered 408 any more. */
  stop(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#reads.clear();
  }
}

/** Read the body into `state.body`; the refusal, or undefined to go on. */
export async function readBodyStage(receiver: Receiver, state: RequestState): Promise<Response | undefined> {
  const body = await receiver.deadlines.read(state.request, receiver.maxBodyBytes);
  if (body instanceof Uint8Array) {
    state.body = body;
    return undefined;
  }
  if (body === 413) {
    return refuse(
      receiver,
      413,
      BODIES.tooLarge,
      "body_too_large",
      `body over ${receiver.maxBodyBytes} bytes`,
    );
  }
  if (body === 408) {
    return timedOut(receiver, `body not complete after ${receiver.deadlines.timeoutMs} ms`);
  }
  return refuse(receiver, 400, BODIES.badLength, "unreadable_body", "unreadable body or bad content-length");
}
