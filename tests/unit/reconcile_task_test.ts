import { deepStrictEqual, strictEqual, throws } from "node:assert/strict";
import { MessageStuck } from "../../src/delivery/status_events.ts";
import { GatewayService } from "../../src/service.ts";
import { MemoryStore } from "../../src/backends/memory/store.ts";
import { createScheduledHandler, registerScheduledTasks } from "../../src/tasks/schedule.ts";
import { WebhookProcessor } from "../../src/webhooks/processor.ts";
import { BASE, KEY, newSim } from "../helpers/simulator.ts";

const NOW = Date.UTC(2026, 10, 23, 12, 0, 0);

Deno.test("reconcile task: registered with Deno.cron's shape, recovers messages and reports stuck sends", async () => {
  await using sim = newSim({ now: () => NOW });
  sim.addInstance("sales", { open: true });
  for (let i = 0; i < 3; i++) {
    sim.simulateInboundMessage("sales", {
      from: "5511999990001",
      text: `hi ${i}`,
      id: `T${i}`,
      timestamp: NOW / 1000 - 60 + i,
    });
  }
  const store = new MemoryStore({ now: () => NOW });
  // Every collaborator on the one fake clock: the stuck-send check reads the processor's clock.
  const processor = new WebhookProcessor({ store, log: false, now: () => NOW });
  const handled: string[] = [];
  processor.on("messages.upsert", (payload) => {
    handled.push(payload.messageId!);
  });
  const stuck: string[] = [];
  processor.events.addEventListener(
    MessageStuck.type,
    (event) => stuck.push((event as MessageStuck).messageId),
  );
  // A send from ten minutes ago still PENDING.
  await store.state.set("message_status", "OLD1", {
    messageId: "OLD1",
    status: "PENDING",
    instance: "sales",
    firstSeenAt: NOW - 600_000,
    updatedAt: NOW - 600_000,
  });
  const service = new GatewayService({ server_url: BASE, api_key: KEY, instance: "sales", store }, {
    fetch: sim.fetch,
    now: () => NOW,
  });
  const jobs: string[] = [];
  const handlers = registerScheduledTasks({
    service,
    store,
    prune: false,
    retryFailed: false,
    reconcileSends: false,
    reconcile: { processor, schedule: "*/10 * * * *" },
    cron: (name, schedule) => jobs.push(`${name} ${schedule}`),
    now: () => NOW,
  });
  deepStrictEqual(jobs, ["gateway-reconcile */10 * * * *"]);
  const result = await handlers.reconcile!();
  deepStrictEqual([result?.seen, result?.recovered], [3, 3]);
  deepStrictEqual(handled, ["T0", "T1", "T2"]);
  deepStrictEqual(stuck, ["OLD1"]);

  // The Workers handler runs it on its cron.
  const waits: Promise<unknown>[] = [];
  const scheduled = createScheduledHandler({
    service,
    store,
    prune: false,
    retryFailed: false,
    reconcileSends: false,
    reconcile: { processor },
    now: () => NOW,
  });
  await scheduled({ cron: "*/15 * * * *" }, {}, { waitUntil: (p) => waits.push(p) });
  strictEqual(waits.length, 1);
  deepStrictEqual(handled, ["T0", "T1", "T2"]);
});

Deno.test("reconcile task: refused at registration without a processor", () => {
  throws(
    () =>
      registerScheduledTasks({
        service: new GatewayService({ server_url: BASE, api_key: KEY }),
        store: new MemoryStore(),
        // deno-lint-ignore no-explicit-any
        reconcile: {} as any,
        cron: () => {},
      }),
    {
      name: "ConfigurationException",
      message:
        "Cannot schedule the reconcile task: give it the processor that runs your handlers (reconcile.processor)",
    },
  );
});
