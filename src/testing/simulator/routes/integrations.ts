/**
 * The integration routes besides the bots' shared ten: the event sinks (`/<sink>/set|find`, every sink
 * enabled), Chatwoot (`/chatwoot/set|find|webhook`), typebot's `start` and openai's credentials and models.
 * Answers as 2.3.6 gives them (checked against the real server by
 * tests/integration/real_routes_integrations_test.ts).
 *
 * @module
 */

import {
  CHATWOOT_BODY,
  type EventSink,
  eventSinkBody,
  PUSHER_BODY,
} from "../../../dto/integration_bodies.ts";
import { OPENAI_CREDS_BODY, TYPEBOT_START_BODY } from "../../../dto/chatbot_bodies.ts";
import { ROUTE } from "../../../resources/routes.ts";
import { schemaOf } from "../body_schema.ts";
import { badRequest, internalString } from "../errors.ts";
import { route, type RouteContext, type RouteDef } from "../route.ts";
import type { InstanceState } from "../state.ts";
import { checkBody } from "../validate.ts";
import { botStore } from "./chatbots.ts";

type Row = Record<string, unknown>;

interface IntegrationRows {
  sinks: Map<string, Row>;
  chatwoot: Row | null;
  creds: Row[];
}

const stores = new WeakMap<InstanceState, IntegrationRows>();

function rowsOf(instance: InstanceState): IntegrationRows {
  let rows = stores.get(instance);
  if (rows === undefined) stores.set(instance, rows = { sinks: new Map(), chatwoot: null, creds: [] });
  return rows;
}

function sinkSet(sink: EventSink | "pusher") {
  const schema = schemaOf(sink === "pusher" ? PUSHER_BODY : eventSinkBody(sink));
  return (ctx: RouteContext): unknown => {
    checkBody(ctx.body, schema);
    const input = ctx.body[sink] as Row;
    const sinks = rowsOf(ctx.instance).sinks;
    const previous = sinks.get(sink);
    const now = ctx.core.isoNow();
    const { enabled, events, ...rest } = input;
    const row = {
      id: previous?.id ?? crypto.randomUUID(),
      enabled,
      ...(sink === "pusher" ? rest : {}),
      events: Array.isArray(events) ? events : [],
      createdAt: previous?.createdAt ?? now,
      updatedAt: now,
      instanceId: ctx.instance.id,
    };
    sinks.set(sink, row);
    return { ...row };
  };
}

function sinkRoutes(sink: EventSink | "pusher"): RouteDef[] {
  return [
    route(ROUTE[sink].set, sinkSet(sink)),
    route(ROUTE[sink].find, (ctx) => {
      const row = rowsOf(ctx.instance).sinks.get(sink);
      return row ? { ...row } : null;
    }),
  ];
}

const CHATWOOT_EMPTY = { enabled: false, url: "", accountId: "", token: "", signMsg: false, nameInbox: "" };

function chatwootSet(ctx: RouteContext): unknown {
  checkBody(ctx.body, schemaOf(CHATWOOT_BODY));
  const b = ctx.body;
  if (b.autoCreate === true) {
    // The server creates the inbox in Chatwoot; the simulator has no Chatwoot to reach.
    throw badRequest(`Chatwoot at ${String(b.url)} cannot be reached`);
  }
  const webhook_url = `${ctx.core.serverUrl ?? new URL(ctx.request.url).origin}/chatwoot/webhook/${
    encodeURIComponent(ctx.instanceName)
  }`;
  const stored = {
    enabled: b.enabled,
    accountId: b.accountId,
    token: b.token,
    url: b.url,
    nameInbox: b.nameInbox ?? ctx.instanceName,
    signMsg: b.signMsg,
    signDelimiter: b.signDelimiter ?? null,
    reopenConversation: b.reopenConversation,
    conversationPending: b.conversationPending,
    mergeBrazilContacts: b.mergeBrazilContacts ?? false,
    importContacts: b.importContacts ?? false,
    importMessages: b.importMessages ?? false,
    daysLimitImportMessages: b.daysLimitImportMessages ?? null,
    organization: b.organization ?? null,
    logo: b.logo ?? null,
    ignoreJids: b.ignoreJids ?? [],
  };
  rowsOf(ctx.instance).chatwoot = stored;
  return { ...b, signDelimiter: b.signDelimiter ?? null, nameInbox: stored.nameInbox, webhook_url };
}

function chatwootFind(ctx: RouteContext): unknown {
  const stored = rowsOf(ctx.instance).chatwoot;
  if (!stored) return { ...CHATWOOT_EMPTY, webhook_url: "" };
  const base = ctx.core.serverUrl ?? new URL(ctx.request.url).origin;
  return { ...stored, webhook_url: `${base}/chatwoot/webhook/${encodeURIComponent(ctx.instanceName)}` };
}

/** Chatwoot's callback: no guard; an unknown instance answers null, a known one `{ message: "bot" }`. */
function chatwootWebhook(ctx: RouteContext): unknown {
  return ctx.core.instances.has(ctx.instanceName) ? { message: "bot" } : null;
}

function typebotStart(ctx: RouteContext): unknown {
  checkBody(ctx.body, schemaOf(TYPEBOT_START_BODY));
  const { remoteJid, url, typebot } = ctx.body;
  const settings = botStore(ctx.instance, "typebot").settings;
  // The controller reads the settings' fields without checking they exist.
  if (!settings) throw internalString("Cannot read properties of null (reading 'expire')");
  const ignored = settings.ignoreJids;
  if (Array.isArray(ignored) && ignored.includes(remoteJid)) throw internalString("Jid not allowed");
  const prefilledVariables: Row = {};
  if (Array.isArray(ctx.body.variables)) {
    for (const item of ctx.body.variables as Row[]) prefilledVariables[String(item.name)] = item.value;
  }
  return {
    typebot: {
      instanceName: ctx.instanceName,
      ...ctx.query,
      typebot: { url, remoteJid, typebot, prefilledVariables },
    },
  };
}

function credsCreate(ctx: RouteContext): unknown {
  checkBody(ctx.body, schemaOf(OPENAI_CREDS_BODY));
  const creds = rowsOf(ctx.instance).creds;
  if (creds.some((row) => row.apiKey === ctx.body.apiKey)) {
    throw badRequest("This API key is already registered. Please use a different API key.");
  }
  if (creds.some((row) => row.name === ctx.body.name)) {
    throw badRequest("This credential name is already in use. Please choose a different name.");
  }
  const now = ctx.core.isoNow();
  const row = {
    id: crypto.randomUUID(),
    name: ctx.body.name,
    apiKey: ctx.body.apiKey,
    createdAt: now,
    updatedAt: now,
    instanceId: ctx.instance.id,
  };
  creds.push(row);
  return { ...row };
}

function credsDelete(ctx: RouteContext): unknown {
  const creds = rowsOf(ctx.instance).creds;
  const index = creds.findIndex((row) => row.id === ctx.id);
  if (index < 0) throw internalString("Error deleting openai creds");
  creds.splice(index, 1);
  return { openaiCreds: { id: ctx.id } };
}

/** The models come from api.openai.com, which the simulator does not reach: the server's answers without it. */
function getModels(ctx: RouteContext): unknown {
  const creds = rowsOf(ctx.instance).creds;
  if (ctx.query.openaiCredsId !== undefined) {
    if (!creds.some((row) => row.id === ctx.query.openaiCredsId)) {
      throw internalString("OpenAI credentials not found for the provided ID");
    }
    throw internalString("Error fetching models");
  }
  if (!botStore(ctx.instance, "openai").settings) throw internalString("Settings not found");
  throw internalString("Error fetching models");
}

/** The event sinks' 12 routes, Chatwoot's 3, typebot's `start` and openai's 4 extras. */
export const INTEGRATION_ROUTES: readonly RouteDef[] = [
  ...(["websocket", "rabbitmq", "nats", "pusher", "sqs", "kafka"] as const).flatMap(sinkRoutes),
  route(ROUTE.chatwoot.set, chatwootSet),
  route(ROUTE.chatwoot.find, chatwootFind),
  route(ROUTE.chatwoot.webhook, chatwootWebhook, "none"),
  route(ROUTE.typebot.start, typebotStart),
  route(ROUTE.openai.createCreds, credsCreate),
  route(
    ROUTE.openai.findCreds,
    (ctx) => rowsOf(ctx.instance).creds.map((row) => ({ ...row, OpenaiAssistant: [] })),
  ),
  route(ROUTE.openai.deleteCreds, credsDelete),
  route(ROUTE.openai.getModels, getModels),
];
