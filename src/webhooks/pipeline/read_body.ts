/**
 * Stage "read body": the raw bytes, with a size limit and a time limit. Over the size (413) is refused from
 * `content-length` before reading when possible, else counted while streaming; a malformed length or a
 * failed read is 400; a body that has not fully arrived within the time limit is 408 and its connection is
 * asked to close (a stalled sender must not hold a request for ever). Internal.
 *
 * @module
 */

import { joinBytes } from "../encoding.ts";
import { BODIES, refuse, timedOut } from "./respond.ts";
import type { NextFunction } from "../../util/compose.ts";
import type { BodyDeadlines, BodyReadResult, Receiver, RequestState } from "./state.ts";

const EMPTY = new Uint8Array(0);
// Reads since the timer last fired after which it is no longer stopped when idle (see ReadDeadlines).
const HOT_READS = 256;
const DIGITS = /^\d{1,15}$/;

function discard(request: Request): void {
  if (request.body !== null && !request.bodyUsed) request.body.cancel().catch(() => {});
}

/**
 * A body without a declared length, counted while streaming and cancelled as soon as it passes `max`: the
 * bytes, 413, or 400 for a failed read. `onReader` receives the reader, to cancel it at the deadline.
 */
async function readStreamed(
  request: Request,
  max: number,
  onReader: (reader: ReadableStreamDefaultReader<Uint8Array>) => void,
): Promise<Uint8Array | 400 | 413> {
  if (request.body === null) return EMPTY;
  const reader = request.body.getReader();
  onReader(reader);
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
  return chunks.length === 0 ? EMPTY : joinBytes(chunks);
}

interface PendingRead {
  readonly deadline: number;
  readonly resolve: (result: BodyReadResult) => void;
  reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
}

/**
 * The time limits of the body reads in flight, with one timer for all of them; per read the cost is one
 * promise and a set entry (this sits on every request's path). The timer fires at the earliest deadline. A
 * handler that serves a request now and then stops it as soon as no read is pending. Under load, stopping
 * and re-arming it for every request would cost about 1 µs each (a tenth of the throughput under
 * `bench/webhook_load.sh`), so once `HOT_READS` reads started since it last fired it is left to run out:
 * when it fires with nothing pending it stops by itself. `close()` stops it at once (tests do).
 */
export class ReadDeadlines implements BodyDeadlines {
  readonly timeoutMs: number;
  readonly #reads = new Set<PendingRead>();
  #timer: number | undefined;
  #clearing = false;
  #readsSinceFired = 0;

  constructor(timeoutMs: number) {
    this.timeoutMs = timeoutMs;
  }

  /**
   * Read `request`'s body: the bytes, or the status to answer (408 when it has not fully arrived within the
   * time limit, 413 over `max`, 400 for a malformed length or a failed read).
   */
  read(request: Request, max: number): Promise<BodyReadResult> {
    const declared = request.headers.get("content-length");
    if (declared !== null) {
      if (!DIGITS.test(declared)) {
        discard(request);
        return Promise.resolve(400);
      }
      if (Number(declared) > max) {
        discard(request);
        return Promise.resolve(413);
      }
    }
    return new Promise((resolve) => {
      const pending: PendingRead = { deadline: Date.now() + this.timeoutMs, resolve, reader: undefined };
      this.#reads.add(pending);
      if (this.#timer === undefined) this.#arm(this.timeoutMs);
      this.#readsSinceFired++;
      if (declared === null) {
        readStreamed(request, max, (reader) => pending.reader = reader).then((result) =>
          this.#settle(pending, result)
        );
        return;
      }
      // The usual case: the length is known and small enough, so read in one go (and still check what came).
      // `request.body` is not touched here: in Deno, creating the stream object moves the read off its fast
      // path.
      request.arrayBuffer().then(
        (buffer) => this.#settle(pending, buffer.byteLength > max ? 413 : new Uint8Array(buffer)),
        () => this.#settle(pending, 400),
      );
    });
  }

  #settle(pending: PendingRead, result: BodyReadResult): void {
    const reads = this.#reads;
    if (!reads.delete(pending)) return; // already answered 408
    if (reads.size === 0 && !this.#clearing && this.#readsSinceFired < HOT_READS) {
      this.#clearing = true;
      queueMicrotask(this.#clearIfIdle);
    }
    pending.resolve(result);
  }

  readonly #clearIfIdle = (): void => {
    this.#clearing = false;
    if (this.#reads.size === 0 && this.#timer !== undefined) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
    }
  };

  #arm(ms: number): void {
    this.#timer = setTimeout(() => this.#fire(), ms) as unknown as number;
  }

  #fire(): void {
    this.#timer = undefined;
    this.#readsSinceFired = 0;
    const now = Date.now();
    let next = Infinity;
    for (const read of this.#reads) {
      if (read.deadline <= now) {
        this.#reads.delete(read);
        read.reader?.cancel().catch(() => {});
        read.resolve(408);
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

/** The answer for a body that could not be read: 413, 408 or 400. */
function bodyRefused(receiver: Receiver, status: 400 | 408 | 413): Response {
  if (status === 413) {
    return refuse(
      receiver,
      413,
      BODIES.tooLarge,
      "body_too_large",
      `body over ${receiver.maxBodyBytes} bytes`,
    );
  }
  if (status === 408) {
    return timedOut(receiver, `body not complete after ${receiver.deadlines.timeoutMs} ms`);
  }
  return refuse(receiver, 400, BODIES.badLength, "unreadable_body", "unreadable body or bad content-length");
}

/** Stage "read body": on with `state.body` set, or answers 413, 408 or 400. */
export async function readBodyStage(state: RequestState, next: NextFunction): Promise<void> {
  const receiver = state.receiver;
  const body = await receiver.deadlines.read(state.request, receiver.maxBodyBytes);
  if (typeof body === "number") state.response = bodyRefused(receiver, body);
  else {
    state.body = body;
    await next();
  }
}
