/**
 * `KvStore`: a `GatewayStore` on Deno KV (an SQLite file locally, a distributed store on Deno Deploy).
 *
 * Layout under the prefix (default `["gateway"]`): one `KvTable` per kind (`table.ts`), keyed as
 * `store_tables.ts` says.
 *
 * @module
 */

import { checkOptionKeys } from "../../option_keys.ts";
import { KvState } from "./state.ts";
import { KvTable } from "./table.ts";
import { INBOUND, INSTANCES, OUTBOUND, WEBHOOK_LOGS } from "./store_tables.ts";
import { positiveInteger } from "../../util/checks.ts";
import * as records from "../../store/records.ts";
import type * as store from "../../store/store.ts";

/** Options of {@link KvStore}. */
export interface KvStoreOptions {
  /** Key prefix of every key the store writes (default `["gateway"]`). */
  prefix?: Deno.KvKey;
  /** Clock in epoch ms, used when an update gives no `updatedAt` (default `Date.now`). */
  now?: () => number;
  /**
   * Largest record as JSON (default 16 MiB; records over 16 KiB go in 60 000-byte chunks); larger ones
   * are refused with a `RangeError` (send large media by URL).
   */
  maxRecordBytes?: number;
}

/** The default key prefix. */
const DEFAULT_PREFIX: Deno.KvKey = ["gateway"];
const DEFAULT_MAX_RECORD_BYTES = 16 * 1024 * 1024;
const HARD_MAX_RECORD_BYTES = 32 * 1024 * 1024;
const OUTBOUND_STATUSES: readonly store.OutboundStatus[] = ["pending", "sent", "failed"];

/**
 * A {@link GatewayStore} on Deno KV. Every write of a record and its index keys is one atomic
 * operation guarded by a versionstamp check; lists read an index range (no full scans); `prune` deletes
 * in batches that fit KV's limits on one atomic operation. The store does not own the `Deno.Kv`: close
 * it yourself.
 *
 * Records must be JSON values (the request body, the webhook payload). Records over 16 KiB of JSON are
 * split into chunks, because a KV value holds at most 64 KiB; up to ~480 KB is written in the same atomic
 * operation, larger ones write their first chunks beforehand (a crash in between leaves unreferenced
 * chunks behind, never a broken record).
 *
 * @example Open a KV file and record a send
 * ```ts
 * import { KvStore } from "@gw/gateway";
 * const kv = await Deno.openKv(":memory:");
 * const store = new KvStore(kv, { prefix: ["my-app", "gateway"] });
 * await store.saveOutbound({
 *   id: crypto.randomUUID(), connection: "default", instance: "sales", recipient: "5511999999999",
 *   type: "text", route: "/message/sendText/{instance}", body: { number: "5511999999999", text: "hi" },
 *   status: "pending", outcomeUnknown: false, retryCount: 0, createdAt: Date.now(), updatedAt: Date.now(),
 * });
 * kv.close();
 * ```
 */
export class KvStore implements store.GatewayStore {
  readonly #now: () => number;
  readonly #outbound: KvTable<store.OutboundMessageRecord>;
  readonly #inbound: KvTable<store.InboundMessageRecord>;
  readonly #webhookLogs: KvTable<store.WebhookLogRecord>;
  readonly #instances: KvTable<store.InstanceSnapshot>;
  /** Shared key/value state, in the same KV database under the same prefix. */
  readonly state: KvState;

  /** Wrap an open `Deno.Kv`. */
  constructor(kv: Deno.Kv, options: KvStoreOptions = {}) {
    checkOptionKeys(options, { prefix: true, now: true, maxRecordBytes: true }, "new KvStore");
    const prefix = options.prefix ?? DEFAULT_PREFIX;
    const max = positiveInteger(
      "Cannot create KvStore",
      "maxRecordBytes",
      options.maxRecordBytes,
      DEFAULT_MAX_RECORD_BYTES,
      HARD_MAX_RECORD_BYTES,
    );
    this.#now = options.now ?? Date.now;
    this.#outbound = new KvTable(kv, prefix, OUTBOUND, max);
    this.#inbound = new KvTable(kv, prefix, INBOUND, max);
    this.#webhookLogs = new KvTable(kv, prefix, WEBHOOK_LOGS, max);
    this.#instances = new KvTable(kv, prefix, INSTANCES, max);
    this.state = new KvState(kv, { prefix, now: this.#now });
  }

  /** Create or replace an outbound record (with its index keys, atomically). */
  async saveOutbound(record: store.OutboundMessageRecord): Promise<void> {
    records.checkOutbound(record);
    await this.#outbound.save(records.withoutUndefined(record));
  }

  /** Read an outbound record by its local id. */
  getOutbound(id: string): Promise<store.OutboundMessageRecord | null> {
    return this.#outbound.get([id]);
  }

  /**
   * Apply changes only if the record's `updatedAt` still equals `expectedUpdatedAt` (when given), as one
   * atomic compare-and-set: of two concurrent callers with the same expectation, exactly one succeeds.
   * `updatedAt` always moves forward.
   */
  async updateOutbound(
    id: string,
    changes: Partial<Omit<store.OutboundMessageRecord, "id" | "createdAt">>,
    expectedUpdatedAt?: number,
  ): Promise<store.OutboundMessageRecord | null> {
    const now = this.#now();
    return await this.#outbound.update([id], (current) => {
      if (expectedUpdatedAt !== undefined && current.updatedAt !== expectedUpdatedAt) return null;
      const next = records.applyOutboundChanges(current, changes, now);
      records.checkOutbound(next);
      return next;
    });
  }

  /** List outbound records, oldest first (`createdAt`, then `id`). */
  async listOutbound(query: store.OutboundQuery = {}): Promise<store.OutboundMessageRecord[]> {
    const limit = records.checkLimit(query.limit);
    const range = {
      before: query.createdBefore,
      after: query.startAfter === undefined ? undefined : [query.startAfter.createdAt, query.startAfter.id],
    };
    if (query.instance !== undefined && query.status !== undefined) {
      return await this.#outbound.list(["by_instance_status", query.instance, query.status], range, limit);
    }
    if (query.status !== undefined) {
      return await this.#outbound.list(["by_status", query.status], range, limit);
    }
    if (query.instance === undefined) return await this.#outbound.list(["by_time"], range, limit);
    // One instance, any status: merge the three status ranges, each already oldest first.
    const instance = query.instance;
    const lists = await Promise.all(
      OUTBOUND_STATUSES.map((status) =>
        this.#outbound.list(["by_instance_status", instance, status], range, limit)
      ),
    );
    return lists.flat()
      .sort((a, b) => records.compareParts([a.createdAt, a.id], [b.createdAt, b.id]))
      .slice(0, limit);
  }

  /** Store an inbound message; a second save of the same instance and id is ignored. */
  async saveInbound(record: store.InboundMessageRecord): Promise<void> {
    records.checkInbound(record);
    await this.#inbound.save(records.withoutUndefined(record), { ifAbsent: true });
  }

  /** Read an inbound message. */
  getInbound(instance: string, id: string): Promise<store.InboundMessageRecord | null> {
    return this.#inbound.get([instance, id]);
  }

  /** Create or replace a webhook log (moving its status index entry atomically). */
  async saveWebhookLog(record: store.WebhookLogRecord): Promise<void> {
    records.checkWebhookLog(record);
    await this.#webhookLogs.save(records.withoutUndefined(record));
  }

  /** Read a webhook log. */
  getWebhookLog(id: string): Promise<store.WebhookLogRecord | null> {
    return this.#webhookLogs.get([id]);
  }

  /** List webhook logs, oldest first (`receivedAt`, then `id`), from the status or time index. */
  async listWebhookLogs(
    query: { status?: store.WebhookLogStatus; limit?: number } = {},
  ): Promise<store.WebhookLogRecord[]> {
    const limit = records.checkLimit(query.limit);
    const index = query.status === undefined ? ["by_time"] : ["by_status", query.status];
    return await this.#webhookLogs.list(index, {}, limit);
  }

  /** Create or replace an instance snapshot. */
  async saveInstanceSnapshot(snapshot: store.InstanceSnapshot): Promise<void> {
    records.checkSnapshot(snapshot);
    await this.#instances.save(records.withoutUndefined(snapshot));
  }

  /** Read an instance snapshot. */
  getInstanceSnapshot(connection: string, instance: string): Promise<store.InstanceSnapshot | null> {
    return this.#instances.get([connection, instance]);
  }

  /**
   * Remove (with `dryRun` only count) records of `kind` older than `before`, by the kind's time
   * (`createdAt` outbound, `receivedAt` inbound and logs, `updatedAt` instances), in batches.
   */
  async prune(kind: store.RecordKind, before: number, options: { dryRun?: boolean } = {}): Promise<number> {
    records.checkPruneTime(before);
    const dryRun = options.dryRun === true;
    switch (kind) {
      case "outbound":
        return await this.#outbound.prune(before, dryRun);
      case "inbound":
        return await this.#inbound.prune(before, dryRun);
      case "webhook_logs":
        return await this.#webhookLogs.prune(before, dryRun);
      case "instances":
        return await this.#instances.prune(before, dryRun);
      default:
        throw new TypeError(`Cannot prune records: unknown kind "${String(kind)}"`);
    }
  }
}
