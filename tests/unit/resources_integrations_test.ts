// The integration resources check their arguments before any request: a clear ValidationException naming
// every bad field, and nothing sent.
import { deepStrictEqual, rejects, strictEqual } from "node:assert/strict";
import { makeService } from "../fixtures/resources_server.ts";

Deno.test("integrations: a bad bot, settings or sink body is refused before any request, every field named", async () => {
  const { gw, calls } = makeService();
  await rejects(
    gw.typebot().create(
      { url: "https://t.example.com", triggerType: "keyword", expire: -1, typebotId: "x" } as never,
    ),
    {
      name: "ValidationException",
      messages: [
        "typebot is required",
        "expire must be at least 0",
        'typebotId is not a field of this body; did you mean "typebot"?',
        'triggerType "keyword" needs triggerOperator and triggerValue',
      ],
    },
  );
  await rejects(gw.dify().create({ botType: "chatBot", triggerType: "advanced" }), {
    messages: ['triggerType "advanced" needs triggerValue'],
  });
  await rejects(
    gw.openai().create({
      openaiCredsId: "c1",
      botType: "chatCompletion",
      model: "gpt-4o-mini",
      triggerType: "all",
    }),
    { messages: ['botType "chatCompletion" needs model and maxTokens'] },
  );
  await rejects(gw.n8n().setSettings({ expire: 1 }), (error: { messages: string[] }) => {
    deepStrictEqual(error.messages.slice(0, 2), ["keywordFinish is required", "delayMessage is required"]);
    strictEqual(error.messages.length, 10);
    return true;
  });
  await rejects(gw.flowise().fetch(" "), { messages: ["id must be a non-empty string"] });
  // n8n's schema lists basicAuthPassword, its controller stores basicAuthPass only.
  await rejects(
    gw.n8n().create(
      { webhookUrl: "https://n.example.com", triggerType: "all", basicAuthPassword: "p" } as never,
    ),
    {
      messages: ["basicAuthPassword is ignored by the server; use basicAuthPass"],
    },
  );
  await rejects(gw.evoai().changeStatus("5511999999999@s.whatsapp.net", "stopped" as never), {
    name: "ValidationException",
  });
  await rejects(gw.rabbitmq().set({ events: ["messages.upsert", "NOPE"] }), {
    messages: [
      'events[1] "NOPE" is not a webhook event (use UPPER_SNAKE names such as "MESSAGES_UPSERT"; see WEBHOOK_CONFIG_EVENTS)',
    ],
  });
  await rejects(gw.pusher().set({ appId: "1", key: "k", secret: "s" } as never), {
    messages: ["cluster is required"],
  });
  await rejects(gw.chatwoot().set({ accountId: "1", token: "t" } as never), {
    messages: ["url is required"],
  });
  strictEqual(calls.length, 0);
});

Deno.test("integrations: ids are percent-encoded in their path segment, before the instance", async () => {
  const { gw, calls } = makeService();
  await gw.instance("sales team").typebot().fetchSessions("a/b");
  deepStrictEqual(calls.map((call) => `${call.method} ${call.path}`), [
    "GET /typebot/fetchSessions/a%2Fb/sales%20team",
  ]);
});

Deno.test("integrations: a chat given as a number is sent as the JID the server stores sessions under", async () => {
  const { gw, calls } = makeService();
  await gw.typebot().changeStatus("+55 (11) 99999-9999", "paused");
  await gw.dify().ignoreJid("120363025246125888@g.us", "add");
  deepStrictEqual(calls.map((call) => call.body), [
    { remoteJid: "5511999999999@s.whatsapp.net", status: "paused" },
    { remoteJid: "120363025246125888@g.us", action: "add" },
  ]);
  await rejects(gw.n8n().ignoreJid("not a chat", "add"), { name: "ValidationException" });
  strictEqual(calls.length, 2);
});
