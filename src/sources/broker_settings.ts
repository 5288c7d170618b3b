import { ConfigurationException } from "../errors.ts";
import { checkOptionKeys, type OptionKeys } from "../option_keys.ts";
import { abortableSleep } from "../timing.ts";
import { positiveInteger } from "../util/checks.ts";
import type { SourceSleep } from "./keep_connected.ts";
import { type Backoff, readBackoff, readBrokerUrl, readScope, type SourceScope } from "./scope.ts";

/** What every broker source (`RabbitMqSource`, `NatsSource`) takes; each source's options add their own. */
export interface BrokerSourceOptions {
  /** The broker's URL (its password is never shown in messages). */
  url: string;
  /** The instances whose events to take (letters, digits, `-`, `_`). */
  instances: string[];
  /** The events to take, in any spelling (`messages.upsert`, `MESSAGES_UPSERT`). */
  events: string[];
  /** How many messages a consumer takes before it acks any (default 16). */
  prefetch?: number;
  /** Deliveries of one message before it is dead-lettered (default 5). */
  maxAttempts?: number;
  /** First delay before a failed event is delivered again (default 1000 ms), doubled per attempt up to 60 s. */
  retryDelayMs?: number;
  /** Time to connect (default 10 000 ms). */
  connectTimeoutMs?: number;
  /** First delay before reconnecting (default 1000 ms), doubled up to `maxReconnectDelayMs`. */
  reconnectDelayMs?: number;
  /** Longest delay before reconnecting (default 30 000 ms). */
  maxReconnectDelayMs?: number;
  /** Clock in epoch ms (default `Date.now`). */
  now?: () => number;
  /** How the consumer waits before a retry or a reconnect (default a timer that `close()` cuts short). */
  sleep?: SourceSleep;
  /** Where a consumer says it lost or regained the broker, once per outage (default stderr). */
  log?: (line: string) => void;
}

/** The checked {@link BrokerSourceOptions} a consumer runs with. */
export interface BrokerSettings {
  url: URL;
  scope: SourceScope;
  prefetch: number;
  maxAttempts: number;
  retryDelay: Backoff;
  connectTimeoutMs: number;
  backoff: Backoff;
  now: () => number;
  sleep: SourceSleep;
  log: (line: string) => void;
}

const BROKER_OPTION_KEYS = {
  url: true,
  instances: true,
  events: true,
  prefetch: true,
  maxAttempts: true,
  retryDelayMs: true,
  connectTimeoutMs: true,
  reconnectDelayMs: true,
  maxReconnectDelayMs: true,
  now: true,
  sleep: true,
  log: true,
} as const;

/** How one broker differs: its URL schemes, its largest prefetch, and the option keys only it takes. */
export interface BrokerKind {
  protocols: string[];
  maxPrefetch: number;
  keys: OptionKeys;
}

/** Check `options` (`where` names the constructor in errors); unknown keys are refused with a suggestion. */
export function readBrokerSettings(
  where: string,
  options: BrokerSourceOptions,
  kind: BrokerKind,
): BrokerSettings {
  if (options === null || typeof options !== "object") {
    throw new ConfigurationException(`${where}: options must be an object`, { setting: "options" });
  }
  checkOptionKeys(options, { ...BROKER_OPTION_KEYS, ...kind.keys }, where);
  for (const key of ["now", "sleep", "log"] as const) {
    if (options[key] !== undefined && typeof options[key] !== "function") {
      throw new ConfigurationException(`${where}: "${key}" must be a function`, { setting: key });
    }
  }
  const retry = positiveInteger(where, "retryDelayMs", options.retryDelayMs, 1000);
  return {
    url: readBrokerUrl(where, options.url, kind.protocols),
    scope: readScope(where, options.instances, options.events),
    prefetch: positiveInteger(where, "prefetch", options.prefetch, 16, kind.maxPrefetch),
    maxAttempts: positiveInteger(where, "maxAttempts", options.maxAttempts, 5, 1000),
    retryDelay: { first: retry, max: Math.max(retry, 60_000) },
    connectTimeoutMs: positiveInteger(where, "connectTimeoutMs", options.connectTimeoutMs, 10_000),
    backoff: readBackoff(where, options.reconnectDelayMs, options.maxReconnectDelayMs),
    now: options.now ?? Date.now,
    sleep: options.sleep ?? abortableSleep,
    log: options.log ?? ((line) => console.error(line)),
  };
}
