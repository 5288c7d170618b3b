/**
 * The request loop: one prepared request, attempted until it is answered, fails for good, or runs out of
 * retries or time. Every decision is named: whether a failure is retried (`retry.ts`), how long to wait
 * (`retryWait`), which exception an answer is (`answerError`, `from_response.ts`) and which a failure is
 * (`failures.ts`).
 *
 * @module
 */

import type { Logger } from "@logtape/logtape";
import { RateLimitException } from "../errors.ts";
import { redact } from "../log.ts";
import type { MetricsCollector } from "../metrics.ts";
import type { SharedTimeouts } from "../timing.ts";
import { type Answer, answerError, readAnswer } from "./answer.ts";
import { type AttemptTimeout, deadlinePassed, fetchFailed, readFailed } from "./failures.ts";
import type { PreparedRequest } from "./prepared_request.ts";
import { ApiResponse } from "./response.ts";
import {
  parseRetryAfter,
  retriesAnswer,
  retriesFailedFetch,
  retriesStatus,
  type RetryPolicy,
  retryWait,
} from "./retry.ts";

/** What the loop needs from its client. */
export interface RequestRuntime {
  /** The fetch of requests that are safe to repeat, called with an undefined `this`. */
  fetch: typeof fetch;
  /** The fetch of requests that are not (sends): one the runtime cannot repeat by itself. */
  sendFetch: typeof fetch;
  /** Clock in epoch ms. */
  now: () => number;
  /** Abortable sleep. */
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Random number in [0, 1) for jitter. */
  random: () => number;
  /** The retry settings. */
  policy: RetryPolicy;
  /** Attempt timeouts, shared between attempts started together. */
  timeouts: SharedTimeouts;
  /** Where retries are counted. */
  metrics: MetricsCollector;
  /** Where each attempt is logged at debug level. */
  log: Logger;
}

/**
 * Attempt `call` until it is answered or fails for good; the answer, or the exception it stands for. With
 * `logged` false (the client's outcome level is off, so debug is off too) the attempts are not logged.
 */
export async function runRequest<T>(
  rt: RequestRuntime,
  call: PreparedRequest,
  logged: boolean,
): Promise<ApiResponse<T>> {
  const fetcher = call.idempotent ? rt.fetch : rt.sendFetch;
  for (let attempt = 1;; attempt++) {
    const timeout = startAttempt(rt, call, attempt, logged);
    let response: Response;
    try {
      const signal = call.signal ? AbortSignal.any([call.signal, timeout.timer]) : timeout.timer;
      response = await fetcher(call.url, {
        method: call.method,
        headers: call.headers,
        body: call.body,
        signal,
      });
    } catch (error) {
      const failure = fetchFailed(call, attempt, error, timeout);
      const retried = retriesFailedFetch({ idempotent: call.idempotent, notSent: failure.notSent }) &&
        await waitToRetry(rt, call, attempt, failure.error.reason, null);
      if (retried) continue;
      throw failure.error;
    }
    const status = response.status;
    if (
      retriesStatus(call.idempotent, status) &&
      await waitToRetry(rt, call, attempt, `status_${status}`, response)
    ) {
      continue;
    }
    let answer: Answer;
    try {
      answer = await readAnswer(response, call);
    } catch (error) {
      const failure = readFailed(call, attempt, error, timeout);
      if (call.idempotent && await waitToRetry(rt, call, attempt, failure.reason, null)) continue;
      throw failure;
    }
    const error = answerError(call, response, answer, attempt, rt.now);
    if (error === null) {
      return new ApiResponse<T>(
        status,
        response.headers,
        answer.json as T,
        rt.now() - call.startedAt,
        attempt,
      );
    }
    const licenseRequired = (error as { reason?: unknown }).reason === "license_required";
    if (
      retriesAnswer(status, licenseRequired) &&
      await waitToRetry(rt, call, attempt, `status_${status}`, response)
    ) {
      continue;
    }
    throw error;
  }
}

/** Check the deadline and signal, log the attempt (when `logged` and debug is on), and start its timeout. */
function startAttempt(
  rt: RequestRuntime,
  call: PreparedRequest,
  attempt: number,
  logged: boolean,
): AttemptTimeout {
  const remaining = call.deadlineAt - rt.now();
  if (remaining <= 0) throw deadlinePassed(call, attempt);
  if (call.signal?.aborted) throw call.signal.reason;
  if (logged && rt.log.isEnabledFor("debug")) {
    // The request as sent, with the apikey header, tokens, secrets and base64 media redacted.
    rt.log.debug("{method} {route} attempt {attempt}", {
      method: call.method,
      route: call.route,
      path: call.path,
      attempt,
      query: call.query,
      headers: redact(call.headers),
      body: redact(call.json),
    });
  }
  const ms = Math.min(call.attemptTimeoutMs, remaining);
  return { timer: rt.timeouts.signal(ms), ms };
}

/**
 * Wait before the next attempt, when the rules allow one: true after the wait, false when there is no retry
 * left or no time for one (the caller then reports the failure). An answer that is retried is not read (its
 * body is cancelled, freeing the connection at once); a `Retry-After` longer than the client may wait fails
 * the call with a `RateLimitException` instead of retrying early.
 */
async function waitToRetry(
  rt: RequestRuntime,
  call: PreparedRequest,
  attempt: number,
  reason: string,
  response: Response | null,
): Promise<boolean> {
  const now = rt.now();
  const retryAfterMs = response === null ? null : parseRetryAfter(response.headers, now);
  const wait = retryWait(rt.policy, {
    attempt,
    maxRetries: call.maxRetries,
    now,
    deadlineAt: call.deadlineAt,
    retryAfterMs,
    random: rt.random,
  });
  if (wait.kind === "stop") return false;
  if (response !== null && !response.bodyUsed) await response.body?.cancel();
  if (wait.kind === "too_long") {
    const seconds = Math.ceil(wait.retryAfterMs / 1000);
    throw new RateLimitException(
      `Gateway asked to wait ${seconds} s before retrying ${call.method} ${call.path}`,
      {
        method: call.method,
        path: call.path,
        connection: call.connection.name,
        instance: call.instance,
        status: response?.status,
        attempts: attempt,
      },
      seconds,
    );
  }
  rt.metrics.retry(reason);
  await rt.sleep(wait.delayMs, call.signal);
  return true;
}
