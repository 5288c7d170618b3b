/**
 * `/instance/*` routes (contract §2.2) and the two root routes, `GET /` and `POST /verify-creds`.
 *
 * @module
 */

import { badRequest, forbidden, notFound, Reply, unauthorized } from "../errors.ts";
import { INSTANCE_EVENTS } from "../events.ts";
import { createJid } from "../jid.ts";
import { route, type RouteContext, type RouteDef } from "../route.ts";
import { ROUTE } from "../../../resources/routes.ts";
import { CREATE_INSTANCE_SCHEMA, SET_PRESENCE_SCHEMA } from "../schemas.ts";
import { type InstanceState, newInstanceState, type WebhookRow } from "../state.ts";
import { checkBody } from "../validate.ts";
import type { SimulatorCore } from "../core.ts";

const INTEGRATIONS = ["WHATSAPP-BAILEYS", "WHATSAPP-BUSINESS", "EVOLUTION"];

function settingsFrom(body: Record<string, unknown>): Record<string, unknown> {
  return {
    rejectCall: body.rejectCall === true,
    msgCall: typeof body.msgCall === "string" ? body.msgCall : "",
    groupsIgnore: body.groupsIgnore === true,
    alwaysOnline: body.alwaysOnline === true,
    readMessages: body.readMessages === true,
    readStatus: body.readStatus === true,
    syncFullHistory: body.syncFullHistory === true,
    wavoipToken: typeof body.wavoipToken === "string" ? body.wavoipToken : "",
  };
}

/** The webhook row stored from a create body's `webhook` object (always enabled). */
function webhookFromCreate(
  core: SimulatorCore,
  instanceId: string,
  webhook: Record<string, unknown>,
): WebhookRow {
  const events = webhook.events;
  if (!Array.isArray(events)) {
    // The controller reads `.length` of whatever `events` is.
    throw badRequest(
      `Cannot read properties of ${events === null ? "null" : "undefined"} (reading 'length')`,
    );
  }
  const now = core.isoNow();
  return {
    id: crypto.randomUUID(),
    url: String(webhook.url ?? ""),
    headers: (webhook.headers as Record<string, unknown> | undefined) ?? null,
    enabled: true,
    events: events.length === 0 ? [...INSTANCE_EVENTS] : events.map(String),
    webhookByEvents: webhook.byEvents === true,
    webhookBase64: webhook.base64 === true,
    createdAt: now,
    updatedAt: now,
    instanceId,
  };
}

function create(ctx: RouteContext): unknown {
  const { core, body } = ctx;
  const name = body.instanceName;
  // instanceLoggedGuard runs before the key check, and a missing name looks like a taken one.
  if (name === undefined || name === null || (typeof name === "string" && core.instances.has(name))) {
    throw forbidden(`This name "${String(name)}" is already in use.`);
  }
  core.requireGlobalKey(ctx.apikey);
  checkBody(body, CREATE_INSTANCE_SCHEMA);
  if (name === "") throw badRequest([`The "instanceName" cannot be empty`]);
  const integration = body.integration;
  if (typeof integration !== "string" || !INTEGRATIONS.includes(integration)) {
    throw badRequest("Invalid integration");
  }
  const isBusiness = integration === "WHATSAPP-BUSINESS";
  if (isBusiness && !body.token) throw badRequest("token is required");
  if (isBusiness && !body.number) throw badRequest("number is required");
  const id = crypto.randomUUID();
  const webhookInput = body.webhook as Record<string, unknown> | undefined | null;
  const webhook = webhookInput ? webhookFromCreate(core, id, webhookInput) : null;
  const proxyWanted = Boolean(body.proxyHost && body.proxyPort && body.proxyProtocol);
  if (proxyWanted && !core.proxyTestPasses) throw badRequest("Invalid proxy");

  const hash = typeof body.token === "string" && body.token !== ""
    ? body.token
    : crypto.randomUUID().toUpperCase();
  const now = core.isoNow();
  const instance: InstanceState = newInstanceState({
    id,
    name: name as string,
    token: hash,
    integration,
    number: typeof body.number === "string" ? body.number : null,
    businessId: typeof body.businessId === "string" ? body.businessId : null,
    now,
  });
  instance.webhook = webhook;
  instance.settings = settingsFrom(body);
  if (proxyWanted) {
    instance.proxy = {
      id: crypto.randomUUID(),
      enabled: true,
      host: body.proxyHost,
      port: body.proxyPort,
      protocol: body.proxyProtocol,
      username: body.proxyUsername ?? "",
      password: body.proxyPassword ?? "",
      createdAt: now,
      updatedAt: now,
      instanceId: id,
    };
  }
  core.instances.set(instance.name, instance);
  core.emit(instance, "instance.create", { instanceName: instance.name, instanceId: id });

  if (integration !== "WHATSAPP-BAILEYS") {
    // Cloud API channels have no QR step: they are usable at once.
    instance.state = "open";
    instance.everConnected = true;
    instance.ownerJid = instance.number ? createJid(instance.number) : null;
  } else if (body.qrcode === true) {
    core.startConnecting(instance, instance.number);
  }

  const result: Record<string, unknown> = {
    instance: {
      instanceName: instance.name,
      instanceId: id,
      integration,
      webhookWaBusiness: isBusiness ? `${core.serverUrl ?? ""}/webhook/meta` : null,
      accessTokenWaBusiness: isBusiness ? "evolution" : "",
      status: instance.state === "connecting" ? "connecting" : "close",
    },
    hash,
    webhook: {
      webhookUrl: webhookInput?.url,
      webhookHeaders: webhookInput?.headers,
      webhookByEvents: webhookInput?.byEvents,
      webhookBase64: webhookInput?.base64,
    },
    websocket: { enabled: (body.websocket as { enabled?: unknown } | undefined)?.enabled },
    rabbitmq: { enabled: (body.rabbitmq as { enabled?: unknown } | undefined)?.enabled },
    nats: { enabled: (body.nats as { enabled?: unknown } | undefined)?.enabled },
    sqs: { enabled: (body.sqs as { enabled?: unknown } | undefined)?.enabled },
    settings: instance.settings,
  };
  if (instance.qr) result.qrcode = core.qrBody(instance);
  return result;
}

/** A Prisma `Instance` row with its relations, as `fetchInstances` lists it. */
export function instanceRow(instance: InstanceState): Record<string, unknown> {
  return {
    id: instance.id,
    name: instance.name,
    connectionStatus: instance.state,
    ownerJid: instance.ownerJid,
    profileName: instance.profileName,
    profilePicUrl: instance.profilePicUrl,
    integration: instance.integration,
    number: instance.number,
    businessId: instance.businessId,
    token: instance.token,
    clientName: instance.clientName,
    disconnectionReasonCode: instance.disconnectionReasonCode,
    disconnectionObject: instance.disconnectionObject,
    disconnectionAt: instance.disconnectionAt,
    createdAt: instance.createdAt,
    updatedAt: instance.updatedAt,
    Chatwoot: null,
    Proxy: instance.proxy,
    Rabbitmq: null,
    Nats: null,
    Sqs: null,
    Websocket: null,
    Setting: instance.settings
      ? {
        id: `${instance.id}-settings`,
        ...instance.settings,
        createdAt: instance.createdAt,
        updatedAt: instance.updatedAt,
        instanceId: instance.id,
      }
      : null,
    _count: { Message: instance.messages.length, Contact: instance.contacts.size, Chat: instance.chats.size },
  };
}

function fetchInstances(ctx: RouteContext): unknown {
  const { core, query } = ctx;
  const all = [...core.instances.values()];
  if (!core.isGlobalKey(ctx.apikey)) {
    // An instance token sees only its own instance.
    const own = all.filter((i) => i.token === ctx.apikey);
    if (own.length === 0) throw unauthorized();
    return [instanceRow(own[0])];
  }
  if (query.instanceName !== undefined) {
    const instance = core.instances.get(query.instanceName);
    if (!instance) throw notFound(`Instance "${query.instanceName}" not found`);
    return [instanceRow(instance)];
  }
  if (query.instanceId !== undefined || query.number !== undefined) {
    return all
      .filter((i) => query.instanceId === undefined || i.id === query.instanceId)
      .filter((i) => query.number === undefined || i.number === query.number)
      .map(instanceRow);
  }
  return all.map(instanceRow);
}

function connect(ctx: RouteContext): unknown {
  const { core, instance } = ctx;
  if (instance.state === "open") return { instance: { instanceName: instance.name, state: "open" } };
  if (instance.state === "close") core.startConnecting(instance, ctx.query.number ?? null);
  return core.qrBody(instance);
}

function restart(ctx: RouteContext): unknown {
  const { core, instance } = ctx;
  // A thrown exception object, stringified by the controller's catch.
  if (instance.state === "close") return new Reply(200, { error: true, message: "[object Object]" });
  if (instance.state === "open") return { instance: { instanceName: instance.name, state: "open" } };
  core.startConnecting(instance, null);
  return core.qrBody(instance);
}

function setPresence(ctx: RouteContext): unknown {
  checkBody(ctx.body, SET_PRESENCE_SCHEMA);
  const failure = ctx.core.socketErrorText(ctx.instance, "sendPresenceUpdate");
  if (failure) throw badRequest(failure);
  ctx.instance.presence = String(ctx.body.presence);
  return { presence: ctx.body.presence };
}

function logout(ctx: RouteContext): unknown {
  if (ctx.instance.state === "close") {
    throw badRequest(`The "${ctx.instance.name}" instance is not connected`);
  }
  ctx.core.logoutInstance(ctx.instance);
  return { status: "SUCCESS", error: false, response: { message: "Instance logged out" } };
}

function remove(ctx: RouteContext): unknown {
  ctx.core.deleteInstance(ctx.instance);
  return { status: "SUCCESS", error: false, response: { message: "Instance deleted" } };
}

function welcome(ctx: RouteContext): unknown {
  const base = ctx.core.serverUrl ?? new URL(ctx.request.url).origin;
  return {
    status: 200,
    message: "Welcome to the Evolution API, it is working!",
    version: ctx.core.options.version ?? "2.3.6",
    clientName: "evolution_exchange",
    manager: `${base}/manager`,
    documentation: "https://doc.evolution-api.com",
    whatsappWebVersion: "2.3000.1023204200",
  };
}

/** Instance routes plus `GET /` and `POST /verify-creds`. */
export const INSTANCE_ROUTES: readonly RouteDef[] = [
  { method: "GET", path: "/", withInstance: false, status: 200, auth: "none", handle: welcome },
  {
    method: "POST",
    path: "/verify-creds",
    withInstance: false,
    status: 200,
    auth: "global",
    handle: () => ({ status: 200, message: "Credentials are valid" }),
  },
  route(ROUTE.instance.create, create, "none"),
  route(ROUTE.instance.fetchInstances, fetchInstances, "anyKey"),
  route(ROUTE.instance.restart, restart),
  route(ROUTE.instance.connect, connect),
  route(ROUTE.instance.connectionState, (ctx) => ({
    instance: { instanceName: ctx.instance.name, state: ctx.instance.state },
  })),
  route(ROUTE.instance.setPresence, setPresence),
  route(ROUTE.instance.logout, logout),
  route(ROUTE.instance.delete, remove),
];
