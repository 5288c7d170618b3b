import { deepStrictEqual, rejects, strictEqual, throws } from "node:assert/strict";
import { type LogRecord, reset } from "@logtape/logtape";
import type { RateLimitingConfig } from "../../src/config.ts";
import { ConfigurationException, RateLimitException } from "../../src/errors.ts";
import { MetricsCollector } from "../../src/metrics.ts";
import { abortableSleep } from "../../src/timing.ts";
import {
  type RateLimitAcquireOptions,
  RateLimitGate,
  type RateLimitGateOptions,
} from "../../src/ratelimit/gate.ts";
import { KvRateLimiter } from "../../src/backends/kv/rate_limiter.ts";
import type { RateLimiterInterface } from "../../src/ratelimit/limiter.ts";
import { MemoryRateLimiter } from "../../src/backends/memory/rate_limiter.ts";
import { type FakeClock, fakeClock } from "./ratelimit_contract.ts";
import { captureLogs } from "../helpers/logs.ts";

/** A gate on a fake clock whose sleep advances the clock and records what was asked. */
function setup(config: RateLimitingConfig = {}, clock: FakeClock = fakeClock()) {
  const metrics = new MetricsCollector();
  const sleeps: number[] = [];
  const signals: (AbortSignal | undefined)[] = [];
  const sleep: RateLimitGateOptions["sleep"] = (ms, signal) => {
    sleeps.push(ms);
    signals.push(signal);
    clock.t += ms;
    return Promise.resolve();
  };
  const limiter = config.limiter ?? new MemoryRateLimiter({ now: clock.now });
  const gate = new RateLimitGate({ limiter, ...config }, { metrics, sleep, now: clock.now });
  const decisions = () => metrics.snapshot().gateway_rate_limit_total ?? [];
  return { gate, metrics, sleeps, signals, clock, limiter, decisions };
}

const call: RateLimitAcquireOptions = { connection: "default", instance: "sales", bucket: "messages" };

async function fill(gate: RateLimitGate, n: number, options: RateLimitAcquireOptions = call) {
  for (let i = 0; i < n; i++) await gate.acquire(options);
}

Deno.test("RateLimitGate: the key is <prefix>:<connection>:<instance or ->:<bucket>", () => {
  const { gate } = setup();
  strictEqual(gate.key("default", "sales", "messages"), "gateway:default:sales:messages");
  strictEqual(gate.key("eu", undefined, "default"), "gateway:eu:-:default");
  strictEqual(setup({ key_prefix: "app" }).gate.key("eu", "x", "media"), "app:eu:x:media");
  // Names that would otherwise let two different calls share a key.
  strictEqual(gate.key("a:b", "c", "media"), "gateway:a%3Ab:c:media");
  strictEqual(gate.key("a", "b:c", "media"), "gateway:a:b%3Ac:media");
  strictEqual(gate.key("a", "-", "media"), "gateway:a:%2D:media");
  strictEqual(gate.key("50%", "x", "media"), "gateway:50%25:x:media");
});

Deno.test("RateLimitGate: default limits are 60, 30 and 10 per 60 s", () => {
  const { gate } = setup();
  deepStrictEqual(gate.rule("default"), { max_attempts: 60, decay_seconds: 60 });
  deepStrictEqual(gate.rule("messages"), { max_attempts: 30, decay_seconds: 60 });
  deepStrictEqual(gate.rule("media"), { max_attempts: 10, decay_seconds: 60 });
  // A partial rule keeps the other default number.
  deepStrictEqual(setup({ limits: { media: { max_attempts: 3 } as never } }).gate.rule("media"), {
    max_attempts: 3,
    decay_seconds: 60,
  });
});

Deno.test("RateLimitGate: counts against the bucket's own key and limit", async () => {
  const { gate, limiter, decisions } = setup();
  await fill(gate, 30);
  await gate.acquire({ ...call, bucket: "media" });
  await gate.acquire({ connection: "default", bucket: "default" });
  strictEqual(await limiter.availableIn("gateway:default:sales:messages", 60), 60);
  strictEqual(await limiter.availableIn("gateway:default:sales:media", 60), 0);
  strictEqual(await limiter.attempt("gateway:default:sales:media", 10, 60), true);
  deepStrictEqual(decisions(), [
    { labels: { bucket: "messages", decision: "allowed" }, count: 30 },
    { labels: { bucket: "media", decision: "allowed" }, count: 1 },
    { labels: { bucket: "default", decision: "allowed" }, count: 1 },
  ]);
});

Deno.test("RateLimitGate: throw mode refuses at once with the exact retry-after", async () => {
  const { gate, sleeps, clock, decisions } = setup({
    on_limit_reached: "throw",
    limits: { messages: { max_attempts: 2, decay_seconds: 60 } },
  });
  await fill(gate, 2);
  clock.t += 20_500;
  const error = await gate.acquire(call).then(() => null, (e) => e);
  strictEqual(error instanceof RateLimitException, true);
  strictEqual(
    error.message,
    'Rate limit reached for bucket "messages" of connection "default" (instance "sales"): next slot in 39.5 s',
  );
  strictEqual(error.getRetryAfter(), 40);
  strictEqual(error.connection, "default");
  strictEqual(error.instance, "sales");
  deepStrictEqual(sleeps, []);
  deepStrictEqual(decisions(), [
    { labels: { bucket: "messages", decision: "allowed" }, count: 2 },
    { labels: { bucket: "messages", decision: "refused" }, count: 1 },
  ]);
});

Deno.test("RateLimitGate: wait mode sleeps exactly until the slot frees, then takes it", async () => {
  const { gate, sleeps, signals, clock, limiter, decisions } = setup({
    limits: { messages: { max_attempts: 2, decay_seconds: 60 } },
  });
  const opened = clock.t;
  await fill(gate, 2);
  clock.t += 15_250;
  const controller = new AbortController();
  await gate.acquire({ ...call, signal: controller.signal, deadlineAt: clock.t + 90_000 });
  deepStrictEqual(sleeps, [44_750]);
  strictEqual(signals[0], controller.signal);
  strictEqual(clock.t, opened + 60_000);
  // The slot was taken in the new window.
  strictEqual(await limiter.attempt("gateway:default:sales:messages", 2, 60), true);
  strictEqual(await limiter.attempt("gateway:default:sales:messages", 2, 60), false);
  deepStrictEqual(decisions(), [
    { labels: { bucket: "messages", decision: "allowed" }, count: 2 },
    { labels: { bucket: "messages", decision: "waited" }, count: 1 },
  ]);
});

Deno.test("RateLimitGate: wait mode waits again when another caller took the freed slot", async () => {
  const clock = fakeClock();
  const limiter = new MemoryRateLimiter({ now: clock.now });
  const sleeps: number[] = [];
  const gate = new RateLimitGate(
    { limiter, limits: { default: { max_attempts: 1, decay_seconds: 10 } } },
    {
      now: clock.now,
      sleep: async (ms) => {
        sleeps.push(ms);
        clock.t += ms;
        // Someone else wins the slot that just freed, the first time only.
        if (sleeps.length === 1) await limiter.attempt("gateway:c:-:default", 1, 10);
      },
    },
  );
  await gate.acquire({ connection: "c", bucket: "default" });
  clock.t += 4_000;
  await gate.acquire({ connection: "c", bucket: "default" });
  deepStrictEqual(sleeps, [6_000, 10_000]);
});

Deno.test("RateLimitGate: a wait longer than max_wait_ms throws without sleeping", async () => {
  const { gate, sleeps, decisions } = setup({
    max_wait_ms: 5_000,
    limits: { messages: { max_attempts: 1, decay_seconds: 60 } },
  });
  await gate.acquire(call);
  await rejects(gate.acquire(call), (error: RateLimitException) => {
    strictEqual(error instanceof RateLimitException, true);
    strictEqual(
      error.message,
      'Rate limit reached for bucket "messages" of connection "default" (instance "sales"): next slot in 60 s, after max_wait_ms (5000 ms)',
    );
    strictEqual(error.getRetryAfter(), 60);
    return true;
  });
  deepStrictEqual(sleeps, []);
  deepStrictEqual(decisions()[1], { labels: { bucket: "messages", decision: "refused" }, count: 1 });
});

Deno.test("RateLimitGate: max_wait_ms bounds the total of several waits", async () => {
  const clock = fakeClock();
  const limiter = new MemoryRateLimiter({ now: clock.now });
  const sleeps: number[] = [];
  const gate = new RateLimitGate(
    { limiter, max_wait_ms: 15_000, limits: { default: { max_attempts: 1, decay_seconds: 10 } } },
    {
      now: clock.now,
      sleep: async (ms) => {
        sleeps.push(ms);
        clock.t += ms;
        await limiter.attempt("gateway:c:-:default", 1, 10); // always beaten to the slot
      },
    },
  );
  await gate.acquire({ connection: "c", bucket: "default" });
  await rejects(gate.acquire({ connection: "c", bucket: "default" }), RateLimitException);
  deepStrictEqual(sleeps, [10_000]);
});

Deno.test("RateLimitGate: never waits past the call's deadline", async () => {
  const { gate, sleeps, clock } = setup({ limits: { messages: { max_attempts: 1, decay_seconds: 60 } } });
  await gate.acquire(call);
  await rejects(gate.acquire({ ...call, deadlineAt: clock.t + 59_999 }), {
    name: "RateLimitException",
    message:
      'Rate limit reached for bucket "messages" of connection "default" (instance "sales"): next slot in 60 s, after the call\'s deadline',
  });
  deepStrictEqual(sleeps, []);
  // A deadline exactly at the slot is enough.
  await gate.acquire({ ...call, deadlineAt: clock.t + 60_000 });
  deepStrictEqual(sleeps, [60_000]);
});

Deno.test("RateLimitGate: an abort during the wait rejects with the signal's reason", async () => {
  const clock = fakeClock();
  const limiter = new MemoryRateLimiter({ now: clock.now });
  const controller = new AbortController();
  const gate = new RateLimitGate(
    { limiter, limits: { default: { max_attempts: 1, decay_seconds: 60 } } },
    {
      now: clock.now,
      sleep: (ms, signal) => {
        // The real sleep, aborted as soon as it starts: its timer must be cleared (sanitizers check).
        const slept = abortableSleep(ms, signal);
        controller.abort(new Error("caller gave up"));
        return slept;
      },
    },
  );
  await gate.acquire({ connection: "c", bucket: "default" });
  await rejects(gate.acquire({ connection: "c", bucket: "default", signal: controller.signal }), {
    message: "caller gave up",
  });
  // An already aborted signal never reaches the limiter.
  let attempts = 0;
  const counting: RateLimiterInterface = {
    attempt: () => (attempts++, Promise.resolve(true)),
    availableIn: () => Promise.resolve(0),
    clear: () => Promise.resolve(),
  };
  const reason = new DOMException("stop", "AbortError");
  await rejects(
    new RateLimitGate({ limiter: counting }).acquire({
      connection: "c",
      bucket: "default",
      signal: AbortSignal.abort(reason),
    }),
    (error) => error === reason,
  );
  strictEqual(attempts, 0);
});

Deno.test("abortableSleep: resolves after the time, rejects at once when already aborted", async () => {
  await abortableSleep(1);
  await rejects(abortableSleep(10_000, AbortSignal.abort(new Error("gone"))), { message: "gone" });
});

Deno.test("RateLimitGate: disabled does not touch the limiter", async () => {
  let calls = 0;
  const limiter: RateLimiterInterface = {
    attempt: () => (calls++, Promise.resolve(false)),
    availableIn: () => Promise.resolve(100),
    clear: () => Promise.resolve(),
  };
  const { gate, decisions } = setup({ enabled: false, limiter });
  strictEqual(gate.enabled, false);
  await fill(gate, 100);
  strictEqual(calls, 0);
  deepStrictEqual(decisions(), []);
});

const failing: RateLimiterInterface = {
  attempt: () => Promise.reject(new TypeError("KV is unavailable")),
  availableIn: () => Promise.resolve(0),
  clear: () => Promise.resolve(),
};

async function logsOf(fn: () => Promise<void>): Promise<LogRecord[]> {
  const records: LogRecord[] = [];
  await captureLogs(records);
  try {
    await fn();
  } finally {
    await reset();
  }
  return records;
}

Deno.test("RateLimitGate: a failing limiter lets the call through with a warning and a metric", async () => {
  const { gate, decisions } = setup({ limiter: failing });
  const logs = await logsOf(() => gate.acquire(call));
  deepStrictEqual(decisions(), [{ labels: { bucket: "messages", decision: "limiter_error" }, count: 1 }]);
  strictEqual(logs.length, 1);
  strictEqual(logs[0].level, "warning");
  deepStrictEqual(logs[0].category, ["gateway", "ratelimit"]);
  strictEqual(logs[0].properties.key, "gateway:default:sales:messages");
  strictEqual(logs[0].properties.message, "KV is unavailable");
});

Deno.test("RateLimitGate: a limiter failing in availableIn also fails open", async () => {
  const limiter: RateLimiterInterface = {
    attempt: () => Promise.resolve(false),
    availableIn: () => Promise.reject(new Error("read failed")),
    clear: () => Promise.resolve(),
  };
  const { gate, decisions, sleeps } = setup({ limiter });
  await logsOf(() => gate.acquire(call));
  deepStrictEqual(sleeps, []);
  deepStrictEqual(decisions(), [{ labels: { bucket: "messages", decision: "limiter_error" }, count: 1 }]);
});

Deno.test("RateLimitGate: on_limiter_error closed refuses the call", async () => {
  const { gate, decisions } = setup({ limiter: failing, on_limiter_error: "closed" });
  const logs = await logsOf(async () => {
    await rejects(gate.acquire(call), (error: RateLimitException) => {
      strictEqual(error instanceof RateLimitException, true);
      strictEqual(
        error.message,
        'Cannot check the rate limit for "gateway:default:sales:messages": the limiter failed (KV is unavailable) and on_limiter_error is "closed"',
      );
      strictEqual(error.getRetryAfter(), null);
      strictEqual((error.cause as Error).message, "KV is unavailable");
      return true;
    });
  });
  strictEqual(logs[0].level, "error");
  deepStrictEqual(decisions(), [{ labels: { bucket: "messages", decision: "limiter_error" }, count: 1 }]);
});

Deno.test("RateLimitGate: a limiter answering nonsense counts as a failure", async () => {
  const limiter: RateLimiterInterface = {
    attempt: () => Promise.resolve(false),
    availableIn: () => Promise.resolve(Number.NaN),
    clear: () => Promise.resolve(),
  };
  const { gate } = setup({ limiter, on_limiter_error: "closed" });
  await logsOf(async () => {
    await rejects(gate.acquire(call), { message: /the limiter failed \(availableIn returned null\)/ });
  });
});

Deno.test("RateLimitGate: a refusal with nothing to wait for retries at once, then backs off", async () => {
  let refusals = 3;
  const limiter: RateLimiterInterface = {
    attempt: () => Promise.resolve(refusals-- <= 0),
    availableIn: () => Promise.resolve(0),
    clear: () => Promise.resolve(),
  };
  const { gate, sleeps, decisions } = setup({ limiter });
  await gate.acquire(call);
  deepStrictEqual(sleeps, [10, 20]);
  deepStrictEqual(decisions(), [{ labels: { bucket: "messages", decision: "waited" }, count: 1 }]);
});

Deno.test("RateLimitGate: works with KvRateLimiter", async () => {
  using kv = await Deno.openKv(":memory:");
  const clock = fakeClock();
  const { gate, sleeps } = setup({
    limiter: new KvRateLimiter(kv, { now: clock.now }),
    limits: { media: { max_attempts: 2, decay_seconds: 30 } },
  }, clock);
  const media: RateLimitAcquireOptions = { ...call, bucket: "media" };
  await fill(gate, 3, media);
  deepStrictEqual(sleeps, [30_000]);
  strictEqual(
    (await kv.get<{ count: number }>(["gateway", "ratelimit", "gateway:default:sales:media"])).value?.count,
    1,
  );
});

Deno.test("RateLimitGate: the default limiter is a MemoryRateLimiter per gate", async () => {
  const gate = new RateLimitGate();
  strictEqual(gate.limiter instanceof MemoryRateLimiter, true);
  strictEqual(gate.enabled, true);
  await gate.acquire({ connection: "default", bucket: "default" });
  strictEqual(new RateLimitGate(undefined).limiter !== gate.limiter, true);
});

Deno.test("RateLimitGate: rejects bad configuration with the key's name", () => {
  const cases: [unknown, string][] = [
    [{ enabled: "yes" }, '"rate_limiting.enabled" must be true or false, got "yes"'],
    [
      { limiter: {} },
      '"rate_limiting.limiter" must implement RateLimiterInterface (missing attempt, availableIn, clear)',
    ],
    [
      { limiter: { attempt() {}, clear() {} } },
      '"rate_limiting.limiter" must implement RateLimiterInterface (missing availableIn)',
    ],
    [{ limits: [] }, '"rate_limiting.limits" must be an object, got an array'],
    [
      { limits: { message: { max_attempts: 1, decay_seconds: 1 } } },
      '"rate_limiting.limits.message" is not a configuration key; did you mean "rate_limiting.limits.messages"?',
    ],
    [{ limits: { media: 5 } }, '"rate_limiting.limits.media" must be an object, got 5'],
    [
      { limits: { media: { max_attempts: 0, decay_seconds: 60 } } },
      '"rate_limiting.limits.media.max_attempts" must be an integer >= 1, got 0',
    ],
    [
      { limits: { default: { max_attempts: 1.5 } } },
      '"rate_limiting.limits.default.max_attempts" must be an integer >= 1, got 1.5',
    ],
    [
      { limits: { messages: { decay_seconds: "60" } } },
      '"rate_limiting.limits.messages.decay_seconds" must be an integer from 1 to 2147483 (s), got "60"',
    ],
    [
      { limits: { messages: { decay_seconds: -1 } } },
      '"rate_limiting.limits.messages.decay_seconds" must be an integer from 1 to 2147483 (s), got -1',
    ],
    [
      { on_limit_reached: "block" },
      '"rate_limiting.on_limit_reached" must be one of "wait", "throw", got "block"',
    ],
    [
      { on_limiter_error: "fail" },
      '"rate_limiting.on_limiter_error" must be one of "open", "closed", got "fail"',
    ],
    [{ max_wait_ms: -1 }, '"rate_limiting.max_wait_ms" must be an integer from 0 to 2147483647 (ms), got -1'],
    [
      { max_wait_ms: Infinity },
      '"rate_limiting.max_wait_ms" must be an integer from 0 to 2147483647 (ms), got Infinity',
    ],
    [
      { max_wait_ms: 2 ** 31 },
      '"rate_limiting.max_wait_ms" must be an integer from 0 to 2147483647 (ms), got 2147483648',
    ],
    [
      { maxWaitMs: 5 },
      '"rate_limiting.maxWaitMs" is not a configuration key; did you mean "rate_limiting.max_wait_ms"?',
    ],
    [{ key_prefix: "" }, '"rate_limiting.key_prefix" must be a non-empty string, got ""'],
    ["on", '"rate_limiting" must be an object, got "on"'],
  ];
  for (const [config, message] of cases) {
    throws(() => new RateLimitGate(config as RateLimitingConfig), (error: Error) => {
      strictEqual(error instanceof ConfigurationException, true);
      strictEqual(error.message, message);
      strictEqual((error as ConfigurationException).setting, /^"([^"]+)"/.exec(message)![1]);
      return true;
    });
  }
  // Valid edge values.
  new RateLimitGate({ max_wait_ms: 0, enabled: true, on_limit_reached: "throw", on_limiter_error: "closed" });
});

Deno.test("RateLimitGate: an unknown bucket at call time is a programming error", async () => {
  const { gate } = setup();
  await rejects(gate.acquire({ connection: "c", bucket: "video" as never }), {
    name: "GatewayApiException",
    message: 'Cannot rate limit: unknown bucket "video" (expected default, messages, media)',
  });
});

Deno.test("RateLimitGate: acquireNow takes an in-memory slot at once and counts it; a refusal takes no slot", () => {
  const { gate, limiter, decisions } = setup({
    limits: { messages: { max_attempts: 2, decay_seconds: 60 } },
  });
  strictEqual(gate.acquireNow(call), true);
  strictEqual(gate.acquireNow(call), true);
  // Full: the caller takes acquire's way (wait or refuse), and nothing more is taken here.
  strictEqual(gate.acquireNow(call), false);
  strictEqual((limiter as MemoryRateLimiter).size, 1);
  deepStrictEqual(decisions(), [{ labels: { bucket: "messages", decision: "allowed" }, count: 2 }]);
});

Deno.test("RateLimitGate: acquireNow leaves to acquire an aborted call, another limiter, and a replaced attempt", () => {
  const aborted = AbortSignal.abort(new Error("gone"));
  strictEqual(setup().gate.acquireNow({ ...call, signal: aborted }), false);
  const kvLike: RateLimiterInterface = {
    attempt: () => Promise.resolve(true),
    availableIn: () => Promise.resolve(0),
    clear: () => Promise.resolve(),
  };
  strictEqual(setup({ limiter: kvLike }).gate.acquireNow(call), false);
  // A memory limiter whose attempt was replaced (a spy, a wrapper) is asked through its own attempt.
  const spied = new MemoryRateLimiter();
  let asked = 0;
  spied.attempt = () => (asked++, Promise.resolve(true));
  const { gate, decisions } = setup({ limiter: spied });
  strictEqual(gate.acquireNow(call), false);
  strictEqual(asked, 0);
  deepStrictEqual(decisions(), []);
  strictEqual(setup({ enabled: false }).gate.acquireNow(call), true);
});

Deno.test("RateLimitGate: acquireNow with a bad bucket leaves the error to acquire", async () => {
  const { gate } = setup();
  const bad = { ...call, bucket: "nope" as never };
  strictEqual(gate.acquireNow(bad), false);
  await rejects(gate.acquire(bad), { message: /unknown bucket "nope"/ });
});
