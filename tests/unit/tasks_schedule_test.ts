import { deepStrictEqual, ok, rejects, strictEqual, throws } from "node:assert/strict";
import { KvStore } from "../../src/backends/kv/store.ts";
import { KvState } from "../../src/backends/kv/state.ts";
import { MemoryStore } from "../../src/backends/memory/store.ts";
import type { GatewayStore } from "../../src/store/store.ts";
import { createScheduledHandler, registerScheduledTasks } from "../../src/tasks/schedule.ts";
import type { RegisterScheduledTasksOptions } from "../../src/tasks/schedule_options.ts";
import { ConfigurationException } from "../../src/errors.ts";
import { DAY, deferred, FakeService, NOW, outbound, serverMessage } from "../fixtures/tasks_fixtures.ts";

interface Registered {
  name: string;
  schedule: string;
  handler: () => Promise<void>;
}

function recordingCron(): { cron: NonNullable<RegisterScheduledTasksOptions["cron"]>; jobs: Registered[] } {
  const jobs: Registered[] = [];
  return { jobs, cron: (name, schedule, handler) => jobs.push({ name, schedule, handler }) };
}

async function seeded(): Promise<MemoryStore> {
  const store = new MemoryStore({ now: () => NOW });
  await store.saveOutbound(outbound("old", NOW - 40 * DAY, { status: "sent" }));
  await store.saveOutbound(outbound("failed", NOW - DAY));
  return store;
}

const now = () => NOW;

Deno.test("registerScheduledTasks: registers the three tasks with unique names and default schedules", async () => {
  const store = await seeded();
  const service = new FakeService();
  const { cron, jobs } = recordingCron();
  const handlers = registerScheduledTasks({ service, store, cron, now });
  deepStrictEqual(jobs.map((job) => [job.name, job.schedule]), [
    ["gateway-prune", "0 3 * * *"],
    ["gateway-retry-failed", "*/5 * * * *"],
    ["gateway-reconcile-sends", "*/10 * * * *"],
  ]);
  strictEqual(typeof handlers.prune, "function");
  strictEqual(typeof handlers.retryFailed, "function");
  strictEqual(typeof handlers.reconcileSends, "function");

  // The reconcile job settles a send left pending by a sender that died: found on the server, it is sent.
  await store.saveOutbound(outbound("stuck", NOW - DAY, { status: "pending", claimedUntil: NOW - 1 }));
  service.delivered.push(serverMessage("hello stuck", "WA-stuck"));
  await jobs[2].handler();
  strictEqual((await store.getOutbound("stuck"))?.status, "failed");
  strictEqual((await store.getOutbound("stuck"))?.outcomeUnknown, true);
  // Its last attempt is too recent to be looked up yet (the server may still be working on it).
  strictEqual(service.lookups.length, 0);

  // Calling the registered cron handlers does the work.
  await jobs[0].handler();
  strictEqual(await store.getOutbound("old"), null);
  strictEqual((await store.getOutbound("failed"))?.status, "failed");
  await jobs[1].handler();
  strictEqual((await store.getOutbound("failed"))?.status, "sent");
  strictEqual(service.requests.length, 1);
});

Deno.test("registerScheduledTasks: the returned handlers give the task results", async () => {
  const store = await seeded();
  const { cron } = recordingCron();
  const handlers = registerScheduledTasks({
    service: new FakeService(),
    store,
    cron,
    now,
    prune: { schedule: "0 4 * * *", days: 7, kinds: ["outbound"] },
    retryFailed: { schedule: "*/10 * * * *", maxRetries: 1, limit: 5 },
  });
  deepStrictEqual(await handlers.prune?.(), {
    counts: { outbound: 1 },
    total: 1,
    before: NOW - 7 * DAY,
    dryRun: false,
  });
  const retried = await handlers.retryFailed?.();
  deepStrictEqual([retried?.attempted, retried?.sent], [1, 1]);
});

Deno.test("registerScheduledTasks: tasks can be left out or renamed; bad options fail at registration", () => {
  const store = new MemoryStore();
  const service = new FakeService();
  const { cron, jobs } = recordingCron();
  const handlers = registerScheduledTasks({
    service,
    store,
    cron,
    prune: false,
    retryFailed: { name: "tenant-a-retry" },
    reconcileSends: { name: "tenant-a-reconcile", schedule: "*/15 * * * *" },
  });
  deepStrictEqual(jobs.map((job) => [job.name, job.schedule]), [
    ["tenant-a-retry", "*/5 * * * *"],
    ["tenant-a-reconcile", "*/15 * * * *"],
  ]);
  strictEqual(handlers.prune, undefined);
  throws(() => registerScheduledTasks({ service, store, cron, prune: { days: 0 } }), {
    name: "RangeError",
    message: 'Cannot prune records: "days" must be a positive number, got "0"',
  });
  throws(
    () =>
      registerScheduledTasks({
        service,
        store,
        cron,
        prune: { name: "same" },
        retryFailed: { name: "same" },
      }),
    { name: "ConfigurationException", message: 'Cannot schedule tasks: two tasks are named "same"' },
  );
  throws(() => registerScheduledTasks({ service, store, cron, leaseMs: -5 }), ConfigurationException);
  throws(() => registerScheduledTasks({ service, store, cron, leaseMs: 2 ** 31 }), {
    name: "ConfigurationException",
    message:
      'Cannot schedule tasks: "leaseMs" must be an integer from 1 to 2147483647 (ms), got "2147483648"',
  });
  // The retry task's settings are refused when it is registered, not at its first run.
  throws(() => registerScheduledTasks({ service, store, cron, retryFailed: { limit: -1 } }), {
    name: "ConfigurationException",
    message: 'Cannot schedule tasks: "retryFailed.limit" must be a non-negative integer, got "-1"',
  });
  throws(() => registerScheduledTasks({ service, store, cron, reconcileSends: { minAgeMs: -1 } }), {
    name: "ConfigurationException",
    message: 'Cannot schedule tasks: "reconcileSends.minAgeMs" must be a non-negative integer, got "-1"',
  });
  throws(() => registerScheduledTasks({ service, store, cron, retryFailed: { instance: "" } }), {
    name: "ConfigurationException",
    message: 'Cannot schedule tasks: "retryFailed.instance" must be a non-empty string when given',
  });
  strictEqual(jobs.length, 2);
});

Deno.test("registerScheduledTasks: a task never overlaps itself", async () => {
  const store = new MemoryStore({ now });
  await store.saveOutbound(outbound("a", 100));
  const gate = deferred();
  const started = deferred();
  const service = new FakeService(async () => {
    started.resolve();
    await gate.promise;
    return { data: { key: { id: "WA1" } } };
  });
  const { cron } = recordingCron();
  const handlers = registerScheduledTasks({ service, store, cron, now });
  const first = handlers.retryFailed!();
  await started.promise;
  strictEqual(await handlers.retryFailed!(), null);
  gate.resolve();
  strictEqual((await first)?.sent, 1);
  // Once finished, it runs again.
  deepStrictEqual((await handlers.retryFailed!())?.attempted, 0);
});

Deno.test("registerScheduledTasks: with kv, a lease keeps other isolates out", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const store: GatewayStore = new KvStore(kv, { now });
    await store.saveOutbound(outbound("a", 100));
    const gate = deferred();
    const started = deferred();
    const service = new FakeService(async () => {
      started.resolve();
      await gate.promise;
      return { data: { key: { id: "WA1" } } };
    });
    // Two registrations on one KV stand for two isolates.
    const isolateA = registerScheduledTasks({ service, store, kv, cron: recordingCron().cron, now });
    const isolateB = registerScheduledTasks({ service, store, kv, cron: recordingCron().cron, now });
    const running = isolateA.retryFailed!();
    await started.promise;
    strictEqual(await isolateB.retryFailed!(), null);
    const leases = new KvState(kv, { now });
    ok(await leases.get("task_lease", "gateway-retry-failed"));
    gate.resolve();
    strictEqual((await running)?.sent, 1);
    strictEqual(await leases.get("task_lease", "gateway-retry-failed"), null);
    deepStrictEqual((await isolateB.retryFailed!())?.attempted, 0);

    // A lease left by a crashed holder is taken again once expired.
    await leases.set("task_lease", "gateway-prune", { owner: "crashed" }, { expiresAt: NOW - 1 });
    deepStrictEqual((await isolateB.prune!())?.total, 1); // record "a" is decades old
    await leases.set("task_lease", "gateway-prune", { owner: "alive" }, { expiresAt: NOW + 60_000 });
    strictEqual(await isolateB.prune!(), null);
  } finally {
    kv.close();
  }
});

Deno.test("registerScheduledTasks: uses Deno.cron by default, with a clear error when it is missing", () => {
  const descriptor = Object.getOwnPropertyDescriptor(Deno, "cron")!;
  const service = new FakeService();
  const store = new MemoryStore();
  try {
    const calls: unknown[][] = [];
    Object.defineProperty(Deno, "cron", {
      value: (...args: unknown[]) => calls.push(args),
      configurable: true,
    });
    registerScheduledTasks({ service, store, retryFailed: false, reconcileSends: false });
    deepStrictEqual(calls.map((call) => call.slice(0, 2)), [["gateway-prune", "0 3 * * *"]]);
    strictEqual(typeof calls[0][2], "function");

    Object.defineProperty(Deno, "cron", { value: undefined, configurable: true });
    throws(() => registerScheduledTasks({ service, store }), {
      name: "Error",
      message: /^Cannot register scheduled tasks: Deno\.cron is not available/,
    });
  } finally {
    Object.defineProperty(Deno, "cron", descriptor);
  }
});

Deno.test("createScheduledHandler: controller.cron picks the task, work is passed to waitUntil", async () => {
  const store = await seeded();
  const service = new FakeService();
  const envs: unknown[] = [];
  const handleScheduled = createScheduledHandler<{ TENANT: string }>({
    store: (env) => {
      envs.push(env);
      return store;
    },
    service: () => service,
    prune: { schedule: "0 3 * * *", days: 30 },
    retryFailed: { schedule: "*/5 * * * *" },
    reconcileSends: false,
    now,
  });
  const waited: Promise<unknown>[] = [];
  const ctx = { waitUntil: (promise: Promise<unknown>) => waited.push(promise) };
  const env = { TENANT: "a" };

  await handleScheduled({ cron: "0 3 * * *", scheduledTime: NOW }, env, ctx);
  strictEqual(waited.length, 1);
  strictEqual(await store.getOutbound("old"), null);
  strictEqual(service.requests.length, 0);

  await handleScheduled({ cron: " */5  * * * * " }, env, ctx);
  strictEqual(waited.length, 2);
  strictEqual((await store.getOutbound("failed"))?.status, "sent");
  strictEqual(service.requests.length, 1);
  deepStrictEqual(envs, [env, env]);

  await rejects(() => handleScheduled({ cron: "0 0 1 1 *" }, env, ctx), {
    name: "Error",
    message:
      'Cannot run scheduled task: no task has the schedule "0 0 1 1 *" (known: "0 3 * * *" (gateway-prune), "*/5 * * * *" (gateway-retry-failed))',
  });
  strictEqual(waited.length, 2);
});

Deno.test("createScheduledHandler: one cron can run both tasks; a failing task rejects", async () => {
  const store = await seeded();
  const service = new FakeService();
  const handleScheduled = createScheduledHandler({
    store,
    service,
    prune: { schedule: "0 * * * *" },
    retryFailed: { schedule: "0 * * * *" },
    now,
  });
  const waited: Promise<unknown>[] = [];
  await handleScheduled({ cron: "0 * * * *" }, {}, { waitUntil: (p) => waited.push(p) });
  strictEqual(await store.getOutbound("old"), null);
  strictEqual((await store.getOutbound("failed"))?.status, "sent");

  const broken = createScheduledHandler({
    store: () => Promise.reject(new Error("no binding")),
    service,
    retryFailed: false,
  });
  await rejects(() => broken({ cron: "0 3 * * *" }, {}, { waitUntil: () => {} }), { message: "no binding" });
});
