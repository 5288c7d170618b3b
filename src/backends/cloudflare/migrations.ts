/**
 * The D1 schema of `D1Store` and `D1State`, shipped twice with the same text: as `.sql` files under
 * `migrations/` for `wrangler d1 migrations apply`, and here for {@link applyD1Migrations} (a Worker cannot
 * read files). A test keeps the two equal; the state table's statements come from `sql_state.ts`, which the
 * coordinator creates its table with too.
 *
 * @module
 */

import type { D1Database } from "./bindings.ts";
import { d1Runner, splitStatements, sql } from "./sql.ts";
import { STATE_INDEX_SQL, STATE_TABLE_SQL } from "./sql_state.ts";

/** One migration: its file name (without `.sql`) and its text. */
export interface D1Migration {
  /** The file name without `.sql`, e.g. `0001_gateway`. */
  name: string;
  /** The file's text. */
  sql: string;
}

/**
 * Every migration, oldest first, as in `src/backends/cloudflare/migrations/`.
 *
 * @example
 * ```ts
 * import { D1_MIGRATIONS } from "@gw/gateway/cloudflare";
 * console.log(D1_MIGRATIONS.map((m) => m.name)); // ["0001_gateway"]
 * ```
 */
export const D1_MIGRATIONS: readonly D1Migration[] = [
  {
    name: "0001_gateway",
    sql: `-- @gw/gateway on D1: the record store (D1Store) and the shared state (D1State).
-- Apply with "wrangler d1 migrations apply <DB>" (copy this file into your migrations_dir), or call
-- applyD1Migrations(env.DB) from "@gw/gateway/cloudflare", which runs the same statements.
-- Each record is kept whole as JSON in "record"; the other columns are its indexed fields.
-- Text compares byte-wise (UTF-8), which is the order KvStore and MemoryStore list ids in.

CREATE TABLE IF NOT EXISTS gateway_outbound (
  id TEXT NOT NULL PRIMARY KEY,
  instance TEXT NOT NULL,
  status TEXT NOT NULL,
  created_at NUMERIC NOT NULL,
  revision INTEGER NOT NULL,
  record TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS gateway_outbound_by_time ON gateway_outbound (created_at, id);
CREATE INDEX IF NOT EXISTS gateway_outbound_by_status ON gateway_outbound (status, created_at, id);
CREATE INDEX IF NOT EXISTS gateway_outbound_by_instance_status ON gateway_outbound (instance, status, created_at, id);

CREATE TABLE IF NOT EXISTS gateway_inbound (
  instance TEXT NOT NULL,
  id TEXT NOT NULL,
  received_at NUMERIC NOT NULL,
  record TEXT NOT NULL,
  PRIMARY KEY (instance, id)
);
CREATE INDEX IF NOT EXISTS gateway_inbound_by_time ON gateway_inbound (received_at, instance, id);

CREATE TABLE IF NOT EXISTS gateway_webhook_logs (
  id TEXT NOT NULL PRIMARY KEY,
  status TEXT NOT NULL,
  received_at NUMERIC NOT NULL,
  record TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS gateway_webhook_logs_by_time ON gateway_webhook_logs (received_at, id);
CREATE INDEX IF NOT EXISTS gateway_webhook_logs_by_status ON gateway_webhook_logs (status, received_at, id);

CREATE TABLE IF NOT EXISTS gateway_instances (
  connection TEXT NOT NULL,
  instance TEXT NOT NULL,
  updated_at NUMERIC NOT NULL,
  record TEXT NOT NULL,
  PRIMARY KEY (connection, instance)
);
CREATE INDEX IF NOT EXISTS gateway_instances_by_time ON gateway_instances (updated_at, connection, instance);

${STATE_TABLE_SQL};
${STATE_INDEX_SQL};

CREATE TABLE IF NOT EXISTS gateway_webhook_bodies (
  id TEXT NOT NULL PRIMARY KEY,
  body BLOB NOT NULL,
  created_at NUMERIC NOT NULL
);
`,
  },
];

/**
 * Apply the migrations not yet applied to `db` (recorded in the table `gateway_migrations`), each in one
 * transaction; returns the names applied now. Safe to call at every cold start and from several isolates
 * at once: every statement is `IF NOT EXISTS`. If you applied the `.sql` files with wrangler instead, this
 * finds the tables there and only records the names.
 *
 * @example At the first request of an isolate
 * ```ts
 * import { applyD1Migrations, type D1Database, D1Store } from "@gw/gateway/cloudflare";
 * let ready: Promise<unknown> | undefined;
 * export default {
 *   async fetch(_request: Request, env: { DB: D1Database }) {
 *     await (ready ??= applyD1Migrations(env.DB));
 *     const store = new D1Store(env.DB);
 *     return Response.json(await store.listOutbound({ status: "failed", limit: 10 }));
 *   },
 * };
 * ```
 */
export async function applyD1Migrations(db: D1Database): Promise<string[]> {
  const run = d1Runner(db);
  await run([
    sql(
      "CREATE TABLE IF NOT EXISTS gateway_migrations (name TEXT NOT NULL PRIMARY KEY, applied_at NUMERIC NOT NULL)",
    ),
  ]);
  const [rows] = await run([sql("SELECT name FROM gateway_migrations")]);
  const applied = new Set(rows.map((row) => String(row.name)));
  const now: string[] = [];
  for (const migration of D1_MIGRATIONS) {
    if (applied.has(migration.name)) continue;
    await run([
      ...splitStatements(migration.sql).map((text) => sql(text)),
      sql(
        "INSERT INTO gateway_migrations (name, applied_at) VALUES (?, ?) ON CONFLICT (name) DO NOTHING",
        migration.name,
        Date.now(),
      ),
    ]);
    now.push(migration.name);
  }
  return now;
}
