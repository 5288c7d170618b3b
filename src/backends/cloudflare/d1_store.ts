/**
 * `D1Store`: a `GatewayStore` on Cloudflare D1 (SQLite).
 *
 * @module
 */

import { checkOptionKeys } from "../../option_keys.ts";
import * as records from "../../store/records.ts";
import type * as store from "../../store/store.ts";
import type { StateStore } from "../../store/state.ts";
import type { D1Database } from "./bindings.ts";
import { outboundListQuery, pruneQueries, webhookLogListQuery } from "./d1_queries.ts";
import { D1State } from "./d1_state.ts";
import { d1Runner, sql, type SqlRunner, type SqlStatement } from "./sql.ts";
import { positiveInteger } from "../../util/checks.ts";

/** Options of {@link D1Store}. */
export interface D1StoreOptions {
  /** Clock in epoch ms, used when an update gives no `updatedAt` and for state expiry (default `Date.now`). */
  now?: () => number;
  /** Largest record as JSON (default and most 1 900 000 bytes, under D1's 2 MB row); larger: `RangeError`. */
  maxRecordBytes?: number;
  /** Shared state (default a {@link D1State} on `db`); a `CoordinatorState` keeps claims in objects. */
  state?: StateStore;
}

const MAX_RECORD_BYTES = 1_900_000;
/** Rounds of an update that lost to a concurrent writer before giving up (each re-reads). */
const MAX_ROUNDS = 50;
const encoder = new TextEncoder();

/**
 * A {@link GatewayStore} on D1: one table per kind, each record whole as JSON beside its indexed columns,
 * with the indexes `KvStore` keeps as keys (`outbound`: by time, by status, by instance and status;
 * `inbound`, `webhook_logs` (also by status), `instances`: by time). Lists are index range reads in the same
 * oldest-first order (time, then id in UTF-8 byte order); `updateOutbound` is a compare-and-set on a
 * revision column, re-read and re-applied when another writer got there first; `prune` deletes in batches
 * of 500 rows. `store.state` is a {@link D1State} on the same database.
 *
 * The tables come from the shipped migration: {@link applyD1Migrations} or `wrangler d1 migrations apply`.
 *
 * @example A Worker recording sends in D1
 * ```ts
 * import { GatewayService } from "@gw/gateway";
 * import { type D1Database, D1Store } from "@gw/gateway/cloudflare";
 * interface Env {
 *   DB: D1Database;
 *   GATEWAY_API_URL: string;
 *   GATEWAY_API_KEY: string;
 * }
 * export default {
 *   async fetch(_request: Request, env: Env) {
 *     const store = new D1Store(env.DB);
 *     const gw = GatewayService.make({ server_url: env.GATEWAY_API_URL, api_key: env.GATEWAY_API_KEY, store });
 *     await gw.messages().text("5511999999999", "Hello", {}, { instance: "sales" });
 *     return Response.json(await store.listOutbound({ status: "failed", limit: 10 }));
 *   },
 * };
 * ```
 */
export class D1Store implements store.GatewayStore {
  readonly #run: SqlRunner;
  readonly #now: () => number;
  readonly #maxRecordBytes: number;
  /** Shared key/value state: a {@link D1State} on the same database unless another was given. */
  readonly state: StateStore;

  /** Use `db`, whose tables the migration created. */
  constructor(db: D1Database, options: D1StoreOptions = {}) {
    checkOptionKeys(options, { now: true, maxRecordBytes: true, state: true }, "new D1Store");
    const max = positiveInteger(
      "Cannot create D1Store",
      "maxRecordBytes",
      options.maxRecordBytes,
      MAX_RECORD_BYTES,
      MAX_RECORD_BYTES,
    );
    this.#run = d1Runner(db);
    this.#now = options.now ?? Date.now;
    this.#maxRecordBytes = max;
    this.state = options.state ?? new D1State(db, { now: this.#now });
  }

  #json(label: string, id: string, record: object): string {
    const json = JSON.stringify(records.withoutUndefined(record));
    const bytes = encoder.encode(json).byteLength;
    if (bytes > this.#maxRecordBytes) {
      throw new RangeError(
        `Cannot save ${label} record "${id}": it takes ${bytes} bytes as JSON, ` +
          `more than the ${this.#maxRecordBytes} allowed (maxRecordBytes); send large media by URL`,
      );
    }
    return json;
  }

  async #rows(statement: SqlStatement): Promise<Record<string, unknown>[]> {
    return (await this.#run([statement]))[0];
  }

  async #records<T>(statement: SqlStatement): Promise<T[]> {
    return (await this.#rows(statement)).map((row) => JSON.parse(String(row.record)) as T);
  }

  async #record<T>(statement: SqlStatement): Promise<T | null> {
    return (await this.#records<T>(statement))[0] ?? null;
  }

  /** Create or replace an outbound record. */
  async saveOutbound(record: store.OutboundMessageRecord): Promise<void> {
    records.checkOutbound(record);
    const json = this.#json("outbound", record.id, record);
    await this.#run([
      sql(
        "INSERT INTO gateway_outbound (id, instance, status, created_at, revision, record) VALUES (?, ?, ?, ?, 0, ?) " +
          "ON CONFLICT (id) DO UPDATE SET instance = excluded.instance, status = excluded.status, " +
          "created_at = excluded.created_at, revision = gateway_outbound.revision + 1, record = excluded.record",
        record.id,
        record.instance,
        record.status,
        record.createdAt,
        json,
      ),
    ]);
  }

  /** Read an outbound record by its local id. */
  getOutbound(id: string): Promise<store.OutboundMessageRecord | null> {
    return this.#record(sql("SELECT record FROM gateway_outbound WHERE id = ?", id));
  }

  /**
   * Apply changes only if the record's `updatedAt` still equals `expectedUpdatedAt` (when given); the write
   * is guarded by the revision read, so a concurrent change makes it re-read (and, with an expectation,
   * answer null).
   */
  async updateOutbound(
    id: string,
    changes: Partial<Omit<store.OutboundMessageRecord, "id" | "createdAt">>,
    expectedUpdatedAt?: number,
  ): Promise<store.OutboundMessageRecord | null> {
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const [row] = await this.#rows(sql("SELECT revision, record FROM gateway_outbound WHERE id = ?", id));
      if (row === undefined) return null;
      const current = JSON.parse(String(row.record)) as store.OutboundMessageRecord;
      if (expectedUpdatedAt !== undefined && current.updatedAt !== expectedUpdatedAt) return null;
      const next = records.applyOutboundChanges(current, structuredClone(changes), this.#now());
      records.checkOutbound(next);
      const written = await this.#rows(
        sql(
          "UPDATE gateway_outbound SET instance = ?, status = ?, revision = revision + 1, record = ? " +
            "WHERE id = ? AND revision = ? RETURNING id",
          next.instance,
          next.status,
          this.#json("outbound", id, next),
          id,
          row.revision,
        ),
      );
      if (written.length > 0) return next;
    }
    throw new Error(`Cannot update outbound record "${id}": too many concurrent writers`);
  }

  /** List outbound records, oldest first (`createdAt`, then `id`), through the matching index. */
  async listOutbound(query: store.OutboundQuery = {}): Promise<store.OutboundMessageRecord[]> {
    const limit = records.checkLimit(query.limit);
    if (limit === 0) return [];
    return await this.#records(outboundListQuery(query, limit));
  }

  /** Store an inbound message; a second save of the same instance and id is ignored. */
  async saveInbound(record: store.InboundMessageRecord): Promise<void> {
    records.checkInbound(record);
    await this.#run([
      sql(
        "INSERT INTO gateway_inbound (instance, id, received_at, record) VALUES (?, ?, ?, ?) " +
          "ON CONFLICT (instance, id) DO NOTHING",
        record.instance,
        record.id,
        record.receivedAt,
        this.#json("inbound", record.id, record),
      ),
    ]);
  }

  /** Read an inbound message. */
  getInbound(instance: string, id: string): Promise<store.InboundMessageRecord | null> {
    return this.#record(
      sql("SELECT record FROM gateway_inbound WHERE instance = ? AND id = ?", instance, id),
    );
  }

  /** Create or replace a webhook log. */
  async saveWebhookLog(record: store.WebhookLogRecord): Promise<void> {
    records.checkWebhookLog(record);
    await this.#run([
      sql(
        "INSERT INTO gateway_webhook_logs (id, status, received_at, record) VALUES (?, ?, ?, ?) " +
          "ON CONFLICT (id) DO UPDATE SET status = excluded.status, received_at = excluded.received_at, " +
          "record = excluded.record",
        record.id,
        record.status,
        record.receivedAt,
        this.#json("webhook log", record.id, record),
      ),
    ]);
  }

  /** Read a webhook log. */
  getWebhookLog(id: string): Promise<store.WebhookLogRecord | null> {
    return this.#record(sql("SELECT record FROM gateway_webhook_logs WHERE id = ?", id));
  }

  /** List webhook logs, oldest first (`receivedAt`, then `id`), optionally with one status. */
  async listWebhookLogs(
    query: { status?: store.WebhookLogStatus; limit?: number } = {},
  ): Promise<store.WebhookLogRecord[]> {
    const limit = records.checkLimit(query.limit);
    if (limit === 0) return [];
    return await this.#records(webhookLogListQuery(query.status, limit));
  }

  /** Create or replace an instance snapshot. */
  async saveInstanceSnapshot(snapshot: store.InstanceSnapshot): Promise<void> {
    records.checkSnapshot(snapshot);
    await this.#run([
      sql(
        "INSERT INTO gateway_instances (connection, instance, updated_at, record) VALUES (?, ?, ?, ?) " +
          "ON CONFLICT (connection, instance) DO UPDATE SET updated_at = excluded.updated_at, record = excluded.record",
        snapshot.connection,
        snapshot.instance,
        snapshot.updatedAt,
        this.#json("instance snapshot", `${snapshot.connection}/${snapshot.instance}`, snapshot),
      ),
    ]);
  }

  /** Read an instance snapshot. */
  getInstanceSnapshot(connection: string, instance: string): Promise<store.InstanceSnapshot | null> {
    return this.#record(
      sql("SELECT record FROM gateway_instances WHERE connection = ? AND instance = ?", connection, instance),
    );
  }

  /** Remove (with `dryRun` only count) records of `kind` older than `before`, 500 rows a batch. */
  async prune(kind: store.RecordKind, before: number, options: { dryRun?: boolean } = {}): Promise<number> {
    records.checkPruneTime(before);
    const queries = pruneQueries(kind, before);
    if (options.dryRun === true) return Number((await this.#rows(queries.count))[0].n);
    let total = 0;
    while (true) {
      const deleted = await this.#rows(queries.deleteBatch);
      total += deleted.length;
      if (deleted.length < queries.batch) return total;
    }
  }
}
