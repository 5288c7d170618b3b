/**
 * Behaviour every rate limiter of the library shares, run against each one by its own test file.
 * A fake clock drives the windows; no test sleeps.
 */

import { deepStrictEqual, rejects, strictEqual } from "node:assert/strict";
import { GatewayApiException } from "../../src/errors.ts";
import type { RateLimiterInterface } from "../../src/ratelimit/limiter.ts";

/** A clock the test moves by hand. */
export interface FakeClock {
  now: () => number;
  t: number;
}

/** A clock at an arbitrary epoch ms. */
export function fakeClock(start = 1_700_000_000_000): FakeClock {
  const clock: FakeClock = { t: start, now: () => clock.t };
  return clock;
}

/** Builds a fresh limiter on `clock`, and a cleanup to run after the test. */
export type LimiterFactory = (
  clock: FakeClock,
) => Promise<{ limiter: RateLimiterInterface; close(): void | Promise<void> }>;

async function attempts(limiter: RateLimiterInterface, key: string, n: number, max: number, decay: number) {
  const out: boolean[] = [];
  for (let i = 0; i < n; i++) out.push(await limiter.attempt(key, max, decay));
  return out;
}

/**
 * Register the shared tests under `name`. `sanitize: false` is for limiters reached through a client that
 * keeps its own timers (miniflare's keep-alive): the op and resource sanitizers are then off.
 */
export function limiterContract(
  name: string,
  make: LimiterFactory,
  options: { sanitize?: boolean } = {},
): void {
  const sanitize = options.sanitize !== false;
  const test = (title: string, fn: (limiter: RateLimiterInterface, clock: FakeClock) => Promise<void>) =>
    Deno.test({ name: `${name}: ${title}`, sanitizeOps: sanitize, sanitizeResources: sanitize }, async () => {
      const clock = fakeClock();
      const { limiter, close } = await make(clock);
      try {
        await fn(limiter, clock);
      } finally {
        await close();
      }
    });

  test("allows exactly maxAttempts per window, then refuses", async (limiter) => {
    deepStrictEqual(await attempts(limiter, "k", 5, 3, 60), [true, true, true, false, false]);
  });

  test("the window ends decaySeconds after the first attempt, to the millisecond", async (limiter, clock) => {
    const opened = clock.t;
    deepStrictEqual(await attempts(limiter, "k", 2, 2, 60), [true, true]);
    clock.t = opened + 59_999;
    strictEqual(await limiter.attempt("k", 2, 60), false);
    strictEqual(await limiter.availableIn("k", 60), 0.001);
    clock.t = opened + 60_000;
    strictEqual(await limiter.availableIn("k", 60), 0);
    deepStrictEqual(await attempts(limiter, "k", 3, 2, 60), [true, true, false]);
    // The new window opened at the first attempt after the old one closed.
    strictEqual(await limiter.availableIn("k", 60), 60);
  });

  test("fixed window: slots taken late in a window free together at its end", async (limiter, clock) => {
    const opened = clock.t;
    strictEqual(await limiter.attempt("k", 2, 10), true);
    clock.t = opened + 9_000;
    strictEqual(await limiter.attempt("k", 2, 10), true);
    strictEqual(await limiter.availableIn("k", 10), 1);
    clock.t = opened + 10_000;
    deepStrictEqual(await attempts(limiter, "k", 3, 2, 10), [true, true, false]);
  });

  test("a window opened later starts its own timer", async (limiter, clock) => {
    clock.t += 123_456;
    const opened = clock.t;
    deepStrictEqual(await attempts(limiter, "k", 2, 1, 30), [true, false]);
    clock.t = opened + 12_345;
    strictEqual(await limiter.availableIn("k", 30), 17.655);
  });

  test("availableIn is 0 for an unknown key and while slots remain", async (limiter) => {
    strictEqual(await limiter.availableIn("unknown", 60), 0);
    strictEqual(await limiter.attempt("k", 2, 60), true);
    strictEqual(await limiter.availableIn("k", 60), 0);
    strictEqual(await limiter.attempt("k", 2, 60), true);
    strictEqual(await limiter.availableIn("k", 60), 60);
  });

  test("availableIn follows the maxAttempts of the last attempt", async (limiter) => {
    deepStrictEqual(await attempts(limiter, "k", 3, 2, 60), [true, true, false]);
    strictEqual(await limiter.availableIn("k", 60), 60);
    // A caller with a larger limit still fits in the same window.
    strictEqual(await limiter.attempt("k", 3, 60), true);
    strictEqual(await limiter.attempt("k", 3, 60), false);
    strictEqual(await limiter.availableIn("k", 60), 60);
  });

  test("keys are independent", async (limiter) => {
    deepStrictEqual(await attempts(limiter, "a", 2, 1, 60), [true, false]);
    deepStrictEqual(await attempts(limiter, "b", 2, 1, 60), [true, false]);
    strictEqual(await limiter.availableIn("c", 60), 0);
  });

  test("clear frees every slot of the key only", async (limiter, clock) => {
    deepStrictEqual(await attempts(limiter, "a", 2, 1, 60), [true, false]);
    deepStrictEqual(await attempts(limiter, "b", 2, 1, 60), [true, false]);
    clock.t += 5_000;
    await limiter.clear("a");
    strictEqual(await limiter.availableIn("a", 60), 0);
    deepStrictEqual(await attempts(limiter, "a", 2, 1, 60), [true, false]);
    strictEqual(await limiter.availableIn("a", 60), 60);
    strictEqual(await limiter.availableIn("b", 60), 55);
    await limiter.clear("never-used");
  });

  test("concurrent attempts in one process take exactly maxAttempts", async (limiter) => {
    const results = await Promise.all(Array.from({ length: 60 }, () => limiter.attempt("k", 25, 60)));
    strictEqual(results.filter(Boolean).length, 25);
  });

  test("rejects arguments no window can be built from", async (limiter) => {
    await rejects(limiter.attempt("k", 0, 60), {
      name: "GatewayApiException",
      message: 'Cannot rate limit "k": maxAttempts must be an integer >= 1, got 0',
    });
    await rejects(limiter.attempt("k", 1.5, 60), GatewayApiException);
    await rejects(limiter.attempt("k", 1, 0), {
      message: 'Cannot rate limit "k": decaySeconds must be a number > 0, got 0',
    });
    await rejects(limiter.attempt("", 1, 60), {
      message: "Cannot rate limit: the key must be a non-empty string",
    });
    await rejects(limiter.availableIn("k", Number.NaN), {
      message: 'Cannot rate limit "k": decaySeconds must be a number > 0, got null',
    });
  });
}
