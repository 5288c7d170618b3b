/**
 * Store throughput: writes, compare-and-set updates and indexed reads per second on KvStore (a local KV
 * file, and `:memory:`) with MemoryStore as the baseline in the same run; then the prune of N records
 * (default 100 000) with its time and memory.
 *
 *   deno run --allow-read --allow-write --allow-env --v8-flags=--expose-gc bench/store.ts [--records 100000] [--only kv-file]
 *
 * Prints a Markdown table per measure. Timings on a shared VM vary between runs: compare within a run.
 */

import { KvStore } from "../src/backends/kv/store.ts";
import { MemoryStore } from "../src/backends/memory/store.ts";
import type { GatewayStore, OutboundMessageRecord } from "../src/store/store.ts";

function flag(name: string, fallback: string): string {
  const index = Deno.args.indexOf(`--${name}`);
  return index === -1 ? fallback : Deno.args[index + 1];
}

const RECORDS = Number(flag("records", "100000"));
const ONLY = flag("only", "");
const SEQUENTIAL = 2_000;
const CONCURRENCY = 100;
const GETS = 5_000;
const PAGES = 300;
const PAGE = 100;
const T0 = 1_700_000_000_000;

interface Subject {
  name: string;
  open(): Promise<{ store: GatewayStore; close(): Promise<void> }>;
}

const subjects: Subject[] = [
  {
    name: "MemoryStore",
    open: () => Promise.resolve({ store: new MemoryStore(), close: () => Promise.resolve() }),
  },
  {
    name: "KvStore :memory:",
    open: async () => {
      const kv = await Deno.openKv(":memory:");
      return { store: new KvStore(kv), close: () => Promise.resolve(kv.close()) };
    },
  },
  {
    name: "KvStore file",
    open: async () => {
      const dir = await Deno.makeTempDir({ prefix: "gw-store-bench-" });
      const kv = await Deno.openKv(`${dir}/store.sqlite`);
      return {
        store: new KvStore(kv),
        close: async () => {
          kv.close();
          await Deno.remove(dir, { recursive: true });
        },
      };
    },
  },
].filter((subject) => ONLY === "" || subject.name.toLowerCase().replace(/[^a-z]+/g, "-").includes(ONLY));

// One in ten records is failed, the rest sent: the retry task's indexed read picks the failed ones.
function record(i: number): OutboundMessageRecord {
  const at = T0 + i;
  return {
    id: `r${String(i).padStart(7, "0")}`,
    connection: "default",
    instance: i % 4 === 0 ? "support" : "sales",
    recipient: "5511999999999",
    type: "text",
    route: "/message/sendText/{instance}",
    body: { number: "5511999999999", text: `Order ${i} has shipped, thank you for your purchase!` },
    status: i % 10 === 0 ? "failed" : "sent",
    outcomeUnknown: false,
    retryCount: 0,
    createdAt: at,
    updatedAt: at,
  };
}

function rate(count: number, ms: number): string {
  const perSecond = count / (ms / 1000);
  return perSecond >= 10_000 ? `${(perSecond / 1000).toFixed(0)} k` : perSecond.toFixed(0);
}

function mib(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

async function timed(body: () => Promise<void>): Promise<number> {
  const start = performance.now();
  await body();
  return performance.now() - start;
}

const rows: string[][] = [];
const pruneRows: string[][] = [];

for (const subject of subjects) {
  const { store, close } = await subject.open();
  try {
    // Writes, one at a time (each a read plus an atomic commit on KV).
    const sequential = await timed(async () => {
      for (let i = 0; i < SEQUENTIAL; i++) await store.saveOutbound(record(i));
    });
    // Writes, CONCURRENCY in flight, up to RECORDS in total.
    const concurrent = await timed(async () => {
      for (let i = SEQUENTIAL; i < RECORDS; i += CONCURRENCY) {
        const batch: Promise<void>[] = [];
        for (let j = i; j < Math.min(RECORDS, i + CONCURRENCY); j++) {
          batch.push(store.saveOutbound(record(j)));
        }
        await Promise.all(batch);
      }
    });
    // Compare-and-set claims (what the retry task does before each resend).
    const claims = await timed(async () => {
      for (let i = 0; i < SEQUENTIAL; i++) {
        const r = record(i);
        await store.updateOutbound(r.id, { retryCount: 1, updatedAt: r.updatedAt + 1 }, r.updatedAt);
      }
    });
    // Reads by id.
    const gets = await timed(async () => {
      for (let i = 0; i < GETS; i++) await store.getOutbound(record((i * 7919) % RECORDS).id);
    });
    // Indexed reads: a page of failed records older than a cut-off, from varied positions.
    let listed = 0;
    const pages = await timed(async () => {
      for (let i = 0; i < PAGES; i++) {
        const from = record(Math.floor(((i * 7919) % RECORDS) / 10) * 10);
        const page = await store.listOutbound({
          status: "failed",
          createdBefore: T0 + RECORDS,
          startAfter: { createdAt: from.createdAt, id: from.id },
          limit: PAGE,
        });
        listed += page.length;
      }
    });
    const instancePages = await timed(async () => {
      for (let i = 0; i < PAGES; i++) {
        const from = record(Math.floor(((i * 7919) % RECORDS) / 20) * 20);
        await store.listOutbound({
          status: "failed",
          instance: "support",
          startAfter: { createdAt: from.createdAt, id: from.id },
          limit: PAGE,
        });
      }
    });
    rows.push([
      subject.name,
      rate(SEQUENTIAL, sequential),
      rate(RECORDS - SEQUENTIAL, concurrent),
      rate(SEQUENTIAL, claims),
      rate(GETS, gets),
      `${rate(PAGES, pages)} (${rate(listed, pages)} rec/s)`,
      rate(PAGES, instancePages),
    ]);

    // Prune of every record: dry-run count first, then the real thing, sampling memory meanwhile.
    const before = T0 + RECORDS;
    let counted = 0;
    const dry = await timed(async () => {
      counted = await store.prune("outbound", before, { dryRun: true });
    });
    if (counted !== RECORDS) throw new Error(`Expected ${RECORDS} records, counted ${counted}`);
    (globalThis as { gc?: () => void }).gc?.();
    const start = Deno.memoryUsage();
    let peakHeap = start.heapUsed;
    let peakRss = start.rss;
    const sampler = setInterval(() => {
      const now = Deno.memoryUsage();
      peakHeap = Math.max(peakHeap, now.heapUsed);
      peakRss = Math.max(peakRss, now.rss);
    }, 20);
    let removed = 0;
    const prune = await timed(async () => {
      removed = await store.prune("outbound", before);
    });
    clearInterval(sampler);
    (globalThis as { gc?: () => void }).gc?.();
    const retained = Deno.memoryUsage().heapUsed - start.heapUsed;
    if (removed !== RECORDS) throw new Error(`Expected to prune ${RECORDS} records, pruned ${removed}`);
    if ((await store.listOutbound({ limit: 1 })).length !== 0) throw new Error("Records left after prune");
    pruneRows.push([
      subject.name,
      RECORDS.toLocaleString("en-US"),
      `${(dry / 1000).toFixed(2)} s`,
      `${(prune / 1000).toFixed(2)} s`,
      rate(RECORDS, prune),
      `+${mib(peakHeap - start.heapUsed)}`,
      `+${mib(peakRss - start.rss)}`,
      (globalThis as { gc?: () => void }).gc
        ? `${retained < 0 ? "" : "+"}${mib(retained)}`
        : "(run with --expose-gc)",
    ]);
  } finally {
    await close();
  }
}

function table(header: string[], body: string[][]): string {
  const lines = [header, header.map(() => "---"), ...body];
  return lines.map((cells) => `| ${cells.join(" | ")} |`).join("\n");
}

console.log(
  `\nDeno ${Deno.version.deno}, ${RECORDS.toLocaleString("en-US")} outbound records (10 % failed)\n`,
);
console.log(table([
  "store",
  "writes/s (sequential)",
  `writes/s (${CONCURRENCY} in flight)`,
  "CAS updates/s",
  "gets/s",
  `failed-before pages/s (limit ${PAGE})`,
  "instance+status pages/s",
], rows));
console.log();
console.log(table([
  "store",
  "records",
  "dry-run count",
  "prune",
  "records/s",
  "peak heap",
  "peak RSS",
  "heap retained after GC",
], pruneRows));
