/**
 * `MemoryStore`: a `GatewayStore` in process memory (tests, runtimes without Deno KV).
 *
 * @module
 */

import { checkOptionKeys } from "../../option_keys.ts";
import { MemoryState } from "./state.ts";
import {
  applyOutboundChanges,
  checkInbound,
  checkLimit,
  checkOutbound,
  checkPruneTime,
  checkSnapshot,
  checkWebhookLog,
  compareParts,
  copyRecord,
  settle,
  withoutUndefined,
} from "../../store/records.ts";
import type * as store from "../../store/store.ts";

/** Options of {@link MemoryStore}. */
export interface MemoryStoreOptions {
  /** Clock in epoch ms, used when an update gives no `updatedAt` (default `Date.now`). */
  now?: () => number;
}

// Two-part map keys; NUL cannot appear in instance or connection names the server accepts.
function pairKey(a: string, b: string): string {
  return `${a}\u0000${b}`;
}

// Runs `work` at once (so each operation stays atomic) and turns a throw into a rejection, like an async
// store would.
/**
 * A {@link GatewayStore} kept in memory. Every method works on copies, so callers never change stored
 * records by mutating what they passed or got back. It behaves like `KvStore` (same order, same
 * compare-and-set rule), which the shared contract tests check.
 *
 * @example Recording a send and finding it again
 * ```ts
 * import { MemoryStore } from "@gw/gateway";
 * const store = new MemoryStore();
 * await store.saveOutbound({
 *   id: "r1", connection: "default", instance: "sales", recipient: "5511999999999", type: "text",
 *   route: "/message/sendText/{instance}", body: { number: "5511999999999", text: "hi" },
 *   status: "failed", outcomeUnknown: false, retryCount: 0, createdAt: 1, updatedAt: 1,
 * });
 * const failed = await store.listOutbound({ status: "failed" });
 * console.log(failed.length); // 1
 * ```
 */
export class MemoryStore implements store.GatewayStore {
  readonly #now: () => number;
  readonly #outbound = new Map<string, store.OutboundMessageRecord>();
  readonly #inbound = new Map<string, store.InboundMessageRecord>();
  readonly #webhookLogs = new Map<string, store.WebhookLogRecord>();
  readonly #instances = new Map<string, store.InstanceSnapshot>();
  /** Shared key/value state, in this process. */
  readonly state: MemoryState;

  /** Create an empty store. */
  constructor(options: MemoryStoreOptions = {}) {
    checkOptionKeys(options, { now: true }, "new MemoryStore");
    this.#now = options.now ?? Date.now;
    this.state = new MemoryState({ now: this.#now });
  }

  /** Create or replace an outbound record. */
  saveOutbound(record: store.OutboundMessageRecord): Promise<void> {
    return settle(() => {
      checkOutbound(record);
      this.#outbound.set(record.id, copyRecord(withoutUndefined(record)));
    });
  }

  /** Read an outbound record by its local id. */
  getOutbound(id: string): Promise<store.OutboundMessageRecord | null> {
    return settle(() => copyOrNull(this.#outbound.get(id)));
  }

  /** Apply changes only while `updatedAt` equals `expectedUpdatedAt` (when given); each version once. */
  updateOutbound(
    id: string,
    changes: Partial<Omit<store.OutboundMessageRecord, "id" | "createdAt">>,
    expectedUpdatedAt?: number,
  ): Promise<store.OutboundMessageRecord | null> {
    return settle(() => {
      const current = this.#outbound.get(id);
      if (current === undefined) return null;
      if (expectedUpdatedAt !== undefined && current.updatedAt !== expectedUpdatedAt) return null;
      const next = applyOutboundChanges(current, copyRecord(changes), this.#now());
      checkOutbound(next);
      this.#outbound.set(id, next);
      return copyRecord(next);
    });
  }

  /** List outbound records, oldest first (`createdAt`, then `id`). */
  listOutbound(query: store.OutboundQuery = {}): Promise<store.OutboundMessageRecord[]> {
    return settle(() => {
      const limit = checkLimit(query.limit);
      const after = query.startAfter;
      const found = [...this.#outbound.values()].filter((record) =>
        (query.status === undefined || record.status === query.status) &&
        (query.instance === undefined || record.instance === query.instance) &&
        (query.createdBefore === undefined || record.createdAt < query.createdBefore) &&
        (after === undefined || compareParts([record.createdAt, record.id], [after.createdAt, after.id]) > 0)
      );
      found.sort((a, b) => compareParts([a.createdAt, a.id], [b.createdAt, b.id]));
      return found.slice(0, limit).map((record) => copyRecord(record));
    });
  }

  /** Store an inbound message; a second save of the same instance and id is ignored. */
  saveInbound(record: store.InboundMessageRecord): Promise<void> {
    return settle(() => {
      checkInbound(record);
      const key = pairKey(record.instance, record.id);
      if (!this.#inbound.has(key)) this.#inbound.set(key, copyRecord(withoutUndefined(record)));
    });
  }

  /** Read an inbound message. */
  getInbound(instance: string, id: string): Promise<store.InboundMessageRecord | null> {
    return settle(() => copyOrNull(this.#inbound.get(pairKey(instance, id))));
  }

  /** Create or replace a webhook log. */
  saveWebhookLog(record: store.WebhookLogRecord): Promise<void> {
    return settle(() => {
      checkWebhookLog(record);
      this.#webhookLogs.set(record.id, copyRecord(withoutUndefined(record)));
    });
  }

  /** Read a webhook log. */
  getWebhookLog(id: string): Promise<store.WebhookLogRecord | null> {
    return settle(() => copyOrNull(this.#webhookLogs.get(id)));
  }

  /** List webhook logs, oldest first (`receivedAt`, then `id`), optionally with one status. */
  listWebhookLogs(
    query: { status?: store.WebhookLogStatus; limit?: number } = {},
  ): Promise<store.WebhookLogRecord[]> {
    return settle(() => {
      const limit = checkLimit(query.limit);
      const found = [...this.#webhookLogs.values()].filter((record) =>
        query.status === undefined || record.status === query.status
      );
      found.sort((a, b) => compareParts([a.receivedAt, a.id], [b.receivedAt, b.id]));
      return found.slice(0, limit).map((record) => copyRecord(record));
    });
  }

  /** Create or replace an instance snapshot. */
  saveInstanceSnapshot(snapshot: store.InstanceSnapshot): Promise<void> {
    return settle(() => {
      checkSnapshot(snapshot);
      const key = pairKey(snapshot.connection, snapshot.instance);
      this.#instances.set(key, copyRecord(withoutUndefined(snapshot)));
    });
  }

  /** Read an instance snapshot. */
  getInstanceSnapshot(connection: string, instance: string): Promise<store.InstanceSnapshot | null> {
    return settle(() => copyOrNull(this.#instances.get(pairKey(connection, instance))));
  }

  /** Remove (or with `dryRun` only count) records of `kind` strictly older than `before`. */
  prune(kind: store.RecordKind, before: number, options: { dryRun?: boolean } = {}): Promise<number> {
    return settle(() => {
      checkPruneTime(before);
      const dryRun = options.dryRun === true;
      switch (kind) {
        case "outbound":
          return pruneMap(this.#outbound, (r) => r.createdAt < before, dryRun);
        case "inbound":
          return pruneMap(this.#inbound, (r) => r.receivedAt < before, dryRun);
        case "webhook_logs":
          return pruneMap(this.#webhookLogs, (r) => r.receivedAt < before, dryRun);
        case "instances":
          return pruneMap(this.#instances, (r) => r.updatedAt < before, dryRun);
        default:
          throw new TypeError(`Cannot prune records: unknown kind "${String(kind)}"`);
      }
    });
  }
}

function copyOrNull<T>(record: T | undefined): T | null {
  return record === undefined ? null : copyRecord(record);
}

function pruneMap<T>(map: Map<string, T>, old: (record: T) => boolean, dryRun: boolean): number {
  let count = 0;
  for (const [key, record] of map) {
    if (!old(record)) continue;
    count++;
    if (!dryRun) map.delete(key);
  }
  return count;
}
