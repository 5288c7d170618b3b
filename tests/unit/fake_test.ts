import { deepStrictEqual, ok, rejects, strictEqual, throws } from "node:assert/strict";
import { MessageException, MessageSent } from "../../mod.ts";
import { GatewayFake, GatewayFakeAssertionError } from "../../src/testing/mod.ts";

Deno.test("GatewayFake runs a real service against the simulator and records what was sent", async () => {
  const { service, fake } = GatewayFake.create({ instance: "sales" });
  try {
    const events: MessageSent[] = [];
    service.events.addEventListener(MessageSent.type, (event) => events.push(event as MessageSent));
    const res = await service.messages().text("+55 (11) 99999-9999", "Hello");
    strictEqual(res.status, 201);
    strictEqual(res.json("key.remoteJid"), "5511999999999@s.whatsapp.net");
    strictEqual(res.json("key.fromMe"), true);
    strictEqual(events.length, 1);
    strictEqual(events[0].messageId, res.json("key.id"));
    fake.assertMessageSent("5511999999999", "Hello");
    fake.assertSent({ path: "/message/sendText", method: "POST", body: { number: "5511999999999" } });
    fake.assertSent((request) => request.instance === "sales");
    fake.assertSentCount(1);
    fake.assertNotSent({ path: "/instance/delete" });
    deepStrictEqual(fake.sent.map((r) => `${r.method} ${r.path}`), ["POST /message/sendText/sales"]);
    throws(() => fake.assertMessageSent("5511999999999", "Bye"), GatewayFakeAssertionError);
    throws(() => fake.assertNothingSent(), /Expected 0 request\(s\), got 1/);
    fake.reset();
    fake.assertNothingSent();
  } finally {
    await fake.close();
  }
});

Deno.test("GatewayFake scripted answers replace the simulator's until reset", async () => {
  const { service, fake } = GatewayFake.create();
  try {
    fake.respondWith("GET /instance/fetchInstances", Response.json([{ name: "scripted" }]));
    const rows = await service.instances().fetchAll();
    strictEqual(rows.json("0.name"), "scripted");
    fake.respondWith("/message/sendText", () =>
      Response.json(
        {
          status: 400,
          error: "Bad Request",
          response: { message: [{ jid: "1@s.whatsapp.net", exists: false, number: "1" }] },
        },
        { status: 400 },
      ));
    await rejects(service.messages().text("5511999999999", "x"), (error) => {
      ok(error instanceof MessageException);
      strictEqual(error.reason, "not_on_whatsapp");
      return true;
    });
    fake.reset();
    const real = await service.instances().fetchAll();
    strictEqual(real.json("0.name"), "test");
  } finally {
    await fake.close();
  }
});

Deno.test("GatewayFake without an instance makes instance calls fail before sending", async () => {
  const { service, fake } = GatewayFake.create({ instance: null });
  try {
    await rejects(service.messages().text("5511999999999", "x"), /No instance given/);
    fake.assertNothingSent();
  } finally {
    await fake.close();
  }
});
