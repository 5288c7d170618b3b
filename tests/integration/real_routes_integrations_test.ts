// The 90 integration routes (chatbots, Chatwoot, event sinks) against a real Evolution API 2.3.6, through the
// library's typed methods: each integration's create → find → update → delete (or set → find) round trip.
// Skipped unless GW_REAL_URL and GW_REAL_KEY are set; the server must run with EVO_CHATBOTS=1 and
// EVO_SINKS="rabbitmq nats websocket" (../shared/realserver/README.md). Each test works on a throwaway
// instance it deletes. Where a route needs an outside service to answer, the test says which and why.
import { deepStrictEqual, ok, rejects, strictEqual } from "node:assert/strict";
import { ConnectionException, GatewayService } from "../../mod.ts";
import type { BotInput, BotResource } from "../../src/resources/mod.ts";
import { SETTINGS } from "../fixtures/resources_cases_integrations.ts";

const url = Deno.env.get("GW_REAL_URL");
const key = Deno.env.get("GW_REAL_KEY");
const JID = "5511999999999@s.whatsapp.net";

async function withInstance(
  prefix: string,
  fn: (gw: GatewayService, name: string) => Promise<void>,
): Promise<void> {
  const root = GatewayService.make({ server_url: url!, api_key: key!, rate_limiting: { enabled: false } });
  const name = `gw-${prefix}-${crypto.randomUUID().slice(0, 8)}`;
  await root.instances().create(name);
  try {
    await fn(root.instance(name), name);
  } finally {
    await root.instances().delete(name);
  }
}

/** The full round trip of one bot integration: every one of its ten shared routes, accepted. */
async function botRoundTrip<T extends BotInput>(
  bots: BotResource<T>,
  input: T,
  changed: T,
  settings: Record<string, unknown>,
  fallback = true,
): Promise<void> {
  const created = (await bots.create(input)).data;
  ok(typeof created.id === "string" && created.id.length > 0, JSON.stringify(created));
  strictEqual(created.enabled, true);
  strictEqual(created.triggerType, input.triggerType);
  deepStrictEqual((await bots.find()).data.map((row) => row.id), [created.id]);
  strictEqual((await bots.fetch(created.id)).data?.id, created.id);

  const updated = (await bots.update(created.id, changed)).data;
  strictEqual(updated.id, created.id);
  strictEqual(updated.enabled, false);
  strictEqual(updated.triggerValue, changed.triggerValue);
  strictEqual((await bots.fetch(created.id)).data?.triggerValue, changed.triggerValue);

  const withFallback = fallback ? { ...settings, fallbackId: created.id } : settings;
  const stored = (await bots.setSettings(withFallback as never)).data;
  strictEqual(stored.expire, 20);
  strictEqual(stored.fallbackId, fallback ? created.id : null);
  const fetched = (await bots.fetchSettings()).data;
  strictEqual(fetched.keywordFinish, "#stop");
  strictEqual(fetched.fallbackId, fallback ? created.id : null);
  deepStrictEqual((await bots.ignoreJid(JID, "add")).data, { ignoreJids: [JID] });
  deepStrictEqual((await bots.ignoreJid(JID, "remove")).data, { ignoreJids: [] });
  strictEqual((await bots.changeStatus(JID, "closed")).data.bot.bot?.status, "closed");
  deepStrictEqual((await bots.fetchSessions(created.id)).data, []);

  deepStrictEqual((await bots.delete(created.id)).data, { bot: { id: created.id } });
  deepStrictEqual((await bots.find()).data, []);
  strictEqual((await bots.fetch(created.id)).data, null);
  // A second delete is the server's 500, never retried (a change).
  await rejects(bots.delete(created.id), (error: unknown) => {
    ok(error instanceof ConnectionException, String(error));
    strictEqual(error.status, 500);
    strictEqual(error.attempts, 1);
    return true;
  });
}

const keyword = (value: string) => ({
  triggerType: "keyword" as const,
  triggerOperator: "equals" as const,
  triggerValue: value,
});

Deno.test({
  name: "real server: Typebot's ten routes and start round-trip (the flow itself needs a Typebot server)",
  ignore: !url || !key,
  async fn() {
    await withInstance("typebot", async (gw) => {
      const bot = { url: "https://typebot.example.com", typebot: "welcome", ...keyword("hi") };
      await botRoundTrip(gw.typebot(), bot, { ...bot, enabled: false, triggerValue: "hello" }, SETTINGS);
      // The server calls the Typebot server (`<url>/api/v1/typebots/<typebot>/startChat`) before answering;
      // there is none here, and the server swallows that failure: 200 with an empty body, data null.
      const started = await gw.typebot().start({
        remoteJid: JID,
        url: "https://typebot.example.com",
        typebot: "welcome",
        variables: [{ name: "plan", value: "gold" }],
      });
      strictEqual(started.status, 200);
      strictEqual(started.data, null);
    });
  },
});

Deno.test({
  name: "real server: OpenAI's credentials and bot round-trip; getModels needs api.openai.com",
  ignore: !url || !key,
  async fn() {
    await withInstance("openai", async (gw) => {
      const openai = gw.openai();
      const creds = (await openai.createCreds("main", `sk-test-${crypto.randomUUID()}`)).data;
      deepStrictEqual((await openai.findCreds()).data.map((row) => row.id), [creds.id]);
      const bot = {
        openaiCredsId: creds.id,
        botType: "chatCompletion" as const,
        model: "gpt-4o-mini",
        maxTokens: 300,
        ...keyword("ai"),
      };
      const settings = { openaiCredsId: creds.id, ...SETTINGS };
      await botRoundTrip(openai, bot, { ...bot, enabled: false, triggerValue: "bot" }, settings, false);
      // 2.3.6 answers 500 to any OpenAI fallbackId (its controller mixes a relation connect with the
      // fallback column): refused before the request.
      await rejects(openai.setSettings({ ...settings, fallbackId: "cm0abc" }), {
        name: "ValidationException",
        messages: [
          "fallbackId: the server (2.3.6) cannot store an OpenAI fallback bot: it answers 500 to any fallbackId",
        ],
      });
      // The server asks api.openai.com for the key's models; offline that call fails, and the server says so.
      await rejects(openai.getModels({ openaiCredsId: creds.id }), (error: unknown) => {
        ok(error instanceof ConnectionException, String(error));
        strictEqual(error.status, 500);
        return true;
      });
      // A credential the settings use cannot be deleted (the server answers 500); an unused one can.
      await rejects(openai.deleteCreds(creds.id), (error: unknown) => {
        ok(error instanceof ConnectionException, String(error));
        strictEqual(error.status, 500);
        return true;
      });
      const spare = (await openai.createCreds("spare", `sk-test-${crypto.randomUUID()}`)).data;
      deepStrictEqual((await openai.deleteCreds(spare.id)).data, { openaiCreds: { id: spare.id } });
      deepStrictEqual((await openai.findCreds()).data.map((row) => row.id), [creds.id]);
    });
  },
});

Deno.test({
  name: "real server: Dify, Flowise, Evolution Bot, n8n and EvoAI round-trip (stored without calling them)",
  ignore: !url || !key,
  async fn() {
    await withInstance("bots", async (gw) => {
      const dify = {
        botType: "chatBot" as const,
        apiUrl: "https://api.dify.ai/v1",
        apiKey: "app-1",
        ...keyword("d"),
      };
      await botRoundTrip(gw.dify(), dify, { ...dify, enabled: false, triggerValue: "d2" }, SETTINGS);
      const flowise = { apiUrl: "https://flowise.example.com/api/v1/prediction/1", ...keyword("f") };
      await botRoundTrip(gw.flowise(), flowise, { ...flowise, enabled: false, triggerValue: "f2" }, SETTINGS);
      const evolution = { apiUrl: "https://bot.example.com/answer", apiKey: "k", ...keyword("e") };
      await botRoundTrip(
        gw.evolutionBot(),
        evolution,
        { ...evolution, enabled: false, triggerValue: "e2" },
        SETTINGS,
      );
      // The server stores the webhook's password from `basicAuthPass` (its schema lists `basicAuthPassword`,
      // which its controller never reads: the library refuses that name rather than see it dropped).
      const auth = {
        webhookUrl: "https://n8n.example.com/w",
        basicAuthUser: "u",
        basicAuthPass: "p",
        ...keyword("x"),
      };
      const n8nBot = (await gw.n8n().create(auth)).data;
      deepStrictEqual([n8nBot.basicAuthUser, n8nBot.basicAuthPass], ["u", "p"]);
      await gw.n8n().delete(n8nBot.id);
      // deno-lint-ignore no-explicit-any
      await rejects(gw.n8n().create({ ...auth, basicAuthPass: undefined, basicAuthPassword: "p" } as any), {
        messages: ["basicAuthPassword is ignored by the server; use basicAuthPass"],
      });
      const n8n = { webhookUrl: "https://n8n.example.com/webhook/1", ...keyword("n") };
      await botRoundTrip(gw.n8n(), n8n, { ...n8n, enabled: false, triggerValue: "n2" }, SETTINGS);
      const evoai = { agentUrl: "https://evoai.example.com/agent", ...keyword("a") };
      await botRoundTrip(gw.evoai(), evoai, { ...evoai, enabled: false, triggerValue: "a2" }, SETTINGS);
    });
  },
});

Deno.test({
  name: "real server: Chatwoot set → find → set, and its callback (autoCreate needs a Chatwoot server)",
  ignore: !url || !key,
  async fn() {
    await withInstance("chatwoot", async (gw) => {
      const empty = (await gw.chatwoot().find()).data;
      strictEqual(empty.enabled, false);
      // Without autoCreate nothing is asked of Chatwoot; with it the server creates the inbox there.
      const config = { accountId: "1", token: "token-1", url: "https://chatwoot.example.com", signMsg: true };
      const set = (await gw.chatwoot().set(config)).data;
      strictEqual(set.enabled, true);
      ok(set.webhook_url.endsWith(`/chatwoot/webhook/${set.nameInbox}`), set.webhook_url);
      const found = (await gw.chatwoot().find()).data;
      strictEqual(found.accountId, "1");
      strictEqual(found.signMsg, true);
      await gw.chatwoot().set({ ...config, enabled: false });
      strictEqual((await gw.chatwoot().find()).data.enabled, false);
      deepStrictEqual((await gw.chatwoot().webhook({})).data, { message: "bot" });
    });
  },
});

Deno.test({
  name: "real server: RabbitMQ, NATS and WebSocket sinks set → find → off; Pusher is stored as given",
  ignore: !url || !key,
  async fn() {
    await withInstance("sinks", async (gw) => {
      for (const sink of [gw.rabbitmq(), gw.nats(), gw.websocket()]) {
        strictEqual((await sink.find()).data, null);
        const row = (await sink.set({ events: ["messages.upsert", "CONNECTION_UPDATE"] })).data;
        deepStrictEqual([row?.enabled, row?.events], [true, ["MESSAGES_UPSERT", "CONNECTION_UPDATE"]]);
        deepStrictEqual((await sink.find()).data?.events, ["MESSAGES_UPSERT", "CONNECTION_UPDATE"]);
        await sink.set({ enabled: false });
        strictEqual((await sink.find()).data?.enabled, false);
      }
      // The server stores Pusher's settings whether or not PUSHER_ENABLED is on, but `find` answers an empty
      // body while it is off (the recipe runs no Pusher app: events reach Pusher only with a real one).
      const pusher = { appId: "1", key: "k", secret: "s", cluster: "mt1", events: ["SEND_MESSAGE"] };
      const stored = (await gw.pusher().set(pusher)).data;
      deepStrictEqual([stored?.cluster, stored?.useTLS, stored?.events], ["mt1", true, ["SEND_MESSAGE"]]);
      strictEqual((await gw.pusher().find()).data, null);
    });
  },
});

Deno.test({
  name: "real server: SQS and Kafka accept set and find but store nothing while disabled in the server's env",
  ignore: !url || !key,
  async fn() {
    // SQS needs AWS credentials and a queue (SQS_ENABLED), Kafka a broker (KAFKA_ENABLED): the recipe runs
    // neither, so the server answers an empty body, which the library gives as null.
    await withInstance("sqs", async (gw) => {
      for (const sink of [gw.sqs(), gw.kafka()]) {
        const set = await sink.set({ events: ["MESSAGES_UPSERT"] });
        strictEqual(set.status, 201);
        strictEqual(set.data, null);
        strictEqual((await sink.find()).data, null);
      }
    });
  },
});
