// The StateStore contract: every engine (memory, Deno KV, Redis, D1, Durable Objects) runs this suite.
import { deepStrictEqual, ok, rejects, strictEqual } from "node:assert/strict";
import type { StateStore } from "../../src/store/state.ts";

/** An engine under test: `open` gets a clock and returns the state and how to close it. */
export interface StateHarness {
  name: string;
  open(now: () => number): Promise<{ state: StateStore; close(): Promise<void> | void }>;
  /**
   * False for engines reached through a client that keeps its own timers (miniflare's keep-alive), whose
   * leaks are not the engine's: the op and resource sanitizers are then off for its tests.
   */
  sanitize?: boolean;
}

/** Register the contract tests for one engine. */
export function stateContract(harness: StateHarness): void {
  const test = (name: string, body: (state: StateStore, clock: { t: number }) => Promise<void>) =>
    Deno.test({
      name: `${harness.name} state contract: ${name}`,
      sanitizeOps: harness.sanitize !== false,
      sanitizeResources: harness.sanitize !== false,
      async fn() {
        const clock = { t: 1_700_000_000_000 };
        const opened = await harness.open(() => clock.t);
        try {
          await body(opened.state, clock);
        } finally {
          await opened.close();
        }
      },
    });

  test("set then get returns the value and its version", async (state) => {
    const version = await state.set("n", "k", { a: 1, b: ["x"] });
    ok(version !== null);
    deepStrictEqual(await state.get("n", "k"), { value: { a: 1, b: ["x"] }, version });
    strictEqual(await state.get("n", "other"), null);
    strictEqual(await state.get("other", "k"), null);
  });

  test("expectedVersion null creates only once", async (state) => {
    const first = await state.set("claims", "order-42", "a", { expectedVersion: null });
    ok(first !== null);
    strictEqual(await state.set("claims", "order-42", "b", { expectedVersion: null }), null);
    strictEqual((await state.get("claims", "order-42"))?.value, "a");
  });

  test("compare-and-set succeeds only at the current version", async (state) => {
    const v1 = (await state.set("n", "k", 1))!;
    const v2 = await state.set("n", "k", 2, { expectedVersion: v1 });
    ok(v2 !== null && v2 !== v1);
    strictEqual(await state.set("n", "k", 3, { expectedVersion: v1 }), null);
    strictEqual((await state.get("n", "k"))?.value, 2);
    strictEqual(await state.set("n", "missing", 1, { expectedVersion: v1 }), null);
  });

  test("an expired entry reads as absent at once and can be claimed again", async (state, clock) => {
    const v1 = (await state.set("n", "k", "old", { expiresAt: clock.t + 1000 }))!;
    deepStrictEqual(await state.get("n", "k"), { value: "old", version: v1, expiresAt: clock.t + 1000 });
    clock.t += 1000;
    strictEqual(await state.get("n", "k"), null);
    strictEqual(await state.set("n", "k", "x", { expectedVersion: v1 }), null);
    ok(await state.set("n", "k", "new", { expectedVersion: null }) !== null);
    strictEqual((await state.get("n", "k"))?.value, "new");
    strictEqual((await state.get("n", "k"))?.expiresAt, undefined);
  });

  test("delete removes a live entry, honouring expectedVersion", async (state) => {
    const v1 = (await state.set("n", "k", 1))!;
    strictEqual(await state.delete("n", "k", { expectedVersion: "0" }), false);
    strictEqual(await state.delete("n", "k", { expectedVersion: v1 }), true);
    strictEqual(await state.get("n", "k"), null);
    strictEqual(await state.delete("n", "k"), false);
  });

  test(
    "list returns live entries of one namespace in key order, by prefix, limited",
    async (state, clock) => {
      await state.set("n", "b:2", 2);
      await state.set("n", "a:1", 1);
      await state.set("n", "b:1", 3);
      await state.set("n", "b:9", 9, { expiresAt: clock.t + 10 });
      await state.set("m", "b:0", 0);
      clock.t += 10;
      deepStrictEqual((await state.list("n")).map((e) => [e.key, e.value]), [["a:1", 1], ["b:1", 3], [
        "b:2",
        2,
      ]]);
      deepStrictEqual((await state.list("n", { prefix: "b:" })).map((e) => e.key), ["b:1", "b:2"]);
      deepStrictEqual((await state.list("n", { limit: 1 })).map((e) => e.key), ["a:1"]);
      deepStrictEqual(await state.list("empty"), []);
    },
  );

  test("bad keys, values and limits are refused before any write", async (state) => {
    await rejects(state.set("", "k", 1), TypeError);
    await rejects(state.set("n", "", 1), TypeError);
    await rejects(state.set("n", "k", undefined), TypeError);
    await rejects(state.set("n", "k", "x".repeat(60_000)), RangeError);
    await rejects(state.set("n", "k", 1, { expiresAt: Number.NaN }), TypeError);
    await rejects(state.list("n", { limit: 0 }), RangeError);
    strictEqual(await state.get("n", "k"), null);
  });

  test("20 concurrent creates of one key: exactly one wins", async (state) => {
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => state.set("claims", "one", i, { expectedVersion: null })),
    );
    strictEqual(results.filter((r) => r !== null).length, 1);
  });
}
