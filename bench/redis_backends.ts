/**
 * Per-operation cost of each shared-state backend on Redis next to Deno KV (a local file) and memory, in
 * one run: every operation the backends share (limiter attempt, dedupe claim + complete, store save / get /
 * indexed list / compare-and-set update, state compare-and-set create and get, queue enqueue + run, lease
 * acquire + release). Operations run one after another (latency, not throughput); each round runs every
 * engine for `--ops` operations in rotated order, and the figure is the median of the per-round means.
 *
 *   deno run -A bench/redis_backends.ts [--rounds 5] [--ops 500]
 *
 * Starts its own redis-server on a free loopback port (Debian's `redis-server` must be installed).
 */

import { MemoryRateLimiter } from "../src/backends/memory/rate_limiter.ts";
import { KvRateLimiter } from "../src/backends/kv/rate_limiter.ts";
import { RedisRateLimiter } from "../src/backends/redis/rate_limiter.ts";
import { RedisWebhookDedupe } from "../src/backends/redis/dedupe.ts";
import { RedisStore } from "../src/backends/redis/store.ts";
import { RedisTaskLease } from "../src/backends/redis/lease.ts";
import { RedisWebhookQueue } from "../src/backends/redis/queue.ts";
import { KvStore } from "../src/backends/kv/store.ts";
import { MemoryStore } from "../src/backends/memory/store.ts";
import type { GatewayStore, OutboundMessageRecord } from "../src/store/store.ts";
import { kvTaskLease } from "../src/backends/kv/lease.ts";
import type { TaskLease } from "../src/tasks/task_lease.ts";
import type { WebhookDedupe } from "../src/webhooks/dedupe.ts";
import { KvWebhookDedupe } from "../src/backends/kv/dedupe.ts";
import { MemoryWebhookDedupe } from "../src/backends/memory/dedupe.ts";
import { WebhookProcessor } from "../src/webhooks/processor.ts";
import {
  enqueueWebhookJob,
  type ProcessWebhookJob,
  runWebhookJob,
  settleWebhookJob,
} from "../src/webhooks/queue.ts";
import { startRedisServer } from "../tests/helpers/redis_server.ts";
import { median } from "./stats.ts";

function flag(name: string, fallback: number): number {
  const index = Deno.args.indexOf(`--${name}`);
  return index === -1 ? fallback : Number(Deno.args[index + 1]);
}
const ROUNDS = flag("rounds", 5);
const OPS = flag("ops", 500);

type Engine = "memory" | "kv file" | "redis";
const ENGINES: Engine[] = ["memory", "kv file", "redis"];

interface Backends {
  limiter: { attempt(key: string, max: number, decay: number): Promise<boolean> };
  dedupe: WebhookDedupe;
  store: GatewayStore;
  lease: TaskLease;
  /** Enqueue one job and run it to completion. */
  queueRoundTrip(job: ProcessWebhookJob): Promise<void>;
}

const dir = await Deno.makeTempDir({ prefix: "gw_bench_redis_" });
const kv = await Deno.openKv(`${dir}/bench.kv`);
const redis = await startRedisServer();
const processor = new WebhookProcessor({ log: false }).onAny(() => {});
const redisQueue = new RedisWebhookQueue({ url: redis.url });
const memoryJobs: ProcessWebhookJob[] = [];

const backends: Record<Engine, Backends> = {
  memory: {
    limiter: new MemoryRateLimiter(),
    dedupe: new MemoryWebhookDedupe(),
    store: new MemoryStore(),
    lease: {
      // The in-isolate lease is a flag; a Map keeps the same shape of work.
      acquire: (() => {
        const held = new Set<string>();
        return (name: string) => {
          if (held.has(name)) return Promise.resolve(null);
          held.add(name);
          return Promise.resolve(() => (held.delete(name), Promise.resolve()));
        };
      })(),
    },
    queueRoundTrip: async (job) => {
      // An array as the queue, and the same job runner as the KV and Redis queues.
      memoryJobs.push(job);
      const next = memoryJobs.shift()!;
      await settleWebhookJob(next, next.body ?? null, processor, {}, {
        retry: (retried) => (memoryJobs.push(retried), Promise.resolve()),
        deadLetter: () => Promise.resolve(),
      });
    },
  },
  "kv file": {
    limiter: new KvRateLimiter(kv),
    dedupe: new KvWebhookDedupe(kv),
    store: new KvStore(kv),
    lease: kvTaskLease(kv),
    queueRoundTrip: async (job) => {
      // Deno's queue delivers through listenQueue with its own polling; measure the writes and the run.
      await enqueueWebhookJob(kv, job);
      await runWebhookJob(kv, job, processor);
    },
  },
  redis: {
    limiter: new RedisRateLimiter({ url: redis.url }),
    dedupe: new RedisWebhookDedupe({ url: redis.url }),
    store: new RedisStore({ url: redis.url }),
    lease: new RedisTaskLease({ url: redis.url }),
    queueRoundTrip: async (job) => {
      await redisQueue.enqueue(job);
      await redisQueue.runNext(processor);
    },
  },
};

const body = new TextEncoder().encode(
  JSON.stringify({
    event: "messages.upsert",
    instance: "sales",
    data: { key: { id: "B" }, message: { conversation: "hi" } },
  }),
);
function record(id: string, createdAt: number): OutboundMessageRecord {
  return {
    id,
    connection: "default",
    instance: "sales",
    recipient: "5511999999999",
    type: "text",
    route: "/message/sendText/{instance}",
    body: { number: "5511999999999", text: `hello ${id}` },
    status: "failed",
    outcomeUnknown: false,
    retryCount: 0,
    createdAt,
    updatedAt: createdAt,
  };
}

let serial = 0;
const OPERATIONS: Record<string, (b: Backends) => Promise<unknown>> = {
  "limiter attempt": (b) => b.limiter.attempt("bench", 1_000_000_000, 3600),
  "dedupe claim + complete": async (b) => {
    const key = `d${serial++}`;
    await b.dedupe.claim(key, Date.now());
    await b.dedupe.complete(key, Date.now());
  },
  "store saveOutbound": (b) => b.store.saveOutbound(record(`r${serial++}`, 1_000 + serial)),
  "store getOutbound": (b) => b.store.getOutbound(`r${serial++ % 1000}`),
  "store listOutbound (status, 20)": (b) => b.store.listOutbound({ status: "failed", limit: 20 }),
  "store updateOutbound (compare-and-set)": async (b) => {
    const id = `u${serial++}`;
    await b.store.saveOutbound(record(id, 5));
    await b.store.updateOutbound(id, { status: "pending" }, 5);
  },
  "state set (create only) + get": async (b) => {
    const key = `s${serial++}`;
    await b.store.state.set("bench", key, { n: 1 }, { expectedVersion: null });
    await b.store.state.get("bench", key);
  },
  "queue enqueue + run": (b) =>
    b.queueRoundTrip({
      type: "gateway.webhook.process",
      id: `j${serial++}`,
      instance: "sales",
      attempt: 0,
      receivedAt: Date.now(),
      body,
    }),
  "lease acquire + release": async (b) => {
    const release = await b.lease.acquire("bench", 60_000);
    await release?.();
  },
};

const results = new Map<string, Map<Engine, number[]>>();
try {
  // Warm-up (not measured): connections opened, scripts loaded, code compiled.
  for (const operation of Object.values(OPERATIONS)) {
    for (const engine of ENGINES) for (let i = 0; i < 20; i++) await operation(backends[engine]);
  }
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, operation] of Object.entries(OPERATIONS)) {
      const order = ENGINES.map((_, i) => ENGINES[(i + round) % ENGINES.length]);
      for (const engine of order) {
        const b = backends[engine];
        const started = performance.now();
        for (let i = 0; i < OPS; i++) await operation(b);
        const perOp = (performance.now() - started) * 1000 / OPS;
        const byEngine = results.get(name) ?? new Map<Engine, number[]>();
        byEngine.set(engine, [...(byEngine.get(engine) ?? []), perOp]);
        results.set(name, byEngine);
      }
    }
  }
  const fmt = (us: number) => us < 10 ? `${us.toFixed(2)} µs` : `${Math.round(us)} µs`;
  console.log(`\n${ROUNDS} rounds × ${OPS} sequential operations; median of per-round means\n`);
  console.log("| operation | memory | KV (local file) | Redis (loopback) | Redis ÷ KV | Redis ÷ memory |");
  console.log("| --- | --- | --- | --- | --- | --- |");
  for (const [name, byEngine] of results) {
    const m = median(byEngine.get("memory")!);
    const k = median(byEngine.get("kv file")!);
    const r = median(byEngine.get("redis")!);
    console.log(
      `| ${name} | ${fmt(m)} | ${fmt(k)} | ${fmt(r)} | ${(r / k).toFixed(2)} | ${Math.round(r / m)} |`,
    );
  }
} finally {
  await Promise.all([
    (backends.redis.limiter as RedisRateLimiter).close(),
    (backends.redis.dedupe as RedisWebhookDedupe).close(),
    (backends.redis.store as RedisStore).close(),
    (backends.redis.lease as RedisTaskLease).close(),
    redisQueue.close(),
  ]);
  await redis.close();
  kv.close();
  await Deno.remove(dir, { recursive: true });
}
