// The TaskLease contract: every engine (Deno KV, Redis) runs this suite.
import { ok, strictEqual } from "node:assert/strict";
import type { TaskLease } from "../../src/tasks/task_lease.ts";

/** An engine under test: `open` gets a clock and returns two leases on the same backing store. */
export interface LeaseHarness {
  name: string;
  open(now: () => number): Promise<{ leases: [TaskLease, TaskLease]; close(): Promise<void> | void }>;
}

/** Register the contract tests for one engine. */
export function leaseContract(harness: LeaseHarness): void {
  const test = (
    name: string,
    body: (leases: [TaskLease, TaskLease], clock: { t: number }) => Promise<void>,
  ) =>
    Deno.test(`${harness.name} lease contract: ${name}`, async () => {
      const clock = { t: 1_700_000_000_000 };
      const opened = await harness.open(() => clock.t);
      try {
        await body(opened.leases, clock);
      } finally {
        await opened.close();
      }
    });

  test("a held lease is refused to everyone else until its holder frees it", async ([a, b]) => {
    const release = await a.acquire("prune", 60_000);
    ok(release !== null);
    strictEqual(await b.acquire("prune", 60_000), null);
    strictEqual(await a.acquire("prune", 60_000), null);
    ok(await b.acquire("retry_failed", 60_000) !== null);
    await release();
    const next = await b.acquire("prune", 60_000);
    ok(next !== null);
    await next();
  });

  test(
    "a crashed holder's lease is free after ttlMs, and its late release frees nothing",
    async ([a, b], clock) => {
      const stale = await a.acquire("prune", 60_000);
      ok(stale !== null);
      clock.t += 59_999;
      strictEqual(await b.acquire("prune", 60_000), null);
      clock.t += 1;
      const taken = await b.acquire("prune", 60_000);
      ok(taken !== null);
      await stale();
      strictEqual(await a.acquire("prune", 60_000), null);
      await taken();
    },
  );

  test("20 concurrent acquires of one lease: exactly one holder", async ([a, b]) => {
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).acquire("x", 60_000)),
    );
    strictEqual(results.filter((release) => release !== null).length, 1);
  });
}
