// The simulator's integration routes answer like the real 2.3.6 (the bodies below were taken from it):
// schema 400s from the bodies' declarations, and a store per instance and integration behind
// create/find/fetch/update/delete, settings, the ignore list, Chatwoot and the event sinks.
import { deepStrictEqual, ok, rejects, strictEqual } from "node:assert/strict";
import { ConnectionException } from "../../mod.ts";
import { GatewayFake } from "../../src/testing/mod.ts";
import { call, createInstance, newSim } from "../helpers/simulator.ts";
import { SETTINGS } from "../fixtures/resources_cases_integrations.ts";

const JID = "5511999999999@s.whatsapp.net";

Deno.test("simulator integrations: schema 400s are the real server's, message for message", async () => {
  const sim = newSim();
  await createInstance(sim, "sales");
  const cases: [string, unknown, string[]][] = [
    ["/typebot/create/sales", {}, [
      'instance requires property "enabled"',
      'instance requires property "url"',
      'instance requires property "typebot"',
      'instance requires property "triggerType"',
    ]],
    ["/rabbitmq/set/sales", { rabbitmq: {} }, ['rabbitmq requires property "enabled"']],
    ["/pusher/set/sales", {}, ['instance requires property "pusher"']],
    ["/chatwoot/set/sales", { enabled: false }, [
      'instance requires property "accountId"',
      'instance requires property "token"',
      'instance requires property "url"',
      'instance requires property "signMsg"',
      'instance requires property "reopenConversation"',
      'instance requires property "conversationPending"',
    ]],
  ];
  for (const [path, body, messages] of cases) {
    const res = await call(sim, "POST", path, body);
    strictEqual(res.status, 400, path);
    deepStrictEqual(res.body, { status: 400, error: "Bad Request", response: { message: [messages] } }, path);
  }
  const events = await call(sim, "POST", "/rabbitmq/set/sales", {
    rabbitmq: { enabled: true, events: ["NOPE"] },
  });
  strictEqual(events.status, 400);
  ok(String(events.body.response.message[0][0]).startsWith("rabbitmq.events[0] is not one of enum values: "));
  await sim.close();
});

Deno.test("simulator integrations: a bot's round trip through the library, and the server's 500s", async () => {
  const { service, fake } = GatewayFake.create({ instance: "sales" });
  const typebot = service.typebot();
  const input = { url: "https://typebot.example.com", typebot: "welcome", triggerType: "all" as const };
  const bot = (await typebot.create(input)).data;
  strictEqual(bot.enabled, true);
  strictEqual(bot.keywordFinish, null);
  strictEqual(bot.expire, 0);
  deepStrictEqual((await typebot.find()).data.map((row) => row.id), [bot.id]);
  // A second enabled "all" bot is refused by the controller after the schema.
  await rejects(typebot.create(input), (error: unknown) => {
    ok(error instanceof ConnectionException);
    deepStrictEqual(error.messages, [
      'You already have a Typebot with an "All" trigger, you cannot have more bots while it is active',
    ]);
    return true;
  });
  const updated = (await typebot.update(bot.id, { ...input, enabled: false, typebot: "welcome-2" })).data;
  deepStrictEqual([updated.id, updated.enabled, updated.typebot], [bot.id, false, "welcome-2"]);
  strictEqual((await typebot.fetch(bot.id)).data?.typebot, "welcome-2");
  deepStrictEqual((await typebot.ignoreJid(JID, "add")).data, { ignoreJids: [JID] });
  deepStrictEqual((await typebot.ignoreJid(JID, "add")).data, { ignoreJids: [JID] });
  await rejects(typebot.start({ remoteJid: JID, url: input.url, typebot: "welcome" }), { status: 500 });
  deepStrictEqual((await typebot.delete(bot.id)).data, { bot: { id: bot.id } });
  strictEqual((await typebot.fetch(bot.id)).data, null);
  await rejects(typebot.delete(bot.id), (error: unknown) => {
    ok(error instanceof ConnectionException);
    deepStrictEqual(error.messages, ["Error deleting Typebot bot"]);
    return true;
  });
  await rejects(typebot.update(bot.id, input), { status: 500 });
  // Integrations are stored apart: the other bots' lists stay empty.
  deepStrictEqual((await service.dify().find()).data, []);
  await fake.close();
});

Deno.test("simulator integrations: settings, sinks and Chatwoot are stored per instance", async () => {
  const { service, fake } = GatewayFake.create({ instance: "sales" });
  strictEqual((await service.n8n().fetchSettings()).data.expire, 300);
  await rejects(service.n8n().ignoreJid(JID, "add"), { status: 500 });
  const stored = (await service.n8n().setSettings({ ...SETTINGS, fallbackId: "b1" })).data;
  deepStrictEqual([stored.expire, stored.fallbackId, stored.botIdFallback], [20, "b1", "b1"]);
  strictEqual((await service.n8n().fetchSettings()).data.keywordFinish, "#stop");

  strictEqual((await service.nats().find()).data, null);
  const sink = (await service.nats().set({ events: ["messages.upsert"] })).data;
  deepStrictEqual([sink?.enabled, sink?.events], [true, ["MESSAGES_UPSERT"]]);
  deepStrictEqual((await service.nats().find()).data?.events, ["MESSAGES_UPSERT"]);
  strictEqual((await service.rabbitmq().find()).data, null);

  strictEqual((await service.chatwoot().find()).data.enabled, false);
  const chatwoot =
    (await service.chatwoot().set({ accountId: "1", token: "t", url: "https://cw.example.com" })).data;
  ok(chatwoot.webhook_url.endsWith("/chatwoot/webhook/sales"), chatwoot.webhook_url);
  strictEqual((await service.chatwoot().find()).data.accountId, "1");
  await fake.close();
});

Deno.test("simulator integrations: typebot start needs the settings; OpenAI settings keep their credentials", async () => {
  const { service, fake } = GatewayFake.create({ instance: "sales" });
  const jid = "5511999999999@s.whatsapp.net";
  await rejects(service.typebot().start({ remoteJid: jid, url: "https://t.example.com", typebot: "w" }), {
    messages: ["Cannot read properties of null (reading 'expire')"],
  });
  await service.typebot().create({ url: "https://t.example.com", typebot: "w", triggerType: "none" });
  const started = await service.typebot().start({
    remoteJid: jid,
    url: "https://t.example.com",
    typebot: "w",
  });
  deepStrictEqual(started.data, {
    typebot: {
      instanceName: "sales",
      typebot: { url: "https://t.example.com", remoteJid: jid, typebot: "w", prefilledVariables: {} },
    },
  });
  const creds = (await service.openai().createCreds("main", "sk-1")).data;
  await rejects(service.openai().createCreds("main", "sk-2"), {
    status: 400,
    messages: ["This credential name is already in use. Please choose a different name."],
  });
  const settings =
    (await service.openai().setSettings({ openaiCredsId: creds.id, ...SETTINGS, speechToText: true }))
      .data;
  deepStrictEqual([settings.openaiCredsId, settings.speechToText, settings.fallbackId], [
    creds.id,
    true,
    null,
  ]);
  await fake.close();
});
