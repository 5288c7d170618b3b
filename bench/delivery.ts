/**
 * Delivery figures: the added cost of recipient resolution on a send (cached: one store read), and the
 * reconciler's throughput (inbound messages checked per second against the in-process simulator).
 *
 *   deno run -A bench/delivery.ts [--rounds 15] [--sends 200] [--messages 2000]
 *
 * Sends: per round, each variant makes `--sends` sequential `messages().text()` calls against the
 * simulator (as an injected fetch, so no socket noise); its median latency is divided by the baseline's
 * (no `resolve`) in the same round, variant order rotated; the figure is the median ratio over the rounds.
 * Reconciler: `--messages` inbound messages over 20 chats, none delivered by webhook, reconciled into a
 * MemoryStore and into a KvStore on a temporary file; then a second run over the same messages.
 */

import { GatewayService, KvStore, MemoryStore, WebhookProcessor } from "../mod.ts";
import { reconcileInboundMessages } from "../src/delivery/mod.ts";
import type { GatewayStore } from "../src/store/store.ts";
import type { StateStore } from "../src/store/state.ts";
import { GatewaySimulator } from "../src/testing/mod.ts";
import { median } from "./stats.ts";

function flag(name: string, fallback: number): number {
  const index = Deno.args.indexOf(`--${name}`);
  return index >= 0 ? Number(Deno.args[index + 1]) : fallback;
}

const ROUNDS = flag("rounds", 15);
const SENDS = flag("sends", 200);
const MESSAGES = flag("messages", 2000);
const KEY = "bench-key";
const BASE = "http://gateway.bench";

/** Counts state reads, to show what a cached resolution costs. */
function countingState(state: StateStore): { state: StateStore; reads: () => number } {
  let reads = 0;
  return {
    reads: () => reads,
    state: {
      get: (namespace, key) => {
        reads++;
        return state.get(namespace, key);
      },
      set: (namespace, key, value, options) => state.set(namespace, key, value, options),
      delete: (namespace, key, options) => state.delete(namespace, key, options),
      list: (namespace, options) => state.list(namespace, options),
    },
  };
}

function withState(store: GatewayStore, state: StateStore): GatewayStore {
  return new Proxy(store, {
    get: (target, property) => {
      if (property === "state") return state;
      const value = Reflect.get(target, property, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

async function sends(): Promise<void> {
  const sim = new GatewaySimulator({ apiKey: KEY });
  // Counted here: the simulator's request log is cleared between rounds.
  const checksBy = new Map<string, number>();
  const counted = (name: string): typeof fetch => (input, init) => {
    const url = input instanceof Request ? input.url : String(input);
    if (url.includes("/chat/whatsappNumbers/")) checksBy.set(name, (checksBy.get(name) ?? 0) + 1);
    return sim.fetch(input, init);
  };
  sim.addInstance("bench", { open: true });
  sim.registerAccount("551199998888");
  const dir = await Deno.makeTempDir();
  const kv = await Deno.openKv(`${dir}/bench.kv`);
  const memoryCount = countingState(new MemoryStore().state);
  const kvCount = countingState(new KvStore(kv).state);
  const service = (name: string, state: StateStore | undefined) =>
    new GatewayService({
      server_url: BASE,
      api_key: KEY,
      instance: "bench",
      rate_limiting: { enabled: false },
      // Every variant records its sends in a MemoryStore: only the resolution's state differs.
      store: state === undefined ? new MemoryStore() : withState(new MemoryStore(), state),
    }, { fetch: counted(name) });
  const plain = service("plain", undefined);
  const memory = service("memory", memoryCount.state);
  const onKv = service("kv", kvCount.state);
  // Records its sends like the others, but its recipient cache never answers.
  const forgetful = new MemoryStore().state;
  const uncached = service("uncached", {
    get: (namespace, key) =>
      namespace === "recipient" ? Promise.resolve(null) : forgetful.get(namespace, key),
    set: (namespace, key, value, options) => forgetful.set(namespace, key, value, options),
    delete: (namespace, key, options) => forgetful.delete(namespace, key, options),
    list: (namespace, options) => forgetful.list(namespace, options),
  });
  const variants: [string, () => Promise<unknown>][] = [
    ["text() without resolve (baseline)", () => plain.messages().text("551199998888", "hi")],
    [
      "text() with resolve, cached in MemoryState",
      () => memory.messages().text("5511999998888", "hi", {}, { resolve: true }),
    ],
    [
      "text() with resolve, cached in KvState (file)",
      () => onKv.messages().text("5511999998888", "hi", {}, { resolve: true }),
    ],
    [
      "text() with resolve, never cached (asks whatsappNumbers each time)",
      () => uncached.messages().text("5511999998888", "hi", {}, { resolve: true }),
    ],
  ];
  // Warm the caches and the JIT.
  for (const [, run] of variants) for (let i = 0; i < 50; i++) await run();
  const readsBefore = [memoryCount.reads(), kvCount.reads()];
  checksBy.clear();
  const ratios: number[][] = variants.map(() => []);
  const medians: number[][] = variants.map(() => []);
  for (let round = 0; round < ROUNDS; round++) {
    const order = variants.map((_, i) => (i + round) % variants.length);
    const perVariant: number[] = [];
    for (const index of order) {
      const times: number[] = [];
      for (let i = 0; i < SENDS; i++) {
        const start = performance.now();
        await variants[index][1]();
        times.push(performance.now() - start);
      }
      perVariant[index] = median(times);
      sim.reset();
      sim.addInstance("bench", { open: true });
      sim.registerAccount("551199998888");
    }
    variants.forEach((_, i) => {
      ratios[i].push(perVariant[i] / perVariant[0]);
      medians[i].push(perVariant[i]);
    });
  }
  const sent = ROUNDS * SENDS;
  console.log(`\nSends (${ROUNDS} rounds × ${SENDS} sends per variant)`);
  console.log("| variant | median latency | ratio to baseline |");
  console.log("| --- | --- | --- |");
  variants.forEach(([name], i) => {
    console.log(
      `| ${name} | ${(median(medians[i]) * 1000).toFixed(0)} µs | ${median(ratios[i]).toFixed(3)} |`,
    );
  });
  console.log(
    `State reads per resolved send: memory ${(memoryCount.reads() - readsBefore[0]) / sent}, KV ${
      (kvCount.reads() - readsBefore[1]) / sent
    }; whatsappNumbers calls in the timed rounds: ${JSON.stringify(Object.fromEntries(checksBy))}`,
  );
  kv.close();
  await sim.close();
  await Deno.remove(dir, { recursive: true });
}

async function reconciler(): Promise<void> {
  const now = Date.UTC(2026, 10, 23, 12, 0, 0);
  const dir = await Deno.makeTempDir();
  const kv = await Deno.openKv(`${dir}/reconcile.kv`);
  console.log(
    `\nReconciler (${MESSAGES} inbound messages over 20 chats and one day, none delivered by webhook)`,
  );
  console.log("| store | run | messages checked | recovered | time | checked/s |");
  console.log("| --- | --- | --- | --- | --- | --- |");
  for (
    const [name, store] of [["MemoryStore", new MemoryStore({ now: () => now })], [
      "KvStore (file)",
      new KvStore(kv),
    ]] as const
  ) {
    const sim = new GatewaySimulator({ apiKey: KEY, now: () => now });
    sim.addInstance("bench", { open: true });
    for (let i = 0; i < MESSAGES; i++) {
      sim.simulateInboundMessage("bench", {
        from: `55119${String(i % 20).padStart(8, "0")}`,
        text: `message ${i}`,
        id: `B${i}`,
        // One message every 40 s over the last day: a second run re-checks only its 10-minute overlap.
        timestamp: Math.floor(now / 1000) - 86_000 + i * 40,
      });
    }
    const processor = new WebhookProcessor({ store, log: false }).on("messages.upsert", () => {});
    // The client's rate limiter is off: this measures the reconciler, not the limiter's waits.
    const gw = new GatewayService(
      { server_url: BASE, api_key: KEY, instance: "bench", store, rate_limiting: { enabled: false } },
      { fetch: sim.fetch },
    );
    for (const run of ["first (recovers all)", "second (nothing new)"]) {
      const start = performance.now();
      const result = await reconcileInboundMessages(gw, {
        processor,
        maxMessages: MESSAGES * 2,
        now: () => now,
      });
      const ms = performance.now() - start;
      console.log(
        `| ${name} | ${run} | ${result.seen} | ${result.recovered} | ${ms.toFixed(0)} ms | ${
          Math.round(result.seen / (ms / 1000))
        } |`,
      );
    }
    await sim.close();
  }
  kv.close();
  await Deno.remove(dir, { recursive: true });
}

await sends();
await reconciler();
