/**
 * The answer of a successful request.
 *
 * @module
 */

/** Read a dot path out of parsed JSON; numeric segments index arrays (`"0.name"`, `"key.id"`). */
export function readPath(data: unknown, path?: string): unknown {
  if (path === undefined || path === "") return data;
  let current: unknown = data;
  for (const segment of path.split(".")) {
    if (current === null || current === undefined || typeof current !== "object") return undefined;
    if (Array.isArray(current)) {
      if (!/^\d+$/.test(segment)) return undefined;
      current = current[Number(segment)];
    } else {
      if (!Object.hasOwn(current, segment)) return undefined;
      current = (current as Record<string, unknown>)[segment];
    }
  }
  return current;
}

/**
 * A gateway server's answer: status, headers and the parsed JSON body.
 *
 * @example
 * ```ts
 * import { ApiResponse } from "@gw/gateway";
 * const res = new ApiResponse(201, new Headers(), { key: { id: "3EB0" } }, 12, 1);
 * res.isSuccessful(); // true
 * res.json("key.id"); // "3EB0"
 * ```
 */
export class ApiResponse<T = unknown> {
  /** HTTP status code. */
  readonly status: number;
  /** Response headers. */
  readonly headers: Headers;
  /** Parsed JSON body, or null when the body was empty or not JSON. */
  readonly data: T;
  /** Time from the first attempt to the answer, in ms. */
  readonly durationMs: number;
  /** Attempts made (1 when no retry happened; 0 for a replay, which made no request). */
  readonly attempts: number;
  /** True for the stored answer of an earlier send with the same idempotency key (no request made). */
  readonly replayed: boolean;

  /** Wrap an answer. */
  constructor(
    status: number,
    headers: Headers,
    data: T,
    durationMs: number,
    attempts: number,
    options: { replayed?: boolean } = {},
  ) {
    this.status = status;
    this.headers = headers;
    this.data = data;
    this.durationMs = durationMs;
    this.attempts = attempts;
    this.replayed = options.replayed === true;
  }

  /** True for a 2xx status. */
  isSuccessful(): boolean {
    return this.status >= 200 && this.status < 300;
  }

  /** The body, or the value at a dot path in it (`json("key.id")`, `json("0.name")`). */
  json<V = unknown>(path?: string): V {
    return readPath(this.data, path) as V;
  }
}
