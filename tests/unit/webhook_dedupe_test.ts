import { deepStrictEqual, strictEqual, throws } from "node:assert/strict";
import { KvWebhookDedupe, MemoryWebhookDedupe, type WebhookDedupe } from "../../src/webhooks/dedupe.ts";
import { createWebhookHandler } from "../../src/webhooks/handler.ts";
import { WebhookProcessor } from "../../src/webhooks/processor.ts";
import { signWebhook } from "../../src/webhooks/signature.ts";

const T0 = 1_760_000_000_000;

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

async function lifecycle(dedupe: WebhookDedupe): Promise<void> {
  strictEqual(await dedupe.claim("a", T0), true);
  // In progress: a concurrent redelivery is a duplicate.
  strictEqual(await dedupe.claim("a", T0 + 1000), false);
  // The lease (10 s here) ran out without completion: another delivery may take over.
  strictEqual(await dedupe.claim("a", T0 + 10_001), true);
  await dedupe.complete("a", T0 + 10_001);
  strictEqual(await dedupe.claim("a", T0 + 20_000), false);
  strictEqual(await dedupe.claim("a", T0 + 10_001 + 59_999), false);
  // The window (60 s) ran out: a new delivery is processed again.
  strictEqual(await dedupe.claim("a", T0 + 10_001 + 60_000), true);
  await dedupe.release("a");
  strictEqual(await dedupe.claim("a", T0 + 70_002), true);
  strictEqual(await dedupe.claim("b", T0), true);
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

async function concurrentDeliveries(dedupe: WebhookDedupe): Promise<void> {
  let runs = 0;
  let open!: () => void;
  const gate = new Promise<void>((resolve) => open = resolve);
  const processor = new WebhookProcessor({ log: false }).onAny(async () => {
    runs++;
    await gate;
  });
  const handler = createWebhookHandler({
    signature: { secret: "dedupe-secret" },
    processor,
    dedupe,
    metrics: false,
  });
  const body = JSON.stringify({ event: "messages.upsert", instance: "sales", data: { key: { id: "X" } } });
  const headers = await signWebhook({ body, secret: "dedupe-secret" });
  const responses = Array.from(
    { length: 50 },
    () => handler(new Request("http://h/gateway/webhook/sales", { method: "POST", headers, body })),
  );
  // Let every request reach its claim before the one that won finishes.
  const settled: Response[] = [];
  let allDuplicatesIn!: () => void;
  const duplicatesIn = new Promise<void>((resolve) => allDuplicatesIn = resolve);
  const duplicates = responses.map(async (promise) => {
    const response = await promise;
    settled.push(response);
    if (settled.length === 49) allDuplicatesIn();
  });
  // The winner is parked in its handler until the 49 others have been answered.
  await duplicatesIn;
  strictEqual(runs, 1);
  open();
  await Promise.all(duplicates);
  const bodies = await Promise.all(
    settled.map(async (response) => `${response.status} ${await response.text()}`),
  );
  strictEqual(runs, 1);
  strictEqual(bodies.filter((text) => text === '200 {"ok":true}').length, 1);
  // While the first delivery runs it may still fail: the others are asked to come back (the server retries
  // a 409), never told "duplicate", so a failure of the first cannot lose the event.
  strictEqual(
    bodies.filter((text) =>
      text === '409 {"ok":false,"error":"Conflict: the same delivery is being processed"}'
    )
      .length,
    49,
  );
  const again = await handler(
    new Request("http://h/gateway/webhook/sales", { method: "POST", headers, body }),
  );
  strictEqual(`${again.status} ${await again.text()}`, '200 {"ok":true,"duplicate":true}');
  strictEqual(runs, 1);
}

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

Deno.test("dedupe settings are validated", () => {
  throws(() => new MemoryWebhookDedupe({ windowSeconds: 0 }), /windowSeconds/);
  throws(() => new MemoryWebhookDedupe({ leaseSeconds: NaN }), /leaseSeconds/);
});
