import { deepStrictEqual, rejects, strictEqual } from "node:assert/strict";
import { type GatewayStore, MemoryStore, MessageException } from "../../mod.ts";
import { retryFailedMessages } from "../../src/tasks/mod.ts";
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

Deno.test("an aborted send is recorded as failed with an unknown outcome, so it is not resent blindly", async () => {
  const store = new MemoryStore();
  const { service, fake } = GatewayFake.create({ config: { store } });
  try {
    const controller = new AbortController();
    fake.respondWith("POST /message/sendText", () => {
      controller.abort(new DOMException("stop", "AbortError"));
      return new Promise<Response>(() => {});
    });
    await rejects(service.messages().text("5511999999999", "x", {}, { signal: controller.signal }), /stop/);
    const [record] = await store.listOutbound();
    strictEqual(record.status, "failed");
    strictEqual(record.outcomeUnknown, true);
  } finally {
    await fake.close();
  }
});

Deno.test("a send with a typing delay extends the attempt timeout by that delay", async () => {
  const { service, fake } = GatewayFake.create();
  try {
    const client = service.getClient();
    const seen: number[] = [];
    const original = client.prepare.bind(client);
    client.prepare = (method, route, options) => {
      const call = original(method, route, options);
      seen.push(call.attemptTimeoutMs, call.deadlineAt - call.startedAt);
      return call;
    };
    await service.messages().text("5511999999999", "typing first", { delay: 1200 });
    await service.chats().sendPresence("5511999999999", "composing", 500);
    // The default attempt timeout (30 s) and deadline (90 s), each stretched by the server's delay.
    deepStrictEqual(seen, [31_200, 91_200, 30_500, 90_500]);
  } finally {
    await fake.close();
  }
});

Deno.test("a send to a number not on the network is recorded as permanent and never resent", async () => {
  const store = new MemoryStore();
  const { service, fake } = GatewayFake.create({ config: { store } });
  try {
    fake.simulator.setNotOnWhatsApp("5511888888888");
    await rejects(service.messages().text("5511888888888", "hello?"), MessageException);
    const [record] = await store.listOutbound();
    strictEqual(record.status, "failed");
    strictEqual(record.permanent, true);
    strictEqual(record.outcomeUnknown, false);
    fake.reset();
    const result = await retryFailedMessages({ service, store });
    deepStrictEqual(result.results, [{
      id: record.id,
      status: "skipped",
      reason: "permanent",
      retryCount: 0,
    }]);
    fake.assertNothingSent();
  } finally {
    await fake.close();
  }
});
