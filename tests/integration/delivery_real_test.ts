// Request shapes of the delivery features against a real gateway server (GW_REAL_URL, GW_REAL_KEY); skipped
// without them. The server's instances never connect, so this checks what it accepts, not message flow.
import { deepStrictEqual, strictEqual } from "node:assert/strict";
import { reconcileInboundMessages } from "../../src/delivery/reconcile.ts";
import { GatewayService } from "../../src/service.ts";
import { MemoryStore } from "../../src/backends/memory/store.ts";
import { WebhookProcessor } from "../../src/webhooks/processor.ts";

const url = Deno.env.get("GW_REAL_URL");
const key = Deno.env.get("GW_REAL_KEY");

Deno.test({
  name:
    "real server: the reconciler's findChats/findMessages queries are accepted (ISO gte/lte, page, offset)",
  ignore: !url || !key,
  async fn() {
    const name = `delivery-${crypto.randomUUID().slice(0, 8)}`;
    const store = new MemoryStore();
    const gw = new GatewayService({ server_url: url, api_key: key, instance: name, store });
    await gw.instances().create({ instanceName: name, integration: "WHATSAPP-BAILEYS" });
    try {
      const page = await gw.chats().findMessages({
        where: {
          key: { remoteJid: "5511999998888@s.whatsapp.net" },
          messageTimestamp: { gte: "2026-01-01T00:00:00.000Z", lte: new Date().toISOString() },
        },
        page: 2,
        offset: 50,
      });
      deepStrictEqual(page.data.messages, { total: 0, pages: 0, currentPage: 2, records: [] });
      const result = await reconcileInboundMessages(gw, {
        processor: new WebhookProcessor({ store, log: false }),
      });
      deepStrictEqual(result.instances.map((r) => [r.chats, r.seen, r.recovered, r.complete]), [[
        0,
        0,
        0,
        true,
      ]]);
      strictEqual(result.recovered, 0);
    } finally {
      await gw.instances().delete(name).catch(() => {});
    }
  },
});
