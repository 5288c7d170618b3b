import { ConfigurationException } from "../errors.ts";
import { dottedWebhookEvent } from "../webhooks/events/names.ts";
import { positiveInteger } from "../util/checks.ts";

/** The instances and the events (as the server names them: `messages.upsert`) a source carries. */
export interface SourceScope {
  instances: string[];
  events: string[];
}

// Names that become queue names and subjects: no wildcards, separators or blanks a broker reads.
const INSTANCE = /^[A-Za-z0-9][A-Za-z0-9_-]{0,99}$/;

/** The checked instances and events of a source's options; the events in the server's dotted spelling. */
export function readScope(where: string, instances: unknown, events: unknown): SourceScope {
  const fail = (setting: string, problem: string): never => {
    throw new ConfigurationException(`${where}: "${setting}" ${problem}`, { setting });
  };
  if (!Array.isArray(instances) || instances.length === 0) {
    fail("instances", "must be a non-empty list of names");
  }
  for (const name of instances as unknown[]) {
    if (typeof name !== "string" || !INSTANCE.test(name)) {
      fail("instances", `must hold instance names (letters, digits, "-", "_"), got ${JSON.stringify(name)}`);
    }
  }
  if (!Array.isArray(events) || events.length === 0) {
    fail("events", "must be a non-empty list of event names");
  }
  const dotted = (events as unknown[]).map((name) => {
    const event = typeof name === "string" ? dottedWebhookEvent(name) : null;
    return event ??
      fail("events", `must hold the server's event names (messages.upsert), got ${JSON.stringify(name)}`);
  });
  return { instances: [...new Set(instances as string[])], events: [...new Set(dotted)] };
}

/** `host:port` of a broker URL, for messages: never the user name or the password. */
export function brokerAddress(url: URL, defaultPort: number): string {
  return `${url.hostname}:${url.port === "" ? defaultPort : url.port}`;
}

/** A parsed broker URL, or a `ConfigurationException` that does not echo the URL (it may hold a password). */
export function readBrokerUrl(where: string, value: unknown, protocols: string[]): URL {
  let url: URL | undefined;
  try {
    url = typeof value === "string" ? new URL(value) : undefined;
  } catch {
    url = undefined;
  }
  if (url === undefined || !protocols.includes(url.protocol)) {
    throw new ConfigurationException(
      `${where}: "url" must be a ${protocols.map((p) => `${p}//`).join(" or ")} URL`,
      { setting: "url" },
    );
  }
  return url;
}

/** `message` with the URL's password cut out, whatever quoted it (a broker's or a socket's error). */
export function withoutSecret(message: string, url: URL): string {
  const secrets = [url.password, decodeURIComponent(url.password)].filter((s) => s.length > 0);
  return secrets.reduce((text, secret) => text.split(secret).join("***"), message);
}

/** The reconnect delays: doubling from `first` up to `max` ms. */
export interface Backoff {
  first: number;
  max: number;
}

/** `reconnectDelayMs` / `maxReconnectDelayMs` checked, with their defaults (1 s, 30 s). */
export function readBackoff(where: string, first: unknown, max: unknown): Backoff {
  const start = positiveInteger(where, "reconnectDelayMs", first, 1000);
  return { first: start, max: Math.max(start, positiveInteger(where, "maxReconnectDelayMs", max, 30_000)) };
}

/** The delay before reconnect attempt `attempt` (0 based). */
export function backoffDelay(backoff: Backoff, attempt: number): number {
  return Math.min(backoff.max, backoff.first * 2 ** Math.min(attempt, 20));
}
