import { InstanceDisconnectedException } from "../errors.ts";
import type { StateEntry, StateStore } from "../store/state.ts";
import { disconnectReason } from "./disconnect_reason.ts";
import { positiveNumber } from "../util/checks.ts";
import { compact } from "../util/json_shape.ts";
import {
  type Admission,
  type HealthSource,
  type InstanceHealthOptions,
  type InstanceHealthRecord,
  InstanceKeys,
  type InstanceRef,
  refOf,
} from "./health_types.ts";
import { closedBreaker, type HealthStored, refusal, viewOf } from "./health_record.ts";

type Stored = HealthStored;

const NAMESPACE = "health";

/** A state store that can read at once (`MemoryState.getNow`). */
interface SyncState {
  getNow<T>(namespace: string, key: string): Readonly<StateEntry<T>> | null;
}
const CAS_ATTEMPTS = 8;

/**
 * Instance health (from `connection.update`, send outcomes and polls) and the per-instance breaker, over a
 * `StateStore` processes may share. The breaker opens on `suspect` (two "Connection Closed" sends in a row),
 * `closed` or `banned`: sends then fail at once (`InstanceDisconnectedException`, `local: true`). After the
 * cooldown one caller probes (its send, or a state poll for pairing or a ban); a failed probe doubles it.
 *
 * @example
 * ```ts
 * import { MemoryState } from "@gw/gateway";
 * import { InstanceHealth } from "@gw/gateway/delivery";
 * const health = new InstanceHealth(new MemoryState());
 * const sales = { connection: "default", instance: "sales" };
 * await health.recordConnectionUpdate(sales, { state: "close", statusReason: 403 });
 * const record = await health.get(sales);
 * console.log(record.status, record.breaker, record.reason?.kind); // "banned" "open" "stop"
 * ```
 */
export class InstanceHealth {
  readonly #state: StateStore;
  /** A synchronous read of the state, when it has one (`MemoryState`). */
  readonly #readNow?: (key: string) => Readonly<StateEntry<Stored>> | null;
  readonly #now: () => number;
  /** State keys by connection and instance: the breaker reads one on every send, built once each. */
  readonly #keys = new InstanceKeys();
  readonly #threshold: number;
  readonly #cooldownMs: number;
  readonly #maxCooldownMs: number;
  readonly #probeTimeoutMs: number;

  /** Build over a state store. */
  constructor(state: StateStore, options: InstanceHealthOptions = {}) {
    this.#state = state;
    const sync = state as Partial<SyncState>;
    if (typeof sync.getNow === "function") {
      this.#readNow = (key) => sync.getNow!<Stored>(NAMESPACE, key);
    }
    this.#now = options.now ?? Date.now;
    this.#threshold = positiveNumber(
      "Cannot create instance health",
      "failureThreshold",
      options.failureThreshold,
      2,
    );
    this.#cooldownMs = positiveNumber(
      "Cannot create instance health",
      "cooldownMs",
      options.cooldownMs,
      30_000,
    );
    this.#maxCooldownMs = positiveNumber(
      "Cannot create instance health",
      "maxCooldownMs",
      options.maxCooldownMs,
      600_000,
    );
    this.#probeTimeoutMs = positiveNumber(
      "Cannot create instance health",
      "probeTimeoutMs",
      options.probeTimeoutMs,
      60_000,
    );
  }

  /** The instance's health (`unknown` when nothing was recorded). */
  get(ref: InstanceRef): Promise<InstanceHealthRecord> {
    // A chain, not an async method: an async layer costs more than the read on a fast round trip.
    let read: Promise<StateEntry<Stored> | null>;
    try {
      read = this.#state.get<Stored>(NAMESPACE, this.#keys.of(ref));
    } catch (error) {
      return Promise.reject(error);
    }
    return read.then((entry) => viewOf(ref, entry?.value, this.#now()));
  }

  /**
   * The closed breaker read at once (`clean`: known open, no failure); undefined when it is not closed or the
   * store reads only asynchronously (ask {@link InstanceHealth.admit} then).
   */
  breakerNow(ref: InstanceRef): "clean" | "closed" | undefined {
    const readNow = this.#readNow;
    if (readNow === undefined) return undefined;
    const value = readNow(this.#keys.of(ref))?.value;
    if (value === undefined) return "closed";
    if (value.retryAt !== undefined) return undefined;
    return value.status === "open" && value.consecutiveFailures === 0 ? "clean" : "closed";
  }

  /** Every recorded instance, optionally of one connection. */
  async list(options: { connection?: string } = {}): Promise<InstanceHealthRecord[]> {
    const prefix = options.connection === undefined
      ? undefined
      : `${encodeURIComponent(options.connection)}/`;
    const entries = await this.#state.list<Stored>(NAMESPACE, { prefix });
    const now = this.#now();
    return entries.map((entry) => viewOf(refOf(entry.key), entry.value, now));
  }

  /**
   * Record a `connection.update` (webhook): `open` heals, `connecting` is noted, `close` and `refused`
   * open the breaker with the reason (`banned` for a `stop` reason such as 403).
   */
  async recordConnectionUpdate(
    ref: InstanceRef,
    update: { state?: string; statusReason?: number },
  ): Promise<InstanceHealthRecord> {
    return await this.#observe(ref, update.state, update.statusReason, "webhook");
  }

  /** Record a polled state (`open` does not clear `suspect`: only a send or a `connection.update` does). */
  async recordState(
    ref: InstanceRef,
    state: string,
    reasonCode?: number | null,
  ): Promise<InstanceHealthRecord> {
    return await this.#observe(ref, state, reasonCode ?? undefined, "poll");
  }

  /** Record a send the server accepted: the instance is open and the breaker closes. */
  async recordSendSuccess(ref: InstanceRef): Promise<void> {
    const entry = await this.#state.get<Stored>(NAMESPACE, this.#keys.of(ref));
    // The common case writes nothing: an instance already known open with no failures stays as it is.
    if (entry?.value.status === "open" && entry.value.consecutiveFailures === 0) return;
    await this.#update(ref, () => ({ status: "open", consecutiveFailures: 0, source: "send" }));
  }

  /** Record a failed send: only the server's disconnects count, `failureThreshold` in a row open the breaker. */
  async recordSendFailure(ref: InstanceRef, error: unknown): Promise<void> {
    if (!(error instanceof InstanceDisconnectedException) || error.local) return;
    const now = this.#now();
    await this.#update(ref, (current) => {
      const failures = current.consecutiveFailures + 1;
      const probing = current.retryAt !== undefined;
      if (!probing && failures < this.#threshold) {
        return { consecutiveFailures: failures, lastError: error.message, source: "send" };
      }
      const cooldown = probing
        ? Math.min(this.#maxCooldownMs, (current.cooldownMs ?? this.#cooldownMs) * 2)
        : this.#cooldownMs;
      const down = current.status === "closed" || current.status === "banned";
      return {
        status: down ? current.status : "suspect",
        consecutiveFailures: failures,
        lastError: error.message,
        retryAt: down && current.probe === "state" ? current.retryAt : now + cooldown,
        probe: down ? current.probe ?? "send" : "send",
        cooldownMs: cooldown,
        probeUntil: undefined,
        source: "send",
      };
    });
  }

  /**
   * Ask before a send: `pass`, `probe_send` (the send is the probe) or `probe_state` (poll first); throws
   * `InstanceDisconnectedException` (`local: true`) while the breaker is open or another caller probes.
   */
  async admit(ref: InstanceRef): Promise<Admission> {
    for (let attempt = 0; attempt < CAS_ATTEMPTS; attempt++) {
      const entry = await this.#state.get<Stored>(NAMESPACE, this.#keys.of(ref));
      const value = entry?.value;
      if (!value || value.retryAt === undefined) return "pass";
      const now = this.#now();
      if (value.retryAt === null || now < value.retryAt || (value.probeUntil ?? 0) > now) {
        throw refusal(ref, value);
      }
      const claimed: Stored = { ...value, probeUntil: now + this.#probeTimeoutMs };
      const version = await this.#state.set(NAMESPACE, this.#keys.of(ref), claimed, {
        expectedVersion: entry!.version,
      });
      if (version !== null) return value.probe === "state" ? "probe_state" : "probe_send";
    }
    throw refusal(ref, (await this.#state.get<Stored>(NAMESPACE, this.#keys.of(ref)))?.value);
  }

  /** Forget an instance's health (its breaker closes). */
  async reset(ref: InstanceRef): Promise<void> {
    await this.#state.delete(NAMESPACE, this.#keys.of(ref));
  }

  async #observe(
    ref: InstanceRef,
    state: string | undefined,
    code: number | undefined,
    source: HealthSource,
  ): Promise<InstanceHealthRecord> {
    const now = this.#now();
    const reason = code !== undefined && code !== 200 ? disconnectReason(code) : undefined;
    return await this.#update(ref, (current) => {
      if (state === "open") {
        // A poll cannot clear `suspect`: that instance says open while its sends fail.
        if (source === "poll" && current.status === "suspect") return {};
        return { status: "open", consecutiveFailures: 0, reason: undefined, source };
      }
      if (state === "connecting") return { status: "connecting", source, ...closedBreaker() };
      if (state === "close" || state === "refused") {
        const known = reason ?? current.reason;
        const banned = known?.kind === "stop" && known.code !== 440;
        // Pairing or a ban is not healed by time: the probe is a state poll, the first one after a cooldown.
        const byState = known !== undefined && known.kind !== "transient";
        // Still down after a probe: wait twice as long before the next one.
        const cooldown = current.retryAt !== undefined && current.cooldownMs !== undefined
          ? Math.min(this.#maxCooldownMs, current.cooldownMs * 2)
          : this.#cooldownMs;
        return {
          status: banned ? "banned" : "closed",
          reason: known,
          retryAt: now + cooldown,
          probe: byState ? "state" : "send",
          cooldownMs: cooldown,
          probeUntil: undefined,
          source,
        };
      }
      return {};
    });
  }

  async #update(
    ref: InstanceRef,
    change: (current: Stored) => Partial<Stored>,
  ): Promise<InstanceHealthRecord> {
    const key = this.#keys.of(ref);
    for (let attempt = 0; attempt < CAS_ATTEMPTS; attempt++) {
      const entry = await this.#state.get<Stored>(NAMESPACE, key);
      const current: Stored = entry?.value ??
        { status: "unknown", consecutiveFailures: 0, updatedAt: this.#now(), source: "poll" };
      const patch = change(current);
      if (Object.keys(patch).length === 0) return viewOf(ref, entry?.value, this.#now());
      let next: Stored = { ...current, ...patch, updatedAt: this.#now() };
      if (next.status === "open") next = { ...next, ...closedBreaker() };
      next = compact(next);
      const version = await this.#state.set(NAMESPACE, key, next, {
        expectedVersion: entry ? entry.version : null,
      });
      if (version !== null) return viewOf(ref, next, this.#now());
    }
    throw new Error(`Cannot record health of instance "${ref.instance}": too many concurrent writes`);
  }
}
