import { deepStrictEqual, ok, strictEqual } from "node:assert/strict";
import { MemoryState } from "../../src/backends/memory/state.ts";
import { MemoryStore } from "../../src/backends/memory/store.ts";
import { createScheduledHandler } from "../../src/tasks/schedule.ts";
import { stateTaskLease } from "../../src/tasks/state_lease.ts";
import { deferred, FakeService, NOW, outbound } from "../fixtures/tasks_fixtures.ts";

Deno.test("stateTaskLease: one holder at a time, released by its owner only, taken again after expiry", async () => {
  let t = NOW;
  const state = new MemoryState({ now: () => t });
  const a = stateTaskLease(state, { now: () => t });
  const b = stateTaskLease(state, { now: () => t });
  const release = await a.acquire("prune", 1000);
  ok(release !== null);
  strictEqual(await b.acquire("prune", 1000), null);
  ok(await b.acquire("retry", 5000) !== null); // another task's lease is independent
  await release();
  const releaseB = await b.acquire("prune", 1000);
  ok(releaseB !== null);
  // B crashes without releasing: the lease expires, A takes it, and B's late release leaves A's alone.
  t += 1000;
  const releaseA = await a.acquire("prune", 1000);
  ok(releaseA !== null);
  await releaseB();
  deepStrictEqual((await state.list("task_lease")).map((entry) => entry.key), ["prune", "retry"]);
  strictEqual(await b.acquire("prune", 1000), null);
});

Deno.test("createScheduledHandler: a lease built from env keeps a second isolate out", async () => {
  const store = new MemoryStore({ now: () => NOW });
  await store.saveOutbound(outbound("a", 100));
  const gate = deferred();
  const started = deferred();
  const service = new FakeService(async () => {
    started.resolve();
    await gate.promise;
    return { data: { key: { id: "WA1" } } };
  });
  const shared = new MemoryState({ now: () => NOW });
  const envs: { STATE: MemoryState }[] = [];
  // Two handlers stand for two isolates; the lease comes from the bindings of each event.
  const isolate = () =>
    createScheduledHandler<{ STATE: MemoryState }>({
      service,
      store,
      now: () => NOW,
      lease: (env) => {
        envs.push(env);
        return stateTaskLease(env.STATE, { now: () => NOW });
      },
    });
  const [first, second] = [isolate(), isolate()];
  const ctx = { waitUntil: () => {} };
  const running = first({ cron: "*/5 * * * *" }, { STATE: shared }, ctx);
  await started.promise;
  await second({ cron: "*/5 * * * *" }, { STATE: shared }, ctx);
  gate.resolve();
  await running;
  strictEqual(service.requests.length, 1);
  strictEqual(envs.length, 2);
  deepStrictEqual(await shared.list("task_lease"), []);
});
