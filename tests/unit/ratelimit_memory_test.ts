import { strictEqual } from "node:assert/strict";
import { MemoryRateLimiter } from "../../src/backends/memory/rate_limiter.ts";
import { fakeClock, limiterContract } from "./ratelimit_contract.ts";

limiterContract(
  "MemoryRateLimiter",
  (clock) => Promise.resolve({ limiter: new MemoryRateLimiter({ now: clock.now }), close: () => {} }),
);

Deno.test("MemoryRateLimiter: ended windows are dropped at the next call, whatever key it is for", async () => {
  const clock = fakeClock();
  const limiter = new MemoryRateLimiter({ now: clock.now });
  for (let i = 0; i < 100_000; i++) await limiter.attempt(`old:${i}`, 1, 1);
  for (let i = 0; i < 10; i++) await limiter.attempt(`long:${i}`, 1, 60);
  strictEqual(limiter.size, 100_010);
  clock.t += 1_000;
  // One call, for another key: every 1-second window has ended and is dropped; the 60-second ones stay.
  strictEqual(await limiter.availableIn("unrelated", 1), 0);
  strictEqual(limiter.size, 10);
  clock.t += 59_000;
  strictEqual(await limiter.attempt("fresh", 100, 60), true);
  strictEqual(limiter.size, 1);
});

Deno.test("MemoryRateLimiter: a key whose window ended and reopened keeps its new window", async () => {
  const clock = fakeClock();
  const limiter = new MemoryRateLimiter({ now: clock.now });
  strictEqual(await limiter.attempt("k", 1, 1), true);
  clock.t += 1_000;
  strictEqual(await limiter.attempt("k", 1, 1), true); // the old window's queue item is now stale
  strictEqual(await limiter.attempt("k", 1, 1), false);
  clock.t += 500;
  strictEqual(await limiter.availableIn("k", 1), 0.5);
  strictEqual(limiter.size, 1);
});

Deno.test("MemoryRateLimiter: defaults to the real clock", async () => {
  const limiter = new MemoryRateLimiter();
  strictEqual(await limiter.attempt("k", 1, 3600), true);
  strictEqual(await limiter.attempt("k", 1, 3600), false);
  const seconds = await limiter.availableIn("k", 3600);
  strictEqual(seconds > 3599 && seconds <= 3600, true);
});
