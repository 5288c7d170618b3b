/**
 * Writes `src/backends/cloudflare/migrations/<name>.sql` from `D1_MIGRATIONS`, the one source of the D1
 * schema (a Worker cannot read files, so the text lives in TypeScript; wrangler wants `.sql` files). With
 * `--check`, writes nothing and exits 1 when a file differs (tests/integration/cloudflare_d1_test.ts checks the
 * same).
 *
 * Run: `deno run --lock=tests/npm/deno.lock --allow-read --allow-write tools/d1_sql.ts [--check]`
 *
 * @module
 */

import { D1_MIGRATIONS } from "../src/backends/cloudflare/migrations.ts";

const check = Deno.args.includes("--check");
let stale = 0;
for (const migration of D1_MIGRATIONS) {
  const path = `src/backends/cloudflare/migrations/${migration.name}.sql`;
  let current: string | undefined;
  try {
    current = Deno.readTextFileSync(path);
  } catch {
    current = undefined;
  }
  if (current === migration.sql) continue;
  stale++;
  if (check) console.error(`${path}: differs from D1_MIGRATIONS (run tools/d1_sql.ts)`);
  else Deno.writeTextFileSync(path, migration.sql);
}
if (check && stale > 0) Deno.exit(1);
