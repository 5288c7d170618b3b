/**
 * KvStore write sequences per second when 1 or 4 processes share one local KV file, each doing the same
 * mix as the multi-process test (save, compare-and-set update, save old + prune: tests/fixtures/store_writer.ts),
 * through the busy-retry policy. Each process times its own loop after a common start signal; throughput is
 * all writes over the slowest process's time.
 *
 *   deno run -A bench/store_processes.ts [writes per process] [rounds]
 */

import { runTogether } from "../tests/helpers/processes.ts";
import { median } from "./stats.ts";

const WRITER = new URL("../tests/fixtures/store_writer.ts", import.meta.url).pathname;
const ops = Number(Deno.args[0] ?? 300);
const rounds = Number(Deno.args[1] ?? 5);
const perSecond: Record<number, number[]> = { 1: [], 4: [] };

for (let round = 0; round < rounds; round++) {
  for (const processes of [1, 4]) {
    const dir = await Deno.makeTempDir({ prefix: "gw_bench_store_" });
    try {
      const results = await runTogether<{ ms: number }>(
        Array.from(
          { length: processes },
          (_, p) => [WRITER, "writer", `${dir}/store.kv`, `p${p}`, String(ops)],
        ),
      );
      const seconds = Math.max(...results.map((r) => r.ms)) / 1000;
      perSecond[processes].push((ops * processes) / seconds);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  }
}

const one = median(perSecond[1]);
const four = median(perSecond[4]);
console.log(`| processes | writes | writes/s (median of ${rounds}) | vs 1 process |`);
console.log("| --- | --- | --- | --- |");
console.log(`| 1 | ${ops} | ${Math.round(one)} | 1× |`);
console.log(`| 4 | ${ops * 4} | ${Math.round(four)} | ${(four / one).toFixed(2)}× |`);
