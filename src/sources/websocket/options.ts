import { ConfigurationException } from "../../errors.ts";
import { checkOptionKeys, type OptionKeys } from "../../option_keys.ts";
import { abortableSleep } from "../../timing.ts";
import { timerMs } from "../../util/checks.ts";
import { normalizeWebhookEvent, WEBHOOK_EVENTS } from "../../webhooks/events/names.ts";

/** How long to wait between reconnect attempts: doubled after each failed attempt, up to `maxMs`. */
export interface WebSocketBackoff {
  /** The first wait after a connection is lost, in ms (default 1000). */
  initialMs?: number;
  /** The longest wait, in ms (default 30000). */
  maxMs?: number;
}

/** Options of `new WebSocketSource(...)`. */
export interface WebSocketSourceOptions {
  /** The gateway server's URL (`http://127.0.0.1:8080`): socket.io runs on the server's own port. */
  url: string;
  /** The server's api key (the global key, or the instance's token), sent as the `apikey` header. */
  apiKey: string;
  /** The instances whose events to take: one socket.io namespace (`/<instance>`) each. */
  instances: readonly string[];
  /** The events to take, in any spelling (`messages.upsert`, `MESSAGES_UPSERT`); `setup` enables these. */
  events: readonly string[];
  /**
   * Run `reconcileInboundMessages` on every reconnect (default true), so messages that arrived while the
   * socket was down are handled; it needs `setup(gw)` first and a store for the claims.
   */
  reconcile?: boolean;
  /** Reconnect waits (default 1 s doubling up to 30 s). */
  backoff?: WebSocketBackoff;
  /** How long one connect attempt may take, in ms (default 10000). */
  connectTimeoutMs?: number;
  /** How to wait between reconnect attempts (default a timer; tests pass one that returns at once). */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Where lost and regained connections are said, one line each (default `console.error`). */
  log?: (line: string) => void;
  /** Clock in epoch ms (default `Date.now`): the reconciler's and the events' `receivedAt`. */
  now?: () => number;
}

/** The options, checked. Internal. */
export interface WebSocketSettings {
  origin: string;
  address: string;
  apiKey: string;
  instances: readonly string[];
  /** Event kinds (UPPER_SNAKE) to take. */
  kinds: ReadonlySet<string>;
  /** The events as given, for `setup`. */
  events: readonly string[];
  reconcile: boolean;
  initialMs: number;
  maxMs: number;
  connectTimeoutMs: number;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  log: (line: string) => void;
  now: () => number;
}

const KEYS: OptionKeys = {
  url: true,
  apiKey: true,
  instances: true,
  events: true,
  reconcile: true,
  backoff: { initialMs: true, maxMs: true },
  connectTimeoutMs: true,
  sleep: true,
  log: true,
  now: true,
};

const WHERE = "new WebSocketSource";

function fail(setting: string, problem: string): never {
  throw new ConfigurationException(`${WHERE}: "${setting}" ${problem}`, { setting });
}

function serverUrl(value: unknown): URL {
  if (typeof value !== "string" || value === "") fail("url", "is required (the gateway server's URL)");
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    fail("url", "must be an http(s) URL");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") fail("url", "must be an http(s) URL");
  return url;
}

function names(setting: string, value: unknown): string[] {
  if (!Array.isArray(value) || value.length === 0) fail(setting, "must be a non-empty list");
  for (const item of value) {
    if (typeof item !== "string" || item === "" || item.includes("/")) {
      fail(setting, `must hold non-empty names without "/", got ${JSON.stringify(item)}`);
    }
  }
  return [...value];
}

function kinds(events: string[]): Set<string> {
  const out = new Set<string>();
  for (const event of events) {
    const kind = normalizeWebhookEvent(event);
    if (kind === null || !Object.hasOwn(WEBHOOK_EVENTS, kind)) {
      fail("events", `holds "${event}", which is not an event of the gateway server`);
    }
    out.add(kind);
  }
  return out;
}

/** Check the options of `new WebSocketSource`. Internal. */
export function websocketSettings(options: WebSocketSourceOptions): WebSocketSettings {
  if (options === null || typeof options !== "object") {
    throw new ConfigurationException(`${WHERE}: options are required ({ url, apiKey, instances, events })`);
  }
  checkOptionKeys(options, KEYS, WHERE);
  const url = serverUrl(options.url);
  if (typeof options.apiKey !== "string" || options.apiKey.trim() === "") {
    fail("apiKey", "is required (the server's api key)");
  }
  const events = names("events", options.events);
  const backoff = options.backoff ?? {};
  const initialMs = timerMs(WHERE, "backoff.initialMs", backoff.initialMs, 1000);
  const maxMs = timerMs(WHERE, "backoff.maxMs", backoff.maxMs, Math.max(30_000, initialMs));
  if (maxMs < initialMs) fail("backoff.maxMs", `must be at least "backoff.initialMs" (${initialMs})`);
  if (options.reconcile !== undefined && typeof options.reconcile !== "boolean") {
    fail("reconcile", "must be true or false");
  }
  for (const key of ["sleep", "log", "now"] as const) {
    if (options[key] !== undefined && typeof options[key] !== "function") fail(key, "must be a function");
  }
  return {
    origin: url.origin,
    address: url.host,
    apiKey: options.apiKey,
    instances: names("instances", options.instances),
    kinds: kinds(events),
    events,
    reconcile: options.reconcile ?? true,
    initialMs,
    maxMs,
    connectTimeoutMs: timerMs(WHERE, "connectTimeoutMs", options.connectTimeoutMs, 10_000),
    sleep: options.sleep ?? abortableSleep,
    log: options.log ?? ((line) => console.error(line)),
    now: options.now ?? Date.now,
  };
}
