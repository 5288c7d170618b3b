/**
 * Rules the stores share so that they behave alike: record checks, updates, oldest-first order, `settle`.
 *
 * @module
 */

import type {
  InboundMessageRecord,
  InstanceSnapshot,
  OutboundMessageRecord,
  OutboundStatus,
  RecordKind,
  WebhookLogRecord,
  WebhookLogStatus,
} from "./store.ts";

const OUTBOUND_STATUSES: readonly OutboundStatus[] = ["pending", "sent", "failed"];
const WEBHOOK_STATUSES: readonly WebhookLogStatus[] = ["received", "processed", "failed", "duplicate"];

/** The changes `updateOutbound` accepts. */
export type OutboundChanges = Partial<Omit<OutboundMessageRecord, "id" | "createdAt">>;

/** A shallow copy without `undefined` properties (KV keeps them, JSON drops them: the stores agree). */
export function withoutUndefined<T extends object>(record: T): T {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(record)) {
    if (value !== undefined) out[key] = value;
  }
  return out as T;
}

/**
 * A deep copy of a record for the memory engines, so a caller never shares objects with what is stored.
 * Plain objects and arrays (all of a record, JSON bodies included) are copied by hand, cheaper than
 * `structuredClone` on the send path (bench/README.md, "Bot: cost per update"); anything else (a `Date`, a
 * typed array, a structure deeper than any record) goes through `structuredClone`. `undefined` properties
 * are kept, as `structuredClone` keeps them.
 */
export function copyRecord<T>(value: T, depth = 0): T {
  if (value === null || typeof value !== "object") return value;
  if (depth > 32) return structuredClone(value); // deeper than a record gets: cycles are structuredClone's
  if (Array.isArray(value)) {
    const items = new Array(value.length);
    for (let i = 0; i < value.length; i++) items[i] = copyRecord(value[i], depth + 1);
    return items as T;
  }
  const prototype = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) return structuredClone(value);
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const item = copyRecord((value as Record<string, unknown>)[key], depth + 1);
    // A "__proto__" key (JSON.parse makes one) stays a property: assigning it would set the prototype.
    if (key === "__proto__") {
      Object.defineProperty(out, key, { value: item, enumerable: true, writable: true, configurable: true });
    } else out[key] = item;
  }
  return out as T;
}

function requireText(kind: string, field: string, value: unknown): void {
  if (typeof value !== "string" || value === "") {
    throw new TypeError(`Cannot save ${kind} record: "${field}" must be a non-empty string`);
  }
}

function requireTime(kind: string, field: string, value: unknown): void {
  if (typeof value !== "number" || !Number.isFinite(value)) {
    throw new TypeError(
      `Cannot save ${kind} record: "${field}" must be a finite number, got "${String(value)}"`,
    );
  }
}

/** Throw a `TypeError` when an outbound record cannot be indexed. */
export function checkOutbound(record: OutboundMessageRecord): void {
  requireText("outbound", "id", record.id);
  requireText("outbound", "instance", record.instance);
  requireTime("outbound", "createdAt", record.createdAt);
  requireTime("outbound", "updatedAt", record.updatedAt);
  if (!OUTBOUND_STATUSES.includes(record.status)) {
    throw new TypeError(`Cannot save outbound record: unknown status "${String(record.status)}"`);
  }
}

/** Throw a `TypeError` when an inbound record cannot be indexed. */
export function checkInbound(record: InboundMessageRecord): void {
  requireText("inbound", "id", record.id);
  requireText("inbound", "instance", record.instance);
  requireTime("inbound", "receivedAt", record.receivedAt);
}

/** Throw a `TypeError` when a webhook log cannot be indexed. */
export function checkWebhookLog(record: WebhookLogRecord): void {
  requireText("webhook log", "id", record.id);
  requireTime("webhook log", "receivedAt", record.receivedAt);
  if (!WEBHOOK_STATUSES.includes(record.status)) {
    throw new TypeError(`Cannot save webhook log record: unknown status "${String(record.status)}"`);
  }
}

/** Throw a `TypeError` when an instance snapshot cannot be indexed. */
export function checkSnapshot(record: InstanceSnapshot): void {
  requireText("instance snapshot", "connection", record.connection);
  requireText("instance snapshot", "instance", record.instance);
  requireTime("instance snapshot", "updatedAt", record.updatedAt);
}

/**
 * The record after an update. `id` and `createdAt` never change, and `updatedAt` always moves forward
 * (at least by 1 ms) so that a compare-and-set on it can never succeed twice for the same version.
 */
export function applyOutboundChanges(
  current: OutboundMessageRecord,
  changes: OutboundChanges,
  now: number,
): OutboundMessageRecord {
  const next = withoutUndefined({
    ...current,
    ...changes,
    id: current.id,
    createdAt: current.createdAt,
  }) as OutboundMessageRecord;
  // `{ lastError: undefined }` in the changes removes the field: withoutUndefined dropped it above.
  next.updatedAt = Math.max(changes.updatedAt ?? now, current.updatedAt + 1);
  return next;
}

/** The time `prune` compares for each kind. */
export const PRUNE_TIME_FIELD: Readonly<Record<RecordKind, string>> = {
  outbound: "createdAt",
  inbound: "receivedAt",
  webhook_logs: "receivedAt",
  instances: "updatedAt",
};

/** Throw a `RangeError` unless `before` is a usable time. */
export function checkPruneTime(before: number): void {
  if (typeof before !== "number" || Number.isNaN(before)) {
    throw new RangeError(`Cannot prune records: "before" must be a time in ms, got "${String(before)}"`);
  }
}

/**
 * Compare strings in Unicode code point order, which is the UTF-8 byte order Deno KV sorts keys by
 * (plain `<` compares UTF-16 code units and differs for characters outside the BMP).
 */
export function compareText(a: string, b: string): number {
  if (a === b) return 0;
  const left = a[Symbol.iterator]();
  const right = b[Symbol.iterator]();
  while (true) {
    const x = left.next();
    const y = right.next();
    if (x.done) return y.done ? 0 : -1;
    if (y.done) return 1;
    const cx = x.value.codePointAt(0)!;
    const cy = y.value.codePointAt(0)!;
    if (cx !== cy) return cx < cy ? -1 : 1;
  }
}

/** Compare sort keys made of numbers and strings, part by part (the KV key order for these parts). */
export function compareParts(a: readonly (string | number)[], b: readonly (string | number)[]): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const x = a[i];
    const y = b[i];
    if (typeof x === "number" && typeof y === "number") {
      if (x !== y) return x < y ? -1 : 1;
    } else {
      const order = compareText(String(x), String(y));
      if (order !== 0) return order;
    }
  }
  return a.length - b.length;
}

/** A list `limit`: undefined means no limit; anything but a non-negative integer is refused. */
export function checkLimit(limit: number | undefined): number {
  if (limit === undefined) return Infinity;
  if (!Number.isInteger(limit) || limit < 0) {
    throw new RangeError(
      `Cannot list records: "limit" must be a non-negative integer, got "${String(limit)}"`,
    );
  }
  return limit;
}

/** A synchronous step as a promise: its value, or its error as a rejection (never a throw). */
export function settle<T>(work: () => T): Promise<T> {
  try {
    return Promise.resolve(work());
  } catch (error) {
    return Promise.reject(error);
  }
}
