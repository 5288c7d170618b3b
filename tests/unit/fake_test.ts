import { deepStrictEqual, ok, rejects, strictEqual, throws } from "node:assert/strict";
import { GatewayApi, gatewayApi, MessageException, MessageSent } from "../../mod.ts";
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
    fake.assertRequestCount(1);
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

Deno.test("GatewayFake: assertMessageContains, assertMessageTypeWas and message vs request counts", async () => {
  const { service, fake } = GatewayFake.create({ instance: "sales" });
  try {
    const types: string[] = [];
    service.events.addEventListener(
      MessageSent.type,
      (event) => types.push((event as MessageSent).messageType),
    );
    throws(() => fake.assertMessageTypeWas("text"), {
      message: 'Expected a "text" message, but no message was sent',
    });
    await service.instances().fetchAll();
    await service.messages().text("5511999999999", "Your order #1234 has shipped");
    fake.assertMessageContains("#1234");
    fake.assertMessageTypeWas("text");
    await service.messages().image("5511999999999", "https://example.com/a.png", "Receipt for #1234");
    fake.assertMessageTypeWas("image");
    strictEqual(fake.assertMessageContains("#1234").length, 2);
    await service.messages().poll("5511999999999", "Lunch today?", ["Pizza", "Sushi"]);
    fake.assertMessageContains("Lunch");
    fake.assertMessageTypeWas("poll");
    await service.messages().location("5511999999999", -23.55, -46.63, "Office");
    fake.assertMessageTypeWas("location");
    // The fake names kinds as the service's own MessageSent events do.
    deepStrictEqual(types, ["text", "image", "poll", "location"]);
    throws(() => fake.assertMessageTypeWas("poll"), {
      message:
        'Expected the last message to be "poll", but it was "location" (POST /message/sendLocation/sales)',
    });
    throws(() => fake.assertMessageContains("#9999"), /Expected a message containing "#9999", but sent:/);
    // One read and four sends: requests count both, messages only the sends.
    fake.assertRequestCount(5);
    fake.assertMessageCount(4);
    throws(() => fake.assertMessageCount(5), /Expected 5 message\(s\), got 4/);
    throws(() => fake.assertRequestCount(4), /Expected 4 request\(s\), got 5/);
  } finally {
    await fake.close();
  }
});

Deno.test("GatewayApi.fake() makes a GatewayFake the facade's default service and returns it", async () => {
  const fake = GatewayApi.fake({ instance: "sales" });
  try {
    const res = await GatewayApi.message().text("+55 11 99999-9999", "Your code is 4821");
    strictEqual(res.status, 201);
    fake.assertMessageSent("5511999999999", "Your code is 4821");
    fake.assertMessageContains("4821");
    fake.assertMessageTypeWas("text");
    strictEqual(gatewayApi().getConnectionManager().getConnection().server_url, "http://gateway.test");
    fake.assertMessageCount(1);
  } finally {
    await fake.close();
  }
  // A second fake replaces the first: nothing recorded by the first leaks into it.
  const second = GatewayApi.fake();
  try {
    second.assertNothingSent();
    await GatewayApi.instances().fetchAll();
    second.assertRequestCount(1);
    fake.assertRequestCount(1);
  } finally {
    await second.close();
  }
});

Deno.test("GatewayApi.fake() without @gw/gateway/testing loaded says what to import", async () => {
  // The root entry never loads the simulator, so a process that did not import the testing entry gets a
  // clear error instead of a fake.
  const root = new URL("../../mod.ts", import.meta.url).href;
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["eval", `import { GatewayApi } from "${root}"; GatewayApi.fake();`],
    stdout: "piped",
    stderr: "piped",
  }).output();
  strictEqual(output.code, 1);
  ok(
    new TextDecoder().decode(output.stderr).includes(
      'Cannot fake GatewayApi: import "@gw/gateway/testing" first (it provides GatewayFake)',
    ),
  );
});
