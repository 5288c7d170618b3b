/**
 * The SQL of `D1Store`'s index reads and `prune`, in the stores' oldest-first order (time, then id).
 *
 * @module
 */

import type { OutboundQuery, RecordKind, WebhookLogStatus } from "../../store/store.ts";
import { sql, type SqlStatement } from "./sql.ts";

/** Rows deleted per statement by `prune`, so that each statement stays short. */
const PRUNE_BATCH = 500;

const PRUNE: Readonly<Record<RecordKind, { table: string; column: string }>> = {
  outbound: { table: "gateway_outbound", column: "created_at" },
  inbound: { table: "gateway_inbound", column: "received_at" },
  webhook_logs: { table: "gateway_webhook_logs", column: "received_at" },
  instances: { table: "gateway_instances", column: "updated_at" },
};

// Times are finite numbers; an infinite prune bound becomes the largest finite one, which compares the same.
function bound(time: number): number {
  return Math.max(-Number.MAX_VALUE, Math.min(Number.MAX_VALUE, time));
}

// SQLite's LIMIT -1 is "no limit".
function sqlLimit(limit: number): number {
  return Number.isFinite(limit) ? limit : -1;
}

/** The outbound records `query` selects, through the matching index; `limit` is already checked. */
export function outboundListQuery(query: OutboundQuery, limit: number): SqlStatement {
  const where: string[] = [];
  const params: unknown[] = [];
  const add = (clause: string, ...values: unknown[]) => {
    where.push(clause);
    params.push(...values);
  };
  if (query.instance !== undefined) add("instance = ?", query.instance);
  if (query.status !== undefined) add("status = ?", query.status);
  if (query.createdBefore !== undefined) add("created_at < ?", bound(query.createdBefore));
  if (query.startAfter !== undefined) {
    add("(created_at, id) > (?, ?)", bound(query.startAfter.createdAt), query.startAfter.id);
  }
  return sql(
    `SELECT record FROM gateway_outbound ${where.length === 0 ? "" : `WHERE ${where.join(" AND ")}`} ` +
      "ORDER BY created_at, id LIMIT ?",
    ...params,
    sqlLimit(limit),
  );
}

/** The webhook logs, all or of one status; `limit` is already checked. */
export function webhookLogListQuery(status: WebhookLogStatus | undefined, limit: number): SqlStatement {
  return status === undefined
    ? sql("SELECT record FROM gateway_webhook_logs ORDER BY received_at, id LIMIT ?", sqlLimit(limit))
    : sql(
      "SELECT record FROM gateway_webhook_logs WHERE status = ? ORDER BY received_at, id LIMIT ?",
      status,
      sqlLimit(limit),
    );
}

/**
 * The statements of a prune of `kind` before `before`: `count` (a row with `n`), and `deleteBatch`, which
 * deletes up to `batch` of the oldest such rows and returns a row per deleted one. Throws `TypeError` for an
 * unknown kind.
 */
export function pruneQueries(
  kind: RecordKind,
  before: number,
): { count: SqlStatement; deleteBatch: SqlStatement; batch: number } {
  const target = Object.hasOwn(PRUNE, kind) ? PRUNE[kind] : undefined;
  if (target === undefined) throw new TypeError(`Cannot prune records: unknown kind "${String(kind)}"`);
  const { table, column } = target;
  const cutoff = bound(before);
  return {
    count: sql(`SELECT COUNT(*) AS n FROM ${table} WHERE ${column} < ?`, cutoff),
    deleteBatch: sql(
      `DELETE FROM ${table} WHERE rowid IN ` +
        `(SELECT rowid FROM ${table} WHERE ${column} < ? ORDER BY ${column} LIMIT ${PRUNE_BATCH}) RETURNING 1`,
      cutoff,
    ),
    batch: PRUNE_BATCH,
  };
}
