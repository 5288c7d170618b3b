/**
 * The loop every broker consumer runs: one session (connect, consume until the connection ends), and on a
 * failure a new session after a growing delay. Each outage is reported once when it starts and once when it
 * ends, not at every attempt.
 *
 * @module
 */

import { getGatewayLogger } from "../log.ts";
import { errorMessage } from "../util/error_message.ts";
import { type Backoff, backoffDelay } from "./scope.ts";

/** How a consumer waits between attempts (injectable: tests pass a sleep that does not wait). */
export type SourceSleep = (ms: number, signal: AbortSignal) => Promise<void>;

/** What the loop needs besides the session itself. */
export interface KeepConnectedOptions {
  /** `RabbitMQ at 127.0.0.1:5672`: the broker, for the lines logged. */
  label: string;
  backoff: Backoff;
  sleep: SourceSleep;
  /** Where the outage lines go (default stderr). */
  log: (line: string) => void;
  /** Aborted by `close()`: ends the loop and cuts a wait short. */
  signal: AbortSignal;
}

/**
 * Run `session` until `signal` aborts. `session(started)` connects, calls `started()` once it consumes, and
 * returns when the connection ended (or rejects when it could not connect); either way a new session starts
 * after the backoff delay, which grows while sessions keep failing before `started`.
 */
export async function keepConnected(
  session: (started: () => void) => Promise<void>,
  options: KeepConnectedOptions,
): Promise<void> {
  const logger = getGatewayLogger("sources");
  let failures = 0;
  while (!options.signal.aborted) {
    let started = false;
    let problem: string | undefined;
    try {
      await session(() => {
        started = true;
        if (failures > 0) options.log(`${options.label}: connected again; consuming`);
        failures = 0;
      });
      if (options.signal.aborted) return;
      problem = "the connection was closed";
    } catch (error) {
      if (options.signal.aborted) return;
      problem = errorMessage(error);
    }
    if (started) failures = 0;
    const delay = backoffDelay(options.backoff, failures);
    if (failures === 0) {
      options.log(`${options.label}: ${problem}; reconnecting with backoff (first retry in ${delay} ms)`);
      logger.warn("{label}: {problem}; reconnecting", { label: options.label, problem });
    }
    failures++;
    try {
      await options.sleep(delay, options.signal);
    } catch {
      return; // closed while waiting
    }
  }
}
