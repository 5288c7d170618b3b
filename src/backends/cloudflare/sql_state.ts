/**
 * The `StateStore` operations as single SQL statements on the `gateway_state` table, shared by `D1State`
 * (on D1) and `GatewayCoordinator` (on a Durable Object's SQLite). Each write is one statement, so SQLite
 * itself makes a compare-and-set atomic; `RETURNING` tells whether the row was written. Internal.
 *
 * @module
 */

import * as state from "../../store/state.ts";
import { sql, type SqlRunner, type SqlStatement } from "./sql.ts";

/** The table, as created by the D1 migration and by the coordinator. */
export const STATE_TABLE_SQL = `CREATE TABLE IF NOT EXISTS gateway_state (
  namespace TEXT NOT NULL,
  key TEXT NOT NULL,
  value TEXT NOT NULL,
  version TEXT NOT NULL,
  expires_at NUMERIC,
  PRIMARY KEY (namespace, key)
)`;
/** The expiry index of that table. */
export const STATE_INDEX_SQL =
  "CREATE INDEX IF NOT EXISTS gateway_state_by_expiry ON gateway_state (expires_at) WHERE expires_at IS NOT NULL";

const LIVE = "(expires_at IS NULL OR expires_at > ?)";
const UPSERT =
  "INSERT INTO gateway_state (namespace, key, value, version, expires_at) VALUES (?, ?, ?, ?, ?) " +
  "ON CONFLICT (namespace, key) DO UPDATE SET value = excluded.value, version = excluded.version, " +
  "expires_at = excluded.expires_at";
// Each write also removes a few expired rows, so rows nobody reads again do not pile up: the table holds
// at most the live entries plus what the writes since have not yet swept.
const SWEEP = "DELETE FROM gateway_state WHERE rowid IN " +
  "(SELECT rowid FROM gateway_state WHERE expires_at IS NOT NULL AND expires_at <= ? LIMIT 4)";

interface Row {
  key?: string;
  value: string;
  version: string;
  expires_at: number | null;
}

/** `StateStore` semantics over SQL; `now` is the state's clock. */
export class SqlStateEngine implements state.StateStore {
  readonly #run: SqlRunner;
  readonly #now: () => number;

  constructor(run: SqlRunner, now: () => number) {
    this.#run = run;
    this.#now = now;
  }

  async get<T>(namespace: string, key: string): Promise<state.StateEntry<T> | null> {
    state.checkStateKey(namespace, key);
    const [rows] = await this.#run([
      sql(
        `SELECT value, version, expires_at FROM gateway_state WHERE namespace = ? AND key = ? AND ${LIVE}`,
        namespace,
        key,
        this.#now(),
      ),
    ]);
    return rows.length === 0 ? null : entryOf<T>(rows[0] as unknown as Row);
  }

  async set<T>(
    namespace: string,
    key: string,
    value: T,
    options: state.StateSetOptions = {},
  ): Promise<string | null> {
    const json = state.checkStateSet(namespace, key, value, options);
    const now = this.#now();
    const version = crypto.randomUUID();
    const expiresAt = options.expiresAt ?? null;
    const expected = options.expectedVersion;
    let write: SqlStatement;
    if (expected === undefined) {
      write = sql(`${UPSERT} RETURNING version`, namespace, key, json, version, expiresAt);
    } else if (expected === null) {
      // Inserted, or replacing an entry that has expired: a live one is left alone (no row returned).
      write = sql(
        `${UPSERT} WHERE gateway_state.expires_at IS NOT NULL AND gateway_state.expires_at <= ? RETURNING version`,
        namespace,
        key,
        json,
        version,
        expiresAt,
        now,
      );
    } else {
      write = sql(
        "UPDATE gateway_state SET value = ?, version = ?, expires_at = ? " +
          `WHERE namespace = ? AND key = ? AND version = ? AND ${LIVE} RETURNING version`,
        json,
        version,
        expiresAt,
        namespace,
        key,
        expected,
        now,
      );
    }
    const [rows] = await this.#run([write, sql(SWEEP, now)]);
    return rows.length === 0 ? null : version;
  }

  async delete(namespace: string, key: string, options: { expectedVersion?: string } = {}): Promise<boolean> {
    state.checkStateKey(namespace, key);
    const now = this.#now();
    const [rows] = await this.#run([
      options.expectedVersion === undefined
        ? sql(
          `DELETE FROM gateway_state WHERE namespace = ? AND key = ? AND ${LIVE} RETURNING key`,
          namespace,
          key,
          now,
        )
        : sql(
          `DELETE FROM gateway_state WHERE namespace = ? AND key = ? AND version = ? AND ${LIVE} RETURNING key`,
          namespace,
          key,
          options.expectedVersion,
          now,
        ),
    ]);
    return rows.length > 0;
  }

  async list<T>(namespace: string, options?: state.StateListOptions): Promise<state.StateListEntry<T>[]> {
    const limit = state.checkStateList(namespace, options);
    const prefix = options?.prefix ?? "";
    if (typeof prefix !== "string") throw new TypeError(`Cannot list state: "prefix" must be a string`);
    const end = prefixEnd(prefix);
    const [rows] = await this.#run([
      sql(
        "SELECT key, value, version, expires_at FROM gateway_state WHERE namespace = ? AND key >= ? " +
          `${end === null ? "" : "AND key < ? "}AND ${LIVE} ORDER BY key LIMIT ?`,
        ...(end === null ? [namespace, prefix] : [namespace, prefix, end]),
        this.#now(),
        limit,
      ),
    ]);
    const out: state.StateListEntry<T>[] = [];
    for (const row of rows as unknown as Row[]) {
      if (!row.key!.startsWith(prefix)) continue;
      out.push({ key: row.key!, ...entryOf<T>(row) });
    }
    return out;
  }
}

/** The smallest text greater than every text starting with `prefix` (code point order), or null. */
function prefixEnd(prefix: string): string | null {
  const points = [...prefix].map((char) => char.codePointAt(0)!);
  while (points.length > 0) {
    const last = points.pop()!;
    if (last < 0x10ffff) {
      points.push(last === 0xd7ff ? 0xe000 : last + 1);
      return String.fromCodePoint(...points);
    }
  }
  return null;
}

function entryOf<T>(row: Row): state.StateEntry<T> {
  const entry: state.StateEntry<T> = { value: JSON.parse(row.value) as T, version: row.version };
  if (row.expires_at !== null && row.expires_at !== undefined) entry.expiresAt = Number(row.expires_at);
  return entry;
}
