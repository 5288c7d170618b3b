/**
 * MemoryWebhookDedupe cost per new delivery id as it fills: 1 000 000 distinct ids (claim + complete, as the
 * receiver does), 1 ms apart so that none expires within the window and every id past the cap (100 000)
 * evicts a live record. Prints the cost per id of the first 100 000 (filling an empty set) and of the last
 * 100 000 (full), and their ratio, per round.
 *
 *   deno run bench/dedupe_memory.ts [rounds]
 */

import { MemoryWebhookDedupe } from "../src/backends/memory/dedupe.ts";
import { median } from "./stats.ts";

const IDS = 1_000_000;
const SLICE = 100_000;
const rounds = Number(Deno.args[0] ?? 5);
const empties: number[] = [];
const fulls: number[] = [];

for (let round = 0; round < rounds; round++) {
  const dedupe = new MemoryWebhookDedupe();
  const ids = Array.from({ length: IDS }, (_, i) => `evt_${round}_${i}`);
  const t0 = 1_800_000_000_000;
  let sliceStart = performance.now();
  for (let i = 0; i < IDS; i++) {
    await dedupe.claim(ids[i], t0 + i);
    await dedupe.complete(ids[i], t0 + i);
    if (i === SLICE - 1) {
      empties.push(((performance.now() - sliceStart) * 1000) / SLICE);
    } else if (i === IDS - SLICE - 1) {
      sliceStart = performance.now();
    }
  }
  fulls.push(((performance.now() - sliceStart) * 1000) / SLICE);
  if (dedupe.size !== 100_000) throw new Error(`size ${dedupe.size}`);
}

const ratios = fulls.map((full, i) => full / empties[i]);
console.log("| round | empty: µs per id (first 100 000) | full: µs per id (last 100 000) | full / empty |");
console.log("| --- | --- | --- | --- |");
ratios.forEach((ratio, i) =>
  console.log(`| ${i + 1} | ${empties[i].toFixed(3)} | ${fulls[i].toFixed(3)} | ${ratio.toFixed(2)} |`)
);
console.log(
  `| median | ${median(empties).toFixed(3)} | ${median(fulls).toFixed(3)} | ${median(ratios).toFixed(2)} |`,
);
