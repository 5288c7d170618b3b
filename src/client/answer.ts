/**
 * A server answer read: body within the size limit, JSON, and its exception; no api key in an error's copy.
 *
 * @module
 */

import {
  ConnectionException,
  type GatewayApiException,
  type GatewayErrorContext,
  ResponseTooLargeException,
} from "../errors.ts";
import { declaredLength, readBoundedText } from "./body.ts";
import { errorFromResponse } from "./from_response.ts";
import type { PreparedRequest } from "./prepared_request.ts";

/** An answer's body, read. */
export interface Answer {
  /** The parsed JSON body, or null when it is empty, not JSON, or cut at the limit. */
  json: unknown;
  /** The JSON body, or the raw text when it is not JSON (null when empty). */
  raw: unknown;
  /** The body was longer than the limit. */
  truncated: boolean;
}

/** Largest error body read: error answers are small JSON, anything bigger is a proxy's page. */
const ERROR_BODY_LIMIT = 64 * 1024;

function isSuccess(status: number): boolean {
  return status >= 200 && status < 300;
}

/** An answer's body: to the call's limit for a success (unread if declared larger), 64 KiB for an error. */
export function readAnswer(response: Response, call: PreparedRequest): Promise<Answer> {
  const success = isSuccess(response.status);
  const limit = success ? call.responseLimit : Math.min(call.responseLimit, ERROR_BODY_LIMIT);
  // A declared length within the limit (most answers) is read in one go, with no async layer of ours
  // between the runtime's read and the caller: each layer costs more than its share on a fast round trip.
  if (declaredLength(response) <= limit) return response.text().then((text) => answerOf(text, false));
  return readBoundedText(response, limit, success).then((body) => answerOf(body.text, body.truncated));
}

function answerOf(text: string, truncated: boolean): Answer {
  if (text === "") return { json: null, raw: null, truncated };
  if (truncated) return { json: null, raw: text, truncated };
  try {
    const json = JSON.parse(text);
    return { json, raw: json, truncated };
  } catch {
    return { json: null, raw: text, truncated };
  }
}

/**
 * The exception an answer stands for, or null for a successful one. A send (not idempotent) answered with a
 * 5xx other than 503 (a proxy's 502/504, a crash after the send) may have been delivered: its
 * `ConnectionException` says `outcomeUnknown`.
 */
export function answerError(
  call: PreparedRequest,
  response: Response,
  answer: Answer,
  attempt: number,
  now: () => number,
): GatewayApiException | null {
  const status = response.status;
  const success = isSuccess(status);
  const reportsError = (answer.json as { error?: unknown } | null)?.error === true;
  // The common case returns before anything is built.
  if (success && !answer.truncated && !reportsError) return null;
  const context: GatewayErrorContext = {
    method: call.method,
    path: call.path,
    connection: call.connection.name,
    instance: call.instance,
    attempts: attempt,
  };
  if (answer.truncated && success) {
    return new ResponseTooLargeException(
      `Cannot read answer of ${call.method} ${call.path}: the body is larger than ${call.responseLimit} bytes (${call.responseLimitSetting})`,
      { ...context, status },
      call.responseLimit,
    );
  }
  // Only an error's copy of the body is scrubbed: a server echoing the key must not leak it into logs,
  // while a successful body is the caller's data and stays as it came.
  const key = call.connection.api_key;
  const raw = answer.truncated && typeof answer.raw === "string" ? scrubCutKey(answer.raw, key) : answer.raw;
  const error = errorFromResponse(status, scrubKey(raw, key), response.headers, context, now());
  if (
    error instanceof ConnectionException && error.reason === "server_error" && !call.idempotent &&
    status !== 503
  ) {
    return new ConnectionException(error.message, { ...errorContext(error), outcomeUnknown: true });
  }
  return error;
}

/** Everything a `ConnectionException` was built from, to build it again with one field changed. */
function errorContext(error: ConnectionException) {
  return {
    status: error.status,
    body: error.body,
    messages: error.messages,
    method: error.method,
    path: error.path,
    connection: error.connection,
    instance: error.instance,
    attempts: error.attempts,
    reason: error.reason,
    timedOut: error.timedOut,
  };
}

/**
 * `value` with every occurrence of `key` replaced, in strings, array items and property names alike (a server
 * echoing the key as a JSON property name would otherwise leak it through `JSON.stringify(error)`).
 */
export function scrubKey(value: unknown, key: string): unknown {
  if (typeof value === "string") return value.includes(key) ? value.split(key).join("[REDACTED]") : value;
  if (Array.isArray(value)) return value.map((item) => scrubKey(item, key));
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value).map(([name, item]) => [scrubKey(name, key), scrubKey(item, key)]),
    );
  }
  return value;
}

/** A body cut at the size limit may end with the first part of the key: drop that part too. */
function scrubCutKey(text: string, key: string): string {
  for (let length = key.length - 1; length >= 4; length--) {
    if (text.endsWith(key.slice(0, length))) return `${text.slice(0, -length)}[REDACTED]`;
  }
  return text;
}
