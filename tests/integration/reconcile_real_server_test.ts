// Against the real gateway server (GW_REAL_URL, GW_REAL_KEY); skipped when they are not set.
import { deepStrictEqual, strictEqual } from "node:assert/strict";
import { GatewayService, MemoryStore } from "../../mod.ts";
import { reconcileRecord } from "../../src/tasks/reconcile_sends.ts";

const url = Deno.env.get("GW_REAL_URL");
const key = Deno.env.get("GW_REAL_KEY");

Deno.test({
  name:
    "real server: reconcile's findMessages lookups are accepted and a send never made is settled as not sent",
  ignore: !url || !key,
  async fn() {
    const instance = `reconcile-${crypto.randomUUID().slice(0, 8)}`;
    const store = new MemoryStore();
    const service = new GatewayService({ server_url: url!, api_key: key!, instance, store });
    await service.instances().create(instance);
    try {
      const attempt = Date.now() - 120_000;
      await store.saveOutbound({
        id: "never-sent",
        connection: "default",
        instance,
        recipient: "5511999999999",
        type: "text",
        route: "/message/sendText/{instance}",
        body: { number: "5511999999999", text: "never sent" },
        status: "failed",
        outcomeUnknown: true,
        retryCount: 0,
        createdAt: attempt,
        updatedAt: attempt,
      });
      const record = await store.getOutbound("never-sent");
      const result = await reconcileRecord(record!, { client: service.getClient(), store, now: Date.now });
      deepStrictEqual(result, { id: "never-sent", status: "not_sent" });
      strictEqual((await store.getOutbound("never-sent"))?.outcomeUnknown, false);
    } finally {
      await service.instances().delete(instance);
    }
  },
});
