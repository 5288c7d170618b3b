/**
 * `RedisStore`: a `GatewayStore` on Redis, shared by every app server that uses the same server and
 * prefix.
 *
 * Layout under the prefix (default `gateway:`), one group per kind:
 *
 * | kind           | record (hash, field `json`)          | indexes (sorted sets, scored by the kind's time)                           |
 * | -------------- | ------------------------------------ | -------------------------------------------------------------------------- |
 * | `outbound`     | `outbound:rec:<id>`                  | `by_time` · `by_status:<status>` · `by_instance:<instance>` · `by_status_instance:<status>:<instance>` |
 * | `inbound`      | `inbound:rec:["<instance>","<id>"]`  | `by_time` (receivedAt)                                                     |
 * | `webhook_logs` | `webhook_logs:rec:<id>`              | `by_time` · `by_status:<status>` (receivedAt)                              |
 * | `instances`    | `instances:rec:["<connection>","<instance>"]` | `by_time` (updatedAt)                                            |
 *
 * Records with the same time are ordered by id in UTF-8 byte order, as Redis orders equal scores.
 *
 * @module
 */

import { checkOptionKeys } from "../../option_keys.ts";
import * as records from "../../store/records.ts";
import type * as store from "../../store/store.ts";
import { REDIS_BACKEND_OPTION_KEYS, type RedisBackendOptions, RedisConnection } from "./connection.ts";
import { RedisState } from "./state.ts";
import { readRecord, scanIndex, score } from "./store_reads.ts";
import { ADD_ONCE, PRUNE, PUT, PUT_OUTBOUND } from "./store_scripts.ts";

/** Options of {@link RedisStore}: the connection, the key prefix, and the clock. */
export type RedisStoreOptions = RedisBackendOptions & {
  /** Clock in epoch ms, used when an update gives no `updatedAt` and by `state` (default `Date.now`). */
  now?: () => number;
};

// Records deleted per round of `prune`.
const BATCH = 200;
const KINDS: readonly store.RecordKind[] = ["outbound", "inbound", "webhook_logs", "instances"];
// Lost compare-and-sets retried by an update without an expected version before it gives up.
const UPDATE_ROUNDS = 32;

/**
 * A {@link GatewayStore} on Redis. Every write of a record and its index entries is one Lua script
 * (atomic); `updateOutbound` is a compare-and-set on `updatedAt`; lists read one index (a sorted set by
 * time), never the whole keyspace; `prune` deletes in batches. `state` is a {@link RedisState} on the same
 * connection and prefix.
 *
 * @example Every app server records into one Redis
 * ```ts
 * import { GatewayService } from "@gw/gateway";
 * import { RedisStore } from "@gw/gateway/redis";
 * const store = new RedisStore({ url: "redis://127.0.0.1:6379", prefix: "myapp:" });
 * const failed = await store.listOutbound({ status: "failed", limit: 50 });
 * await store.close();
 * ```
 */
export class RedisStore implements store.GatewayStore {
  readonly #redis: RedisConnection;
  readonly #now: () => number;
  /** Shared key/value state on the same connection and prefix. */
  readonly state: RedisState;

  /** Connect with `{ url }` (opened on first use) or use `{ client }` (yours). */
  constructor(options: RedisStoreOptions) {
    checkOptionKeys(options, { ...REDIS_BACKEND_OPTION_KEYS, now: true }, "new RedisStore");
    this.#redis = new RedisConnection("RedisStore", options);
    this.#now = options.now ?? Date.now;
    const redis = this.#redis;
    this.state = new RedisState({
      client: { sendCommand: (args: string[]) => redis.command(args) },
      prefix: redis.prefix,
      now: this.#now,
    });
  }

  #base(kind: store.RecordKind): string {
    return `${this.#redis.prefix}${kind}:`;
  }

  /** Create or replace an outbound record. */
  async saveOutbound(record: store.OutboundMessageRecord): Promise<void> {
    records.checkOutbound(record);
    await this.#putOutbound(records.withoutUndefined(record), "save", "");
  }

  #putOutbound(
    record: store.OutboundMessageRecord,
    mode: "save" | "update",
    expected: string,
  ): Promise<number> {
    return PUT_OUTBOUND.run<number>(this.#redis, [], [
      this.#base("outbound"),
      record.id,
      JSON.stringify(record),
      record.status,
      record.instance,
      String(record.createdAt),
      String(record.updatedAt),
      mode,
      expected,
    ]);
  }

  /** Read an outbound record by its local id. */
  getOutbound(id: string): Promise<store.OutboundMessageRecord | null> {
    return readRecord(this.#redis, "outbound", id);
  }

  /**
   * Apply changes only if the record's `updatedAt` still equals `expectedUpdatedAt` (when given); without
   * it, the changes apply to the current record whatever happens meanwhile. `updatedAt` always moves
   * forward, so one version can be claimed only once.
   */
  async updateOutbound(
    id: string,
    changes: Partial<Omit<store.OutboundMessageRecord, "id" | "createdAt">>,
    expectedUpdatedAt?: number,
  ): Promise<store.OutboundMessageRecord | null> {
    for (let round = 0; round < UPDATE_ROUNDS; round++) {
      const current = await this.getOutbound(id);
      if (current === null) return null;
      if (expectedUpdatedAt !== undefined && current.updatedAt !== expectedUpdatedAt) return null;
      const next = records.applyOutboundChanges(current, structuredClone(changes), this.#now());
      records.checkOutbound(next);
      if (await this.#putOutbound(next, "update", String(current.updatedAt)) === 1) return next;
      if (expectedUpdatedAt !== undefined) return null;
    }
    throw new Error(`Cannot update outbound record "${id}": it kept changing under ${UPDATE_ROUNDS} tries`);
  }

  /** List outbound records, oldest first (`createdAt`, then `id`), through one index. */
  async listOutbound(query: store.OutboundQuery = {}): Promise<store.OutboundMessageRecord[]> {
    const limit = records.checkLimit(query.limit);
    const base = this.#base("outbound");
    const index = query.status !== undefined && query.instance !== undefined
      ? `by_status_instance:${query.status}:${query.instance}`
      : query.status !== undefined
      ? `by_status:${query.status}`
      : query.instance !== undefined
      ? `by_instance:${query.instance}`
      : "by_time";
    const after = query.startAfter;
    return await scanIndex<store.OutboundMessageRecord>(this.#redis, "outbound", base + index, {
      min: after === undefined ? "-inf" : score(after.createdAt),
      max: query.createdBefore === undefined ? "+inf" : `(${score(query.createdBefore)}`,
      limit,
      // Index and record are written together, but a record may change between the two reads: check again.
      keep: (record) =>
        (query.status === undefined || record.status === query.status) &&
        (query.instance === undefined || record.instance === query.instance) &&
        (query.createdBefore === undefined || record.createdAt < query.createdBefore) &&
        (after === undefined ||
          records.compareParts([record.createdAt, record.id], [after.createdAt, after.id]) > 0),
    });
  }

  /** Store an inbound message; a second save of the same instance and id is ignored. */
  async saveInbound(record: store.InboundMessageRecord): Promise<void> {
    records.checkInbound(record);
    await ADD_ONCE.run(this.#redis, [], [
      this.#base("inbound"),
      JSON.stringify([record.instance, record.id]),
      JSON.stringify(records.withoutUndefined(record)),
      String(record.receivedAt),
    ]);
  }

  /** Read an inbound message. */
  getInbound(instance: string, id: string): Promise<store.InboundMessageRecord | null> {
    return readRecord(this.#redis, "inbound", JSON.stringify([instance, id]));
  }

  /** Create or replace a webhook log. */
  async saveWebhookLog(record: store.WebhookLogRecord): Promise<void> {
    records.checkWebhookLog(record);
    await PUT.run(this.#redis, [], [
      this.#base("webhook_logs"),
      record.id,
      JSON.stringify(records.withoutUndefined(record)),
      String(record.receivedAt),
      record.status,
    ]);
  }

  /** Read a webhook log. */
  getWebhookLog(id: string): Promise<store.WebhookLogRecord | null> {
    return readRecord(this.#redis, "webhook_logs", id);
  }

  /** List webhook logs, oldest first (`receivedAt`, then `id`), optionally with one status. */
  async listWebhookLogs(
    query: { status?: store.WebhookLogStatus; limit?: number } = {},
  ): Promise<store.WebhookLogRecord[]> {
    const limit = records.checkLimit(query.limit);
    const base = this.#base("webhook_logs");
    return await scanIndex<store.WebhookLogRecord>(
      this.#redis,
      "webhook_logs",
      base + (query.status === undefined ? "by_time" : `by_status:${query.status}`),
      {
        min: "-inf",
        max: "+inf",
        limit,
        keep: (record) => query.status === undefined || record.status === query.status,
      },
    );
  }

  /** Create or replace an instance snapshot. */
  async saveInstanceSnapshot(snapshot: store.InstanceSnapshot): Promise<void> {
    records.checkSnapshot(snapshot);
    await PUT.run(this.#redis, [], [
      this.#base("instances"),
      JSON.stringify([snapshot.connection, snapshot.instance]),
      JSON.stringify(records.withoutUndefined(snapshot)),
      String(snapshot.updatedAt),
      "",
    ]);
  }

  /** Read an instance snapshot. */
  getInstanceSnapshot(connection: string, instance: string): Promise<store.InstanceSnapshot | null> {
    return readRecord(this.#redis, "instances", JSON.stringify([connection, instance]));
  }

  /** Remove (or with `dryRun` only count) records of `kind` strictly older than `before`. */
  async prune(kind: store.RecordKind, before: number, options: { dryRun?: boolean } = {}): Promise<number> {
    records.checkPruneTime(before);
    if (!KINDS.includes(kind)) throw new TypeError(`Cannot prune records: unknown kind "${String(kind)}"`);
    const base = this.#base(kind);
    if (options.dryRun === true) {
      return await this.#redis.command<number>(["ZCOUNT", `${base}by_time`, "-inf", `(${score(before)}`]);
    }
    let deleted = 0;
    while (true) {
      const [seen, removed] = await PRUNE.run<[number, number]>(this.#redis, [], [
        base,
        score(before),
        String(BATCH),
      ]);
      deleted += removed;
      if (seen < BATCH) return deleted;
    }
  }

  /** Close the connection opened from `url` (a given `client` stays open). */
  close(): Promise<void> {
    return this.#redis.close();
  }
}
