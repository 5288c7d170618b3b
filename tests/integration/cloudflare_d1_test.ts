/**
 * D1Store and D1State against a real D1 (workerd's SQLite, through npm `miniflare`, offline): the store and
 * state contract suites that MemoryStore and KvStore pass, run from Deno through miniflare's D1 binding,
 * so every statement, batch and `RETURNING` is executed by the Workers runtime's D1. (The same classes run
 * inside workerd in cloudflare_worker_test.ts.)
 */

import { deepStrictEqual, rejects, strictEqual, throws } from "node:assert/strict";
import { Miniflare } from "../npm/miniflare.ts";
import type { D1Database } from "../../src/backends/cloudflare/bindings.ts";
import { D1State } from "../../src/backends/cloudflare/d1_state.ts";
import { D1Store } from "../../src/backends/cloudflare/d1_store.ts";
import { applyD1Migrations, D1_MIGRATIONS } from "../../src/backends/cloudflare/migrations.ts";
import { STATE_INDEX_SQL, STATE_TABLE_SQL } from "../../src/backends/cloudflare/sql_state.ts";
import { stateContract } from "../unit/state_contract.ts";
import { outbound, storeContract } from "../unit/store_contract.ts";

Deno.env.set("WRANGLER_SEND_METRICS", "false");
const TABLES = [
  "gateway_outbound",
  "gateway_inbound",
  "gateway_webhook_logs",
  "gateway_instances",
  "gateway_state",
  "gateway_webhook_bodies",
];

// One workerd for the file (started once, disposed by the last test): each test empties the tables.
const mf = new Miniflare({
  modules: true,
  script: "export default { fetch() { return new Response(null, { status: 404 }); } };",
  compatibilityDate: "2025-09-01",
  d1Databases: ["DB"],
});
const db = await mf.getD1Database("DB") as unknown as D1Database;
const applied = await applyD1Migrations(db);

// miniflare's client keeps keep-alive timers of its own across tests: the sanitizers are off in this file.
function d1Test(name: string, fn: () => Promise<void>): void {
  Deno.test({ name, sanitizeOps: false, sanitizeResources: false, fn });
}

async function emptyDatabase(): Promise<D1Database> {
  await db.batch(TABLES.map((table) => db.prepare(`DELETE FROM ${table}`)));
  return db;
}

storeContract({
  name: "D1Store",
  sanitize: false,
  open: async (now) => ({ store: new D1Store(await emptyDatabase(), { now }), close: () => {} }),
});
stateContract({
  name: "D1State",
  sanitize: false,
  open: async (now) => ({ state: new D1State(await emptyDatabase(), { now }), close: () => {} }),
});

d1Test("D1 migrations: applied once, recorded, and the shipped .sql file is the text applied", async () => {
  deepStrictEqual(applied, ["0001_gateway"]);
  deepStrictEqual(await applyD1Migrations(db), []);
  const file = await Deno.readTextFile(
    new URL("../../src/backends/cloudflare/migrations/0001_gateway.sql", import.meta.url),
  );
  strictEqual(D1_MIGRATIONS[0].sql, file);
  // The coordinator creates the same state table in its own SQLite.
  strictEqual(file.includes(`${STATE_TABLE_SQL};`), true);
  strictEqual(file.includes(`${STATE_INDEX_SQL};`), true);
  const { results } = await db.prepare(
    "SELECT name FROM sqlite_master WHERE type = 'index' AND name LIKE 'gateway_%' ORDER BY name",
  ).all<{ name: string }>();
  deepStrictEqual(results.map((row) => row.name), [
    "gateway_inbound_by_time",
    "gateway_instances_by_time",
    "gateway_outbound_by_instance_status",
    "gateway_outbound_by_status",
    "gateway_outbound_by_time",
    "gateway_state_by_expiry",
    "gateway_webhook_logs_by_status",
    "gateway_webhook_logs_by_time",
  ]);
});

d1Test("D1Store: lists read through the indexes, not by scanning the table", async () => {
  await emptyDatabase();
  const plan = async (query: string, ...params: unknown[]) =>
    (await db.prepare(`EXPLAIN QUERY PLAN ${query}`).bind(...params).all<{ detail: string }>()).results
      .map((row) => row.detail).join(" | ");
  strictEqual(
    await plan(
      "SELECT record FROM gateway_outbound WHERE status = ? AND created_at < ? ORDER BY created_at, id LIMIT 10",
      "failed",
      5,
    ),
    "SEARCH gateway_outbound USING INDEX gateway_outbound_by_status (status=? AND created_at<?)",
  );
  strictEqual(
    await plan(
      "SELECT record FROM gateway_outbound WHERE instance = ? AND status = ? ORDER BY created_at, id LIMIT 10",
      "s",
      "failed",
    ),
    "SEARCH gateway_outbound USING INDEX gateway_outbound_by_instance_status (instance=? AND status=?)",
  );
});

d1Test("D1Store: a record over maxRecordBytes is refused with a clear error, nothing written", async () => {
  const store = new D1Store(await emptyDatabase(), { maxRecordBytes: 100_000 });
  await rejects(() => store.saveOutbound(outbound("a", 1, { body: { media: "x".repeat(200_000) } })), {
    name: "RangeError",
    message: /^Cannot save outbound record "a": it takes \d+ bytes as JSON, more than the 100000 allowed/,
  });
  strictEqual(await store.getOutbound("a"), null);
  throws(() => new D1Store(db, { maxRecordBytes: 3_000_000 }), {
    name: "ConfigurationException",
    message: 'Cannot create D1Store: "maxRecordBytes" must be an integer from 1 to 1900000, got "3000000"',
  });
});

d1Test("D1: dispose workerd", () => mf.dispose());
