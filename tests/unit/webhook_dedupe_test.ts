import { deepStrictEqual, strictEqual, throws } from "node:assert/strict";
import { KvWebhookDedupe } from "../../src/backends/kv/dedupe.ts";
import { MemoryWebhookDedupe } from "../../src/backends/memory/dedupe.ts";
import { concurrentDeliveries, lifecycle, T0 } from "./dedupe_contract.ts";

async function withKv(fn: (kv: Deno.Kv, path: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "gw_dedupe_" });
  const kv = await Deno.openKv(`${dir}/dedupe.sqlite3`);
  try {
    await fn(kv, `${dir}/dedupe.sqlite3`);
  } finally {
    kv.close();
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("MemoryWebhookDedupe: claim, lease, complete, window and release", async () => {
  await lifecycle(new MemoryWebhookDedupe({ windowSeconds: 60, leaseSeconds: 10 }));
});

Deno.test("KvWebhookDedupe: claim, lease, complete, window and release", async () => {
  await withKv((kv) => lifecycle(new KvWebhookDedupe(kv, { windowSeconds: 60, leaseSeconds: 10 })));
});

Deno.test("KvWebhookDedupe: a record past its own expiry time does not count, even if KV has not deleted it", async () => {
  await withKv(async (kv) => {
    const dedupe = new KvWebhookDedupe(kv, { prefix: ["t"] });
    await kv.set(["t", "old"], { state: "done", expiresAt: T0 - 1 });
    strictEqual(await dedupe.claim("old", T0), true);
    const entry = await kv.get<{ state: string; expiresAt: number }>(["t", "old"]);
    deepStrictEqual(entry.value, { state: "processing", expiresAt: T0 + 120_000 });
  });
});

Deno.test("50 concurrent claims of one key: exactly one wins (memory and KV)", async () => {
  const memory = new MemoryWebhookDedupe();
  const results = await Promise.all(Array.from({ length: 50 }, () => memory.claim("same", T0)));
  strictEqual(results.filter(Boolean).length, 1);
  await withKv(async (kv, path) => {
    const dedupe = new KvWebhookDedupe(kv);
    const kvResults = await Promise.all(Array.from({ length: 50 }, () => dedupe.claim("same", T0)));
    strictEqual(kvResults.filter(Boolean).length, 1);
    // Two handles on the same file (as two processes would have) behave the same way.
    const second = await Deno.openKv(path);
    try {
      const other = new KvWebhookDedupe(second);
      const mixed = await Promise.all(
        Array.from({ length: 20 }, (_, i) => (i % 2 ? dedupe : other).claim("x", T0)),
      );
      strictEqual(mixed.filter(Boolean).length, 1);
    } finally {
      second.close();
    }
  });
});

Deno.test("50 identical deliveries at the same moment run the handlers once (memory)", async () => {
  await concurrentDeliveries(new MemoryWebhookDedupe());
});

Deno.test("50 identical deliveries at the same moment run the handlers once (Deno KV)", async () => {
  await withKv((kv) => concurrentDeliveries(new KvWebhookDedupe(kv)));
});

Deno.test("MemoryWebhookDedupe stays bounded: expired records are swept, then the oldest dropped", async () => {
  const dedupe = new MemoryWebhookDedupe({ windowSeconds: 1, maxEntries: 10 });
  for (let i = 0; i < 10; i++) await dedupe.complete(`k${i}`, T0);
  strictEqual(dedupe.size, 10);
  strictEqual(await dedupe.claim("fresh", T0 + 5_000), true);
  strictEqual(dedupe.size, 1);
  for (let i = 0; i < 20; i++) await dedupe.claim(`live${i}`, T0 + 5_000);
  strictEqual(dedupe.size, 10);
});

Deno.test("MemoryWebhookDedupe when full: expired claims go first, then the oldest processed record, never a live claim", async () => {
  const dedupe = new MemoryWebhookDedupe({ windowSeconds: 100, leaseSeconds: 1, maxEntries: 4 });
  await dedupe.claim("stale-claim", T0); // lease ends at T0 + 1 s
  await dedupe.complete("done-1", T0);
  await dedupe.complete("done-2", T0 + 1);
  await dedupe.claim("live-claim", T0 + 2_000);
  strictEqual(await dedupe.claim("new-1", T0 + 2_000), true);
  // The expired claim made room: both processed records are still refused.
  strictEqual(dedupe.size, 4);
  strictEqual(await dedupe.state("done-1", T0 + 2_000), "done");
  strictEqual(await dedupe.claim("new-2", T0 + 2_000), true);
  // No expired record left: the oldest processed one ("done-1") was dropped; the live claims stay.
  strictEqual(await dedupe.state("done-1", T0 + 2_000), null);
  strictEqual(await dedupe.state("done-2", T0 + 2_000), "done");
  strictEqual(await dedupe.state("live-claim", T0 + 2_000), "processing");
  strictEqual(await dedupe.state("new-1", T0 + 2_000), "processing");
  strictEqual(dedupe.size, 4);
});

Deno.test("dedupe settings are validated", () => {
  throws(() => new MemoryWebhookDedupe({ windowSeconds: 0 }), /windowSeconds/);
  throws(() => new MemoryWebhookDedupe({ leaseSeconds: NaN }), /leaseSeconds/);
});
