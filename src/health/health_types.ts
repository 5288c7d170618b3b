import type { DisconnectReason } from "./disconnect_reason.ts";

/**
 * An instance's health: `open` (working), `connecting`, `suspect` (says open but sends fail with
 * "Connection Closed"), `closed` (disconnected; see `reason`), `banned` (restricted by WhatsApp), or
 * `unknown` (nothing seen yet).
 */
export type InstanceHealthStatus = "open" | "connecting" | "suspect" | "closed" | "banned" | "unknown";

/** The breaker: `closed` lets sends through, `open` refuses them locally, `half_open` lets one probe through. */
export type BreakerState = "closed" | "open" | "half_open";

/** Where a health observation came from. */
export type HealthSource = "webhook" | "send" | "poll";

/** One instance's health, as `InstanceHealth.get` and `InstanceHealth.list` answer. */
export interface InstanceHealthRecord {
  /** Connection name. */
  connection: string;
  /** Instance name. */
  instance: string;
  /** The health. */
  status: InstanceHealthStatus;
  /** The breaker's state at read time. */
  breaker: BreakerState;
  /** The last disconnect reason, while the instance is not open. */
  reason?: DisconnectReason;
  /** Sends that failed with a disconnect in a row. */
  consecutiveFailures: number;
  /** The last send failure's message. */
  lastError?: string;
  /** When a probe may go (epoch ms) while the breaker is open; absent when only an `open` state heals it. */
  retryAt?: number;
  /** How a half-open probe is made: the send itself, or a `connectionState` poll first. */
  probe?: "send" | "state";
  /** Last change (epoch ms). */
  updatedAt: number;
  /** What the last change came from. */
  source: HealthSource;
}

/** Options of `InstanceHealth`. */
export interface InstanceHealthOptions {
  /** Clock in epoch ms (default `Date.now`). */
  now?: () => number;
  /** Disconnected sends in a row that make an `open` instance `suspect` and open the breaker (default 2). */
  failureThreshold?: number;
  /** Wait before the first half-open probe, in ms (default 30000); doubled after each failed probe. */
  cooldownMs?: number;
  /** Longest wait between probes, in ms (default 600000). */
  maxCooldownMs?: number;
  /** How long a claimed probe keeps others out, in ms (default 60000). */
  probeTimeoutMs?: number;
}

/** What `InstanceHealth.admit` lets a send do. */
export type Admission = "pass" | "probe_send" | "probe_state";

/** Which instance: the connection name and the instance name. */
export interface InstanceRef {
  /** Connection name. */
  connection: string;
  /** Instance name. */
  instance: string;
}

/** The state key of one instance, `<connection>/<instance>`, escaped (a `/` in a name reaches no other). */
export function instanceKey(ref: InstanceRef): string {
  return `${encodeURIComponent(ref.connection)}/${encodeURIComponent(ref.instance)}`;
}

/** The state key of one instance, `<connection>/<instance>`, escaped (a `/` reaches no other entry). */
export class InstanceKeys {
  readonly #keys = new Map<string, Map<string, string>>();

  /** The state key of `ref`. */
  of(ref: InstanceRef): string {
    let keys = this.#keys.get(ref.connection);
    if (keys === undefined) this.#keys.set(ref.connection, keys = new Map());
    let key = keys.get(ref.instance);
    if (key === undefined) {
      if (keys.size >= 10_000) keys.clear();
      keys.set(ref.instance, key = instanceKey(ref));
    }
    return key;
  }
}

/** The instance a state key names (the reverse of {@link instanceKey}). Internal. */
export function refOf(key: string): InstanceRef {
  const [connection, instance] = key.split("/");
  return { connection: decodeURIComponent(connection), instance: decodeURIComponent(instance ?? "") };
}
