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
 * Run `session` again after each end until `signal` aborts, after a delay that grows while sessions fail
 * before `started()`. Each outage is logged once when it starts and once when it ends.
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
