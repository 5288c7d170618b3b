/**
 * The exceptions of a request that got no usable answer: the deadline passed, the fetch failed or timed out,
 * or the answer's body could not be read. Each says whether the server may have acted (`outcomeUnknown`)
 * for a request that is not safe to repeat.
 *
 * @module
 */

import { ConnectionException, type GatewayErrorContext } from "../errors.ts";
import { scrubKey } from "./answer.ts";
import { describeFetchFailure, hostAndPort } from "./fetch_failure.ts";
import type { PreparedRequest } from "./prepared_request.ts";

/** One attempt's timeout: its signal, and how long it allows. */
export interface AttemptTimeout {
  /** Aborts when the attempt's time is up. */
  timer: AbortSignal;
  /** The attempt's time in ms. */
  ms: number;
}

/** A fetch failure, read, with the exception to throw when it is not retried. */
export interface AttemptFailure {
  /** The exception. */
  error: ConnectionException;
  /** True when the request cannot have reached the server. */
  notSent: boolean;
}

function contextOf(call: PreparedRequest, attempts: number): GatewayErrorContext {
  return {
    method: call.method,
    path: call.path,
    connection: call.connection.name,
    instance: call.instance,
    attempts,
  };
}

/** The deadline passed before attempt `attempt` could start. */
export function deadlinePassed(call: PreparedRequest, attempt: number): ConnectionException {
  return new ConnectionException(`Cannot complete ${call.method} ${call.path}: deadline passed`, {
    ...contextOf(call, attempt - 1),
    reason: "deadline",
    timedOut: true,
    outcomeUnknown: !call.idempotent && attempt > 1,
  });
}

/**
 * The fetch of attempt `attempt` threw. The caller's own abort is not a failure of the request: its reason is
 * thrown as it is; nor is a missing permission (`--allow-net`), thrown as the runtime's permission error.
 */
export function fetchFailed(
  call: PreparedRequest,
  attempt: number,
  error: unknown,
  timeout: AttemptTimeout,
): AttemptFailure {
  if (call.signal?.aborted) throw call.signal.reason;
  if (isPermissionError(error)) throw permissionDenied(call, error);
  const context = { ...contextOf(call, attempt), cause: error };
  if (timeout.timer.aborted) {
    return {
      notSent: false,
      error: new ConnectionException(
        `Cannot complete ${call.method} ${call.path}: no answer from ${
          hostAndPort(call.url)
        } within ${timeout.ms} ms`,
        {
          ...context,
          reason: "timeout",
          timedOut: true,
          outcomeUnknown: !call.idempotent,
        },
      ),
    };
  }
  const failure = describeFetchFailure(error, call.url);
  const description = scrubKey(failure.description, call.connection.api_key) as string;
  return {
    notSent: failure.notSent,
    error: new ConnectionException(
      `Cannot reach gateway server for ${call.method} ${call.path}: ${description}`,
      {
        ...context,
        reason: "network",
        timedOut: false,
        outcomeUnknown: !call.idempotent && !failure.notSent,
      },
    ),
  };
}

/** True for Deno's refusal of a permission (`NotCapable`, `PermissionDenied`): the request was not sent. */
export function isPermissionError(error: unknown): error is Error {
  const name = (error as { name?: unknown })?.name;
  return error instanceof Error && (name === "NotCapable" || name === "PermissionDenied");
}

/**
 * The runtime's own permission error, of the same class (`Deno.errors.NotCapable`), saying which call needed
 * which permission and the flag that grants it. It is no `ConnectionException`: the server was not asked,
 * nothing is retried, and a send's outcome is known (it did not happen).
 */
function permissionDenied(call: PreparedRequest, error: Error): Error {
  const host = hostAndPort(call.url);
  const Permission = error.constructor as new (message: string, options?: ErrorOptions) => Error;
  return new Permission(
    `Cannot send ${call.method} ${call.path}: no network permission for ${host}: ` +
      `run again with --allow-net (or --allow-net=${host})`,
    { cause: error },
  );
}

/** The answer of attempt `attempt` came, but its body could not be read. */
export function readFailed(
  call: PreparedRequest,
  attempt: number,
  error: unknown,
  timeout: AttemptTimeout,
): ConnectionException {
  if (call.signal?.aborted) throw call.signal.reason;
  const timedOut = timeout.timer.aborted;
  return new ConnectionException(`Cannot read answer of ${call.method} ${call.path}`, {
    ...contextOf(call, attempt),
    cause: error,
    reason: timedOut ? "timeout" : "network",
    timedOut,
    outcomeUnknown: !call.idempotent,
  });
}
