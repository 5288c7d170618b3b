import { InstanceDisconnectedException } from "../errors.ts";
import { cliCommand } from "../errors/command_hint.ts";
import type { DisconnectReason } from "./disconnect_reason.ts";
import type {
  HealthSource,
  InstanceHealthRecord,
  InstanceHealthStatus,
  InstanceRef,
} from "./health_types.ts";

/** One instance's stored health. */
export interface HealthStored {
  status: InstanceHealthStatus;
  reason?: DisconnectReason;
  consecutiveFailures: number;
  lastError?: string;
  /** Breaker open: when a probe may go; null: no probe by time (only an open state heals it). */
  retryAt?: number | null;
  /** Breaker open: how the probe is made. */
  probe?: "send" | "state";
  /** Cooldown used for the last opening, doubled on each failed probe. */
  cooldownMs?: number;
  /** A probe claimed by a caller until then. */
  probeUntil?: number;
  updatedAt: number;
  source: HealthSource;
}

/** The refusal of a send while the breaker is open: why, until when, and the command that helps. */
export function refusal(ref: InstanceRef, value: HealthStored | undefined): InstanceDisconnectedException {
  const status = value?.status ?? "unknown";
  const why = value?.reason
    ? `: ${value.reason.description} (statusReason ${value.reason.code})`
    : value?.lastError
    ? `: ${value.consecutiveFailures} sends failed in a row ("${value.lastError}")`
    : "";
  const when = typeof value?.retryAt === "number"
    ? `; next try after ${new Date(value.retryAt).toISOString()}`
    : "";
  // The next command: a closed instance needs pairing; otherwise look at what the server says.
  const next = status === "closed"
    ? `pair it: ${cliCommand(`connect ${ref.instance}`)}`
    : `check it: ${cliCommand(`status ${ref.instance}`)}`;
  return new InstanceDisconnectedException(
    `Cannot send: instance "${ref.instance}" is ${status}${why}; message not sent${when} (${next})`,
    {
      connection: ref.connection,
      instance: ref.instance,
      local: true,
      disconnect: value?.reason,
      retryAt: typeof value?.retryAt === "number" ? value.retryAt : undefined,
    },
  );
}

/** The public view of a stored record at `now` (the breaker half-open once its probe may go). */
export function viewOf(ref: InstanceRef, value: HealthStored | undefined, now: number): InstanceHealthRecord {
  const record: InstanceHealthRecord = {
    connection: ref.connection,
    instance: ref.instance,
    status: value?.status ?? "unknown",
    breaker: "closed",
    consecutiveFailures: value?.consecutiveFailures ?? 0,
    updatedAt: value?.updatedAt ?? 0,
    source: value?.source ?? "poll",
  };
  if (value?.reason) record.reason = value.reason;
  if (value?.lastError) record.lastError = value.lastError;
  if (value?.retryAt !== undefined) {
    const probing = (value.probeUntil ?? 0) > now;
    record.breaker = value.retryAt !== null && now >= value.retryAt && !probing ? "half_open" : "open";
    if (value.retryAt !== null) record.retryAt = value.retryAt;
    record.probe = value.probe ?? "send";
  }
  return record;
}

/** The fields of an open breaker, cleared. */
export function closedBreaker(): Partial<HealthStored> {
  return { retryAt: undefined, probe: undefined, cooldownMs: undefined, probeUntil: undefined };
}
