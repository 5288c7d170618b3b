/**
 * KvRateLimiter attempts per second when 1 or 4 processes share one local KV file and one key (the
 * worst case: every attempt competes for the same entry). Each worker times its own loop after a common
 * start signal; throughput is all attempts over the slowest worker's time.
 *
 *   deno run --allow-read --allow-write --allow-run bench/ratelimit_processes.ts [attempts per process]
 */

import { runWorkers } from "../tests/fixtures/ratelimit_processes.ts";

const attempts = Number(Deno.args[0] ?? 500);
const rows: string[] = [];

for (const [label, maxAttempts] of [["all allowed", 1_000_000_000], ["limit reached at 40%", 0]] as const) {
  for (const processes of [1, 4]) {
    const dir = await Deno.makeTempDir({ prefix: "gw_bench_ratelimit_" });
    try {
      const max = maxAttempts || Math.round(attempts * processes * 0.4);
      const results = await runWorkers(`${dir}/limits.kv`, processes, {
        attempts,
        maxAttempts: max,
        decaySeconds: 3600,
      });
      const allowed = results.reduce((sum, r) => sum + r.allowed, 0);
      const seconds = Math.max(...results.map((r) => r.ms)) / 1000;
      const perSecond = Math.round((attempts * processes) / seconds);
      rows.push(
        `| ${label} | ${processes} | ${attempts * processes} | ${allowed} (limit ${max}) | ${perSecond} |`,
      );
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  }
}

console.log("| scenario | processes | attempts | allowed | attempts/s |");
console.log("| --- | --- | --- | --- | --- |");
for (const row of rows) console.log(row);
