import { rejects, strictEqual } from "node:assert/strict";
import { configureGateway, handleScheduled, MemoryStore } from "../../mod.ts";
import { GatewayFake } from "../../src/testing/mod.ts";

function context() {
  const pending: Promise<unknown>[] = [];
  return { ctx: { waitUntil: (promise: Promise<unknown>) => pending.push(promise) }, pending };
}

Deno.test("handleScheduled resends failed messages through the configured default service and store", async () => {
  const store = new MemoryStore();
  const { service, fake } = GatewayFake.create({ config: { store } });
  try {
    configureGateway(service);
    const now = Date.now();
    await store.saveOutbound({
      id: "r1",
      connection: "default",
      instance: "test",
      recipient: "5511999999999",
      type: "text",
      route: "/message/sendText/{instance}",
      body: { number: "5511999999999", text: "again" },
      status: "failed",
      outcomeUnknown: false,
      retryCount: 0,
      createdAt: now - 60_000,
      updatedAt: now - 60_000,
    });
    const { ctx, pending } = context();
    await handleScheduled({ cron: "*/5 * * * *" }, {}, ctx);
    await Promise.all(pending);
    strictEqual((await store.getOutbound("r1"))?.status, "sent");
    fake.assertMessageSent("5511999999999", "again");
  } finally {
    await fake.close();
  }
});

Deno.test("handleScheduled refuses clearly when the default service has no store", async () => {
  const { service, fake } = GatewayFake.create();
  try {
    configureGateway(service);
    const { ctx } = context();
    await rejects(handleScheduled({ cron: "0 3 * * *" }, {}, ctx), /no store is configured/);
  } finally {
    await fake.close();
  }
});
