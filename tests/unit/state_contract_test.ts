import { strictEqual } from "node:assert/strict";
import { KvState } from "../../src/backends/kv/state.ts";
import { MemoryState } from "../../src/backends/memory/state.ts";
import { KvStore } from "../../src/backends/kv/store.ts";
import { MemoryStore } from "../../src/backends/memory/store.ts";
import { stateContract } from "./state_contract.ts";

stateContract({
  name: "MemoryState",
  open: (now) => Promise.resolve({ state: new MemoryState({ now }), close() {} }),
});
stateContract({
  name: "KvState",
  open: async (now) => {
    const kv = await Deno.openKv(":memory:");
    return { state: new KvState(kv, { now }), close: () => kv.close() };
  },
});

Deno.test("stores expose their state: MemoryStore and KvStore share the store's clock and prefix", async () => {
  const memory = new MemoryStore({ now: () => 5 });
  await memory.state.set("n", "k", 1, { expiresAt: 6 });
  strictEqual((await memory.state.get("n", "k"))?.value, 1);

  const kv = await Deno.openKv(":memory:");
  try {
    const store = new KvStore(kv, { prefix: ["app"] });
    await store.state.set("n", "k", "v");
    strictEqual((await kv.get(["app", "state", "n", "k"])).value !== null, true);
  } finally {
    kv.close();
  }
});

Deno.test("KvState: two handles on one file, 40 concurrent creates of one key → exactly one wins", async () => {
  const dir = await Deno.makeTempDir();
  const a = await Deno.openKv(`${dir}/state.kv`);
  const b = await Deno.openKv(`${dir}/state.kv`);
  try {
    const states = [new KvState(a), new KvState(b)];
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, i) => states[i % 2].set("claims", "k", i, { expectedVersion: null })),
    );
    strictEqual(results.filter((r) => r !== null).length, 1);
  } finally {
    a.close();
    b.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("MemoryState frees expired entries without reads of them", async () => {
  let t = 0;
  const state = new MemoryState({ now: () => t });
  for (let i = 0; i < 1000; i++) await state.set("n", `k${i}`, i, { expiresAt: 10 });
  t = 10;
  for (let i = 0; i < 1000; i++) await state.set("m", `k${i}`, i);
  // Held: only the 1000 live ones (a sweep ran after the first 1000 expired, without any read of them).
  strictEqual(state.size, 1000);
});
