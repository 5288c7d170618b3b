// The store contract suite (store_contract.ts) against MemoryStore and KvStore, and KvStore's own layout.
import { deepStrictEqual, ok, rejects, strictEqual, throws } from "node:assert/strict";
import { KvStore } from "../../src/backends/kv/store.ts";
import { MemoryStore } from "../../src/backends/memory/store.ts";
import { ids, outbound, storeContract } from "./store_contract.ts";

storeContract({
  name: "MemoryStore",
  open: (now) => Promise.resolve({ store: new MemoryStore({ now }), close: () => {} }),
});
storeContract({
  name: "KvStore",
  open: async (now) => {
    const kv = await Deno.openKv(":memory:");
    return { store: new KvStore(kv, { now }), close: () => kv.close() };
  },
});

// --- KvStore only: layout, leftovers, limits, persistence

async function withKv(body: (kv: Deno.Kv) => Promise<void>): Promise<void> {
  const kv = await Deno.openKv(":memory:");
  try {
    await body(kv);
  } finally {
    kv.close();
  }
}

async function keysUnder(kv: Deno.Kv, prefix: Deno.KvKey): Promise<Deno.KvKey[]> {
  const keys: Deno.KvKey[] = [];
  for await (const entry of kv.list({ prefix })) keys.push(entry.key);
  return keys;
}

Deno.test("KvStore: keys live under the prefix, with one entry per index", async () => {
  await withKv(async (kv) => {
    const store = new KvStore(kv, { prefix: ["app", "gw"] });
    await store.saveOutbound(outbound("a", 100));
    deepStrictEqual(await keysUnder(kv, ["app", "gw"]), [
      ["app", "gw", "outbound", "by_instance_status", "sales", "failed", 100, "a"],
      ["app", "gw", "outbound", "by_status", "failed", 100, "a"],
      ["app", "gw", "outbound", "by_time", 100, "a"],
      ["app", "gw", "outbound", "rec", "a"],
    ]);
    await store.updateOutbound("a", { status: "sent" }, 100);
    deepStrictEqual((await keysUnder(kv, ["app", "gw"])).filter((key) => key[3] !== "rec"), [
      ["app", "gw", "outbound", "by_instance_status", "sales", "sent", 100, "a"],
      ["app", "gw", "outbound", "by_status", "sent", 100, "a"],
      ["app", "gw", "outbound", "by_time", 100, "a"],
    ]);
    deepStrictEqual(await keysUnder(kv, ["gateway"]), []);
  });
});

Deno.test("KvStore: chunked records leave no keys behind after update and prune", async () => {
  await withKv(async (kv) => {
    const store = new KvStore(kv);
    await store.saveOutbound(outbound("a", 1, { body: { media: "x".repeat(1_000_000) } }));
    const chunks = (await keysUnder(kv, ["gateway", "outbound", "blob"])).length;
    strictEqual(
      chunks,
      Math.ceil(
        (JSON.stringify(outbound("a", 1, { body: { media: "x".repeat(1_000_000) } })).length) / 60_000,
      ),
    );
    const stub = await kv.get<Record<string, unknown>>(["gateway", "outbound", "rec", "a"]);
    deepStrictEqual(Object.keys(stub.value!).sort(), ["$blob", "createdAt", "id", "instance", "status"]);
    // A rewrite replaces the chunks (new generation) and removes the old ones.
    await store.updateOutbound("a", { lastError: "again" });
    strictEqual((await keysUnder(kv, ["gateway", "outbound", "blob"])).length, chunks);
    await store.saveOutbound(outbound("a", 1));
    strictEqual((await keysUnder(kv, ["gateway", "outbound", "blob"])).length, 0);
    await store.saveOutbound(outbound("b", 2, { body: { media: "y".repeat(100_000) } }));
    strictEqual(await store.prune("outbound", 10), 2);
    deepStrictEqual(await keysUnder(kv, ["gateway"]), []);
  });
});

Deno.test("KvStore: a record over maxRecordBytes is refused with a clear error", async () => {
  await withKv(async (kv) => {
    const store = new KvStore(kv, { maxRecordBytes: 100_000 });
    await rejects(() => store.saveOutbound(outbound("a", 1, { body: { media: "x".repeat(200_000) } })), {
      name: "RangeError",
      message: /^Cannot save outbound record "a": it takes \d+ bytes as JSON, more than the 100000 allowed/,
    });
    strictEqual(await store.getOutbound("a"), null);
    deepStrictEqual(await keysUnder(kv, ["gateway"]), []);
    throws(() => new KvStore(kv, { maxRecordBytes: 0 }), {
      name: "ConfigurationException",
      message: 'Cannot create KvStore: "maxRecordBytes" must be an integer from 1 to 33554432, got "0"',
    });
  });
});

Deno.test("KvStore: a stale index entry is never returned as a match", async () => {
  await withKv(async (kv) => {
    const store = new KvStore(kv);
    await store.saveOutbound(outbound("a", 100, { status: "sent" }));
    // Simulate an index entry left behind by a foreign writer.
    await kv.set(["gateway", "outbound", "by_status", "failed", 100, "a"], null);
    deepStrictEqual(await store.listOutbound({ status: "failed" }), []);
    deepStrictEqual(ids(await store.listOutbound({ status: "sent" })), ["a"]);
    // A stale time entry neither counts as a record nor stops prune.
    await kv.set(["gateway", "outbound", "by_time", 5, "a"], null);
    strictEqual(await store.prune("outbound", 50), 0);
    strictEqual((await kv.get(["gateway", "outbound", "by_time", 5, "a"])).versionstamp, null);
    ok(await store.getOutbound("a"));
  });
});

Deno.test("KvStore: records persist in a KV file across reopen", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/store.sqlite`;
  try {
    const first = await Deno.openKv(path);
    await new KvStore(first).saveOutbound(outbound("a", 100));
    first.close();
    const second = await Deno.openKv(path);
    try {
      deepStrictEqual(await new KvStore(second).listOutbound({ status: "failed" }), [outbound("a", 100)]);
    } finally {
      second.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
