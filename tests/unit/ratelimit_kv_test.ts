import { deepStrictEqual, rejects, strictEqual, throws } from "node:assert/strict";
import { ConfigurationException } from "../../src/errors.ts";
import { KvRateLimiter } from "../../src/backends/kv/rate_limiter.ts";
import { fakeClock, limiterContract } from "./ratelimit_contract.ts";

limiterContract("KvRateLimiter", async (clock) => {
  const kv = await Deno.openKv(":memory:");
  return { limiter: new KvRateLimiter(kv, { now: clock.now }), close: () => kv.close() };
});

Deno.test("KvRateLimiter: stores its window under the prefix, with its own start and end", async () => {
  using kv = await Deno.openKv(":memory:");
  const clock = fakeClock(1_000_000);
  const limiter = new KvRateLimiter(kv, { now: clock.now, prefix: ["app", "limits"] });
  await limiter.attempt("gateway:default:-:default", 5, 60);
  await limiter.attempt("gateway:default:-:default", 5, 60);
  const entry = await kv.get(["app", "limits", "gateway:default:-:default"]);
  deepStrictEqual(entry.value, { count: 2, max: 5, start: 1_000_000, reset: 1_060_000 });
  strictEqual((await kv.get(["gateway", "ratelimit", "gateway:default:-:default"])).value, null);
});

Deno.test("KvRateLimiter: the default prefix is gateway/ratelimit", async () => {
  using kv = await Deno.openKv(":memory:");
  await new KvRateLimiter(kv).attempt("k", 5, 60);
  strictEqual((await kv.get<{ count: number }>(["gateway", "ratelimit", "k"])).value?.count, 1);
});

Deno.test("KvRateLimiter: an entry KV has not expired yet is not trusted past its own end", async () => {
  using kv = await Deno.openKv(":memory:");
  const clock = fakeClock(5_000_000);
  // What a lazily expired entry looks like: still readable after its window closed.
  await kv.set(["gateway", "ratelimit", "k"], { count: 3, max: 3, start: 4_000_000, reset: 4_060_000 });
  const limiter = new KvRateLimiter(kv, { now: clock.now });
  strictEqual(await limiter.availableIn("k", 60), 0);
  strictEqual(await limiter.attempt("k", 3, 60), true);
  deepStrictEqual((await kv.get(["gateway", "ratelimit", "k"])).value, {
    count: 1,
    max: 3,
    start: 5_000_000,
    reset: 5_060_000,
  });
});

Deno.test("KvRateLimiter: two limiter objects on one KV share the limit exactly", async () => {
  using kv = await Deno.openKv(":memory:");
  const limiters = Array.from({ length: 4 }, () => new KvRateLimiter(kv));
  const results = await Promise.all(
    Array.from({ length: 80 }, (_, i) => limiters[i % 4].attempt("shared", 30, 3600)),
  );
  strictEqual(results.filter(Boolean).length, 30);
});

Deno.test("KvRateLimiter: a KV failure rejects (the gate decides to fail open or closed)", async () => {
  const kv = await Deno.openKv(":memory:");
  const limiter = new KvRateLimiter(kv);
  kv.close();
  await rejects(limiter.attempt("k", 1, 60));
  await rejects(limiter.availableIn("k", 60));
});

Deno.test("KvRateLimiter: gives up after maxConflictRetries lost races", async () => {
  // A KV whose commits always lose the versionstamp check, as under endless contention.
  const losing = {
    get: () => Promise.resolve({ key: ["k"], value: null, versionstamp: null }),
    atomic: () => {
      const op = { check: () => op, set: () => op, commit: () => Promise.resolve({ ok: false }) };
      return op;
    },
  } as unknown as Deno.Kv;
  const limiter = new KvRateLimiter(losing, { maxConflictRetries: 3 });
  await rejects(limiter.attempt("k", 1, 60), {
    name: "GatewayApiException",
    message: 'Cannot rate limit "k": lost the write race 3 times in a row',
  });
});

Deno.test("KvRateLimiter: a locked local database counts as a lost race and is retried", async () => {
  let commits = 0;
  const busy = {
    get: () => Promise.resolve({ key: ["k"], value: null, versionstamp: null }),
    atomic: () => {
      const op = {
        check: () => op,
        set: () => op,
        commit: () => {
          commits++;
          return commits < 3
            ? Promise.reject(new TypeError("database is locked"))
            : Promise.resolve({ ok: true });
        },
      };
      return op;
    },
  } as unknown as Deno.Kv;
  strictEqual(await new KvRateLimiter(busy).attempt("k", 1, 60), true);
  strictEqual(commits, 3);
});

Deno.test("KvRateLimiter: other KV errors are not retried", async () => {
  let commits = 0;
  const broken = {
    get: () => Promise.resolve({ key: ["k"], value: null, versionstamp: null }),
    atomic: () => {
      const op = {
        check: () => op,
        set: () => op,
        commit: () => {
          commits++;
          return Promise.reject(new TypeError("disk I/O error"));
        },
      };
      return op;
    },
  } as unknown as Deno.Kv;
  await rejects(new KvRateLimiter(broken).attempt("k", 1, 60), { message: "disk I/O error" });
  strictEqual(commits, 1);
});

Deno.test("KvRateLimiter: rejects a bad maxConflictRetries option", () => {
  const kv = {} as Deno.Kv;
  throws(() => new KvRateLimiter(kv, { maxConflictRetries: 0 }), ConfigurationException);
  throws(() => new KvRateLimiter(kv, { maxConflictRetries: 0 }), {
    name: "ConfigurationException",
    message: 'Invalid KvRateLimiter option: "maxConflictRetries" must be a positive integer, got "0"',
  });
});

Deno.test("KvRateLimiter: each write checks the versionstamp read and expires with the window", async () => {
  const writes: { checked: unknown; value: unknown; expireIn?: number }[] = [];
  let stored: { value: unknown; versionstamp: string | null } = { value: null, versionstamp: null };
  const recording = {
    get: () => Promise.resolve({ key: ["k"], ...stored }),
    atomic: () => {
      const write: { checked: unknown; value: unknown; expireIn?: number } = {
        checked: undefined,
        value: undefined,
      };
      const op = {
        check: (entry: { versionstamp: string | null }) => (write.checked = entry.versionstamp, op),
        set: (_key: unknown, value: unknown, options?: { expireIn?: number }) => (
          write.value = value, write.expireIn = options?.expireIn, op
        ),
        commit: () => {
          writes.push(write);
          stored = { value: write.value, versionstamp: `v${writes.length}` };
          return Promise.resolve({ ok: true, versionstamp: stored.versionstamp });
        },
      };
      return op;
    },
  } as unknown as Deno.Kv;
  const clock = fakeClock(1_000_000);
  const limiter = new KvRateLimiter(recording, { now: clock.now });
  await limiter.attempt("k", 2, 60);
  clock.t += 20_000.4;
  await limiter.attempt("k", 2, 60);
  strictEqual(await limiter.attempt("k", 2, 60), false);
  deepStrictEqual(writes, [
    { checked: null, value: { count: 1, max: 2, start: 1_000_000, reset: 1_060_000 }, expireIn: 60_000 },
    { checked: "v1", value: { count: 2, max: 2, start: 1_000_000, reset: 1_060_000 }, expireIn: 40_000 },
  ]);
});
