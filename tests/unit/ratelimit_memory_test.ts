import { strictEqual } from "node:assert/strict";
import { MemoryRateLimiter } from "../../src/ratelimit/memory.ts";
import { fakeClock, limiterContract } from "./ratelimit_contract.ts";

limiterContract(
  "MemoryRateLimiter",
  (clock) => Promise.resolve({ limiter: new MemoryRateLimiter({ now: clock.now }), close: () => {} }),
);

Deno.test("MemoryRateLimiter: expired windows are swept without a timer", async () => {
  const clock = fakeClock();
  const limiter = new MemoryRateLimiter({ now: clock.now });
  for (let i = 0; i < 1000; i++) await limiter.attempt(`old:${i}`, 1, 1);
  strictEqual(limiter.size, 1000);
  clock.t += 1_000;
  // Reading an expired key drops it; the sweep that runs every 1024 attempts drops the rest.
  strictEqual(await limiter.availableIn("old:0", 1), 0);
  strictEqual(limiter.size, 999);
  for (let i = 0; i < 24; i++) await limiter.attempt("fresh", 100, 60);
  strictEqual(limiter.size, 1);
});

Deno.test("MemoryRateLimiter: defaults to the real clock", async () => {
  const limiter = new MemoryRateLimiter();
  strictEqual(await limiter.attempt("k", 1, 3600), true);
  strictEqual(await limiter.attempt("k", 1, 3600), false);
  const seconds = await limiter.availableIn("k", 3600);
  strictEqual(seconds > 3599 && seconds <= 3600, true);
});
