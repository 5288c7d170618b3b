import { strictEqual } from "node:assert/strict";
import { type GatewayStore, MemoryStore } from "../../mod.ts";
import { GatewayFake } from "../../src/testing/mod.ts";

Deno.test("a store that cannot save does not stop the send", async () => {
  const broken = new MemoryStore() as GatewayStore;
  broken.saveOutbound = () => Promise.reject(new Error("KV unavailable"));
  const { service, fake } = GatewayFake.create({ config: { store: broken } });
  try {
    const res = await service.messages().text("5511999999999", "still sent");
    strictEqual(res.status, 201);
    fake.assertMessageSent("5511999999999", "still sent");
    strictEqual((await broken.listOutbound()).length, 0);
  } finally {
    await fake.close();
  }
});

Deno.test("a send through a store is recorded as sent with the server's message id", async () => {
  const store = new MemoryStore();
  const { service, fake } = GatewayFake.create({ config: { store } });
  try {
    const res = await service.messages().text("5511999999999", "recorded");
    const [record] = await store.listOutbound();
    strictEqual(record.status, "sent");
    strictEqual(record.messageId, res.json("key.id"));
    strictEqual(record.route, "/message/sendText/{instance}");
    strictEqual(record.instance, "test");
    strictEqual(record.type, "text");
  } finally {
    await fake.close();
  }
});

Deno.test("instance states learned from the server are kept as snapshots in the store", async () => {
  const store = new MemoryStore();
  const { service, fake } = GatewayFake.create({
    config: { store },
    instanceOptions: { number: "5511900000000" },
  });
  try {
    await service.instances().connectionState();
    const snapshot = await store.getInstanceSnapshot("default", "test");
    strictEqual(snapshot?.state, "open");
    await service.instances().create("second");
    await service.instances().fetchAll();
    strictEqual((await store.getInstanceSnapshot("default", "second"))?.state, "close");
    strictEqual(
      (await store.getInstanceSnapshot("default", "test"))?.ownerJid,
      "5511900000000@s.whatsapp.net",
    );
  } finally {
    await fake.close();
  }
});
