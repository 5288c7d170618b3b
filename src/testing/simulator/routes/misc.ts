/**
 * The smaller route groups (contract §2.4, §2.8): call, business, template, proxy, label and S3.
 *
 * @module
 */

import { badRequest, metaError, notFound } from "../errors.ts";
import { createJid, randomChars } from "../jid.ts";
import { route, type RouteContext, type RouteDef } from "../route.ts";
import { ROUTE } from "../../../resources/routes.ts";
import {
  CATALOG_SCHEMA,
  HANDLE_LABEL_SCHEMA,
  OFFER_CALL_SCHEMA,
  PROXY_SCHEMA,
  S3_MEDIA_SCHEMA,
  S3_URL_SCHEMA,
  TEMPLATE_SCHEMA,
} from "../schemas.ts";
import type { MediaRow } from "../state.ts";
import { checkBody } from "../validate.ts";
import { messageRecord } from "./chat.ts";

function offerCall(ctx: RouteContext): unknown {
  checkBody(ctx.body, OFFER_CALL_SCHEMA);
  // A stub in the reference server.
  return {
    id: "123",
    jid: createJid(String(ctx.body.number)),
    isVideo: ctx.body.isVideo,
    callDuration: ctx.body.callDuration,
  };
}

function catalog(kind: "catalog" | "collections") {
  return (ctx: RouteContext): unknown => {
    checkBody(ctx.body, CATALOG_SCHEMA);
    const { core, instance } = ctx;
    const context = kind === "catalog" ? "getCatalog" : "getCollections";
    const socket = core.socketErrorText(instance, kind === "catalog" ? "getCatalog" : "getCollections");
    if (socket) throw metaError({ message: socket.replace(/^\w*Error: /, "") }, context, core.now());
    const number = typeof ctx.body.number === "string" ? ctx.body.number : String(instance.ownerJid);
    const check = core.onWhatsApp(instance, number);
    const base = { wuid: check.jid, numberExists: check.exists, isBusiness: false };
    return kind === "catalog"
      ? { ...base, catalogLength: 0, catalog: [] }
      : { ...base, collectionsLength: 0, collections: [] };
  };
}

/** Template routes call the Graph API with the instance token, which only a Cloud API instance has. */
function requireMeta(ctx: RouteContext, context: string): void {
  if (ctx.instance.integration === "WHATSAPP-BUSINESS") return;
  throw metaError(
    {
      message: "Invalid OAuth access token - Cannot parse access token",
      type: "OAuthException",
      code: 190,
      fbtrace_id: randomChars(23),
    },
    context,
    ctx.core.now(),
  );
}

function templateCreate(ctx: RouteContext): unknown {
  checkBody(ctx.body, TEMPLATE_SCHEMA);
  requireMeta(ctx, "template create");
  const now = ctx.core.isoNow();
  const templateId = randomChars(15, "0123456789");
  // The answer holds Meta's reply; the stored copy keeps what `find` lists later.
  const reply = { id: templateId, status: "PENDING", category: ctx.body.category };
  const row = {
    id: crypto.randomUUID(),
    templateId,
    name: String(ctx.body.name),
    template: reply,
    webhookUrl: (ctx.body.webhookUrl as string | undefined) ?? null,
    instanceId: ctx.instance.id,
    createdAt: now,
    updatedAt: now,
  };
  ctx.instance.templates.push({
    ...row,
    template: { ...reply, language: ctx.body.language, components: ctx.body.components },
  });
  return row;
}

function templateFind(ctx: RouteContext): unknown {
  requireMeta(ctx, "template find");
  return {
    data: ctx.instance.templates.map((t) => ({
      name: t.name,
      components: t.template.components,
      language: t.template.language,
      status: t.template.status,
      category: t.template.category,
      id: t.templateId,
    })),
    paging: { cursors: { before: "MAZDZD", after: "MjQZD" } },
  };
}

function proxySet(ctx: RouteContext): unknown {
  checkBody(ctx.body, PROXY_SCHEMA);
  const b = ctx.body;
  if (b.enabled === true && !ctx.core.proxyTestPasses) throw badRequest("Invalid proxy");
  const now = ctx.core.isoNow();
  const proxy = {
    enabled: b.enabled,
    host: b.host,
    port: b.port,
    protocol: b.protocol,
    username: b.username ?? "",
    password: b.password ?? "",
  };
  const previous = ctx.instance.proxy;
  ctx.instance.proxy = {
    id: previous?.id ?? crypto.randomUUID(),
    ...proxy,
    createdAt: previous?.createdAt ?? now,
    updatedAt: now,
    instanceId: ctx.instance.id,
  };
  return { proxy: { instanceName: ctx.instance.name, proxy } };
}

function handleLabel(ctx: RouteContext): unknown {
  checkBody(ctx.body, HANDLE_LABEL_SCHEMA);
  const { core, instance } = ctx;
  core.requireSocket(instance, "onWhatsApp");
  const check = core.onWhatsApp(instance, String(ctx.body.number));
  if (!check.exists) throw notFound("Number is not on WhatsApp");
  const action = ctx.body.action as "add" | "remove";
  const labelId = String(ctx.body.labelId);
  if (!instance.labels.some((l) => l.id === labelId)) {
    throw badRequest(`Unable to ${action} label to chat`, "Error: item-not-found");
  }
  const chat = core.touchChat(instance, check.jid);
  chat.labels = action === "add"
    ? [...new Set([...chat.labels, labelId])]
    : chat.labels.filter((l) => l !== labelId);
  core.emit(instance, "labels.association", {
    instance: instance.name,
    type: action,
    chatId: check.jid,
    labelId,
  });
  return { numberJid: check.jid, labelId, [action]: true };
}

function mediaView(ctx: RouteContext, media: MediaRow): Record<string, unknown> {
  const message = ctx.instance.messages.find((m) => m.id === media.messageId);
  return {
    id: media.id,
    fileName: media.fileName,
    type: media.type,
    mimetype: media.mimetype,
    createdAt: media.createdAt,
    Message: message ? messageRecord(ctx.instance, message) : null,
  };
}

function findMedia(ctx: RouteContext, where: Record<string, unknown>): MediaRow[] {
  const found = ctx.instance.media.filter((m) =>
    (where.id === undefined || m.id === where.id) &&
    (where.type === undefined || m.type === where.type) &&
    (where.messageId === undefined || m.messageId === String(where.messageId))
  );
  if (found.length === 0) throw badRequest("Media not found");
  return found;
}

/** The call, business, template, proxy, label and S3 routes (12). */
export const MISC_ROUTES: readonly RouteDef[] = [
  route(ROUTE.call.offer, offerCall),
  route(ROUTE.business.getCatalog, catalog("catalog")),
  route(ROUTE.business.getCollections, catalog("collections")),
  route(ROUTE.template.create, templateCreate),
  route(ROUTE.template.find, templateFind),
  route(ROUTE.proxy.set, proxySet),
  route(ROUTE.proxy.find, (ctx) => (ctx.instance.proxy ? { ...ctx.instance.proxy } : null)),
  route(ROUTE.label.findLabels, (ctx) => ctx.instance.labels.map((l) => ({ ...l }))),
  route(ROUTE.label.handleLabel, handleLabel),
  route(ROUTE.s3.getMedia, (ctx) => {
    checkBody(ctx.body, S3_MEDIA_SCHEMA);
    return findMedia(ctx, ctx.body).map((m) => mediaView(ctx, m));
  }),
  route(ROUTE.s3.getMediaUrl, (ctx) => {
    checkBody(ctx.body, S3_URL_SCHEMA);
    const media = findMedia(ctx, { id: ctx.body.id })[0];
    const expiry = ctx.body.expiry ?? "3600";
    return {
      mediaUrl: `https://s3.simulated.local/evolution/${media.fileName}?X-Amz-Expires=${expiry}`,
      ...mediaView(ctx, media),
    };
  }),
];
