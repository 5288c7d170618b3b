import { deepStrictEqual, ok, strictEqual, throws } from "node:assert/strict";
import { InstanceDisconnectedException, MemoryState, type StateStore } from "../../mod.ts";
import { InstanceHealth } from "../../src/delivery/mod.ts";

Deno.test("MemoryState.getNow: the live entry at once, frozen and shared until the next write", async () => {
  let now = 1_000;
  const state = new MemoryState({ now: () => now });
  strictEqual(state.getNow("n", "k"), null);
  const v1 = await state.set("n", "k", { list: [1, 2], nested: { a: "x" } }, { expiresAt: 5_000 });
  const first = state.getNow<{ list: number[]; nested: { a: string } }>("n", "k")!;
  deepStrictEqual(first, { value: { list: [1, 2], nested: { a: "x" } }, version: v1, expiresAt: 5_000 });
  ok(Object.isFrozen(first) && Object.isFrozen(first.value.list) && Object.isFrozen(first.value.nested));
  strictEqual(state.getNow("n", "k"), first);
  throws(() => {
    first.value.list.push(3);
  }, TypeError);
  // get() still hands out a fresh copy the caller may change.
  const copy = (await state.get<{ list: number[] }>("n", "k"))!;
  copy.value.list.push(3);
  deepStrictEqual(state.getNow<{ list: number[] }>("n", "k")!.value.list, [1, 2]);
  const v2 = await state.set("n", "k", { list: [] });
  deepStrictEqual(state.getNow("n", "k"), { value: { list: [] }, version: v2 });
  await state.set("n", "gone", 1, { expiresAt: 2_000 });
  now = 2_000;
  strictEqual(state.getNow("n", "gone"), null);
  throws(() => state.getNow("", "k"), TypeError);
});

Deno.test("InstanceHealth.breakerNow: clean, closed, or undefined when the breaker is not closed", async () => {
  const ref = { connection: "default", instance: "sales" };
  let now = 10_000;
  const health = new InstanceHealth(new MemoryState({ now: () => now }), {
    now: () => now,
    cooldownMs: 1_000,
  });
  strictEqual(health.breakerNow(ref), "closed");
  await health.recordSendSuccess(ref);
  strictEqual(health.breakerNow(ref), "clean");
  const down = new InstanceDisconnectedException("Connection Closed");
  await health.recordSendFailure(ref, down);
  strictEqual(health.breakerNow(ref), "closed");
  await health.recordSendFailure(ref, down);
  strictEqual((await health.get(ref)).breaker, "open");
  strictEqual(health.breakerNow(ref), undefined);
  now += 1_000;
  strictEqual((await health.get(ref)).breaker, "half_open");
  strictEqual(health.breakerNow(ref), undefined);
});

Deno.test("InstanceHealth.breakerNow is undefined over a store that reads only asynchronously", () => {
  const memory = new MemoryState();
  const asyncOnly: StateStore = {
    get: (namespace, key) => memory.get(namespace, key),
    set: (namespace, key, value, options) => memory.set(namespace, key, value, options),
    delete: (namespace, key, options) => memory.delete(namespace, key, options),
    list: (namespace, options) => memory.list(namespace, options),
  };
  const health = new InstanceHealth(asyncOnly, { now: () => 0 });
  strictEqual(health.breakerNow({ connection: "default", instance: "sales" }), undefined);
});
