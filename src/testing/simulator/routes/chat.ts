/**
 * `/chat/*` routes (contract §2.5): chat actions, the stored-data finders and the profile routes.
 *
 * @module
 */

import { badRequest, HttpError, internalArray, notFound } from "../errors.ts";
import { createJid, isGroupJid, newMessageId } from "../jid.ts";
import { route, type RouteContext, type RouteDef, socketOr500 } from "../route.ts";
import { ROUTE } from "../../../resources/routes.ts";
import { CHAT_SCHEMAS } from "../schemas.ts";
import type { ChatRow, InstanceState, StoredMessage } from "../state.ts";
import { checkBody, validateSchema } from "../validate.ts";
import { isRecord } from "../../../util/json_shape.ts";

type Body = Record<string, unknown>;

function obj(value: unknown): Body {
  return isRecord(value) ? value : {};
}

/** A findMessages record. */
export function messageRecord(instance: InstanceState, m: StoredMessage): Body {
  return {
    id: m.id,
    key: m.key,
    pushName: m.pushName,
    messageType: m.messageType,
    message: m.message,
    messageTimestamp: m.messageTimestamp,
    instanceId: m.instanceId,
    source: m.source,
    contextInfo: m.contextInfo,
    MessageUpdate: instance.updates.filter((u) => u.messageId === m.id).map((u) => ({ status: u.status })),
  };
}

function toSeconds(value: unknown): number | undefined {
  if (typeof value === "number") return value;
  if (typeof value === "string") {
    const n = Number(value);
    if (Number.isFinite(n)) return n;
    const ms = Date.parse(value);
    if (Number.isFinite(ms)) return Math.floor(ms / 1000);
  }
  return undefined;
}

function inRange(ts: number, range: unknown): boolean {
  const r = obj(range);
  const gte = toSeconds(r.gte);
  const lte = toSeconds(r.lte);
  return (gte === undefined || ts >= gte) && (lte === undefined || ts <= lte);
}

function positive(value: unknown, fallback: number): number {
  const n = Number(value);
  return Number.isFinite(n) && n > 0 ? Math.floor(n) : fallback;
}

function findMessages(ctx: RouteContext): unknown {
  checkBody(ctx.body, CHAT_SCHEMAS.findMessages);
  const where = obj(ctx.body.where);
  const key = obj(where.key);
  const list = ctx.instance.messages.filter((m) => {
    if (where.id !== undefined && m.id !== where.id) return false;
    if (where.source !== undefined && m.source !== where.source) return false;
    if (where.messageType !== undefined && m.messageType !== where.messageType) return false;
    for (const field of ["id", "fromMe", "remoteJid", "remoteJidAlt", "participant"]) {
      if (key[field] !== undefined && m.key[field] !== key[field]) return false;
    }
    return where.messageTimestamp === undefined || inRange(m.messageTimestamp, where.messageTimestamp);
  }).sort((a, b) => b.messageTimestamp - a.messageTimestamp);
  const page = positive(ctx.body.page, 1);
  const offset = positive(ctx.body.offset, 50);
  return {
    messages: {
      total: list.length,
      pages: Math.ceil(list.length / offset),
      currentPage: page,
      records: list.slice((page - 1) * offset, page * offset).map((m) => messageRecord(ctx.instance, m)),
    },
  };
}

function chatRow(instance: InstanceState, chat: ChatRow): Body {
  const last = instance.messages.filter((m) => m.key.remoteJid === chat.remoteJid)
    .sort((a, b) => b.messageTimestamp - a.messageTimestamp)[0];
  const contact = instance.contacts.get(chat.remoteJid);
  return {
    id: chat.id,
    remoteJid: chat.remoteJid,
    pushName: contact?.pushName ?? chat.name,
    profilePicUrl: contact?.profilePicUrl ?? null,
    updatedAt: chat.updatedAt,
    windowStart: null,
    windowExpires: null,
    windowActive: false,
    lastMessage: last ? messageRecord(instance, last) : null,
    unreadCount: chat.unreadMessages,
    isSaved: Boolean(contact),
  };
}

function findChats(ctx: RouteContext): unknown {
  const where = obj(ctx.body.where);
  const chats = [...ctx.instance.chats.values()]
    .filter((c) => where.remoteJid === undefined || c.remoteJid === where.remoteJid)
    .map((c) => chatRow(ctx.instance, c))
    .filter((row) => {
      if (where.messageTimestamp === undefined) return true;
      const last = row.lastMessage as Body | null;
      return last !== null && inRange(last.messageTimestamp as number, where.messageTimestamp);
    })
    .sort((a, b) => String(b.updatedAt).localeCompare(String(a.updatedAt)));
  const skip = positive(ctx.body.skip, 0);
  const take = ctx.body.take === undefined ? chats.length : positive(ctx.body.take, chats.length);
  return chats.slice(skip, skip + take);
}

function findChatByRemoteJid(ctx: RouteContext): unknown {
  const remoteJid = ctx.query.remoteJid;
  if (!remoteJid) throw new HttpError(400, { error: "remoteJid is a required query parameter" });
  const chat = ctx.instance.chats.get(remoteJid);
  return chat ? chatRow(ctx.instance, chat) : null;
}

function findContacts(ctx: RouteContext): unknown {
  checkBody(ctx.body, CHAT_SCHEMAS.findContacts);
  const where = obj(ctx.body.where);
  const rows: Body[] = [...ctx.instance.contacts.values()]
    .filter((c) => where.remoteJid === undefined || c.remoteJid === where.remoteJid)
    .map((c) => ({
      id: c.id,
      remoteJid: c.remoteJid,
      pushName: c.pushName,
      profilePicUrl: c.profilePicUrl,
      createdAt: c.createdAt,
      updatedAt: c.updatedAt,
      instanceId: ctx.instance.id,
      isGroup: isGroupJid(c.remoteJid),
      isSaved: true,
      type: isGroupJid(c.remoteJid) ? "group" : "contact",
    }));
  return rows;
}

function findStatusMessage(ctx: RouteContext): unknown {
  checkBody(ctx.body, CHAT_SCHEMAS.findStatusMessage);
  const where = obj(ctx.body.where);
  const list = ctx.instance.updates.filter((u) =>
    (where.remoteJid === undefined || u.remoteJid === where.remoteJid) &&
    (where.id === undefined || u.keyId === where.id)
  );
  const page = positive(ctx.body.page, 1);
  const offset = positive(ctx.body.offset, 50);
  return list.slice((page - 1) * offset, page * offset);
}

function whatsappNumbers(ctx: RouteContext): unknown {
  // This route answers 400 with whatever was thrown, unwrapped.
  const errors = validateSchema(ctx.body, CHAT_SCHEMAS.whatsappNumbers);
  if (errors.length > 0) {
    const messages = errors.map((e) => e.schema.description ?? e.stack.replace("instance.", ""));
    throw new HttpError(400, { status: 400, error: "Bad Request", message: [messages] });
  }
  const { instance } = ctx;
  if (instance.state !== "open") {
    if (!instance.everConnected) throw new HttpError(400, {});
    throw new HttpError(400, {
      data: null,
      isBoom: true,
      isServer: false,
      output: {
        statusCode: 428,
        payload: { statusCode: 428, error: "Precondition Required", message: "Connection Closed" },
        headers: {},
      },
    });
  }
  const numbers = Array.isArray(ctx.body.numbers) ? ctx.body.numbers as string[] : [];
  return numbers.map((number) => {
    const check = ctx.core.onWhatsApp(instance, number);
    const row: Body = { jid: check.jid, exists: check.exists, number };
    const name = instance.contacts.get(check.jid)?.pushName;
    if (name) row.name = name;
    return row;
  });
}

function markMessageAsRead(ctx: RouteContext): unknown {
  checkBody(ctx.body, CHAT_SCHEMAS.markMessageAsRead);
  socketOr500(ctx, "Read messages fail", "readMessages");
  for (const item of ctx.body.readMessages as Body[]) {
    const m = ctx.instance.messages.find((x) => x.key.id === item.id && x.key.remoteJid === item.remoteJid);
    if (m && !m.key.fromMe) m.status = "READ";
    const chat = ctx.instance.chats.get(String(item.remoteJid));
    if (chat) chat.unreadMessages = 0;
  }
  return { message: "Read messages", read: "success" };
}

function chatIdOf(ctx: RouteContext, text: string): string {
  const chat = ctx.body.chat;
  const remoteJid = obj(obj(ctx.body.lastMessage).key).remoteJid;
  const chatId = typeof chat === "string"
    ? createJid(chat)
    : typeof remoteJid === "string"
    ? remoteJid
    : undefined;
  if (!chatId) throw internalArray(text, "Error: Last message not found");
  return chatId;
}

function archiveChat(ctx: RouteContext): unknown {
  checkBody(ctx.body, CHAT_SCHEMAS.archiveChat);
  const text = "An error occurred while archiving the chat. Open a calling.";
  const chatId = chatIdOf(ctx, text);
  socketOr500(ctx, text, "chatModify");
  ctx.core.touchChat(ctx.instance, chatId).archived = ctx.body.archive === true;
  return { chatId, archived: true };
}

function markChatUnread(ctx: RouteContext): unknown {
  checkBody(ctx.body, CHAT_SCHEMAS.markChatUnread);
  const text = "An error occurred while marked unread the chat. Open a calling.";
  const chatId = chatIdOf(ctx, text);
  socketOr500(ctx, text, "chatModify");
  ctx.core.touchChat(ctx.instance, chatId).markedUnread = true;
  return { chatId, markedChatUnread: true };
}

function deleteMessageForEveryone(ctx: RouteContext): unknown {
  const b = ctx.body;
  checkBody(b, CHAT_SCHEMAS.deleteMessageForEveryone);
  socketOr500(ctx, "Error while deleting message for everyone", "sendMessage");
  const { core, instance } = ctx;
  const key: Body = { remoteJid: b.remoteJid, fromMe: b.fromMe, id: b.id };
  if (b.participant !== undefined) key.participant = b.participant;
  const stored = core.findMessage(instance, String(b.id));
  if (stored) {
    stored.status = "DELETED";
    core.emit(instance, "messages.delete", {
      id: stored.id,
      instanceId: instance.id,
      key: stored.key,
      messageType: stored.messageType,
      status: "DELETED",
      source: stored.source,
      messageTimestamp: stored.messageTimestamp,
      pushName: stored.pushName,
      participant: stored.participant ?? null,
      message: stored.message,
    });
  }
  return {
    key: { remoteJid: b.remoteJid, fromMe: true, id: newMessageId() },
    message: { protocolMessage: { key, type: "REVOKE" } },
    messageTimestamp: String(core.seconds()),
    status: "PENDING",
  };
}

function getBase64FromMediaMessage(ctx: RouteContext): unknown {
  checkBody(ctx.body, CHAT_SCHEMAS.getBase64FromMediaMessage);
  const id = obj(obj(ctx.body.message).key).id;
  const stored = typeof id === "string" ? ctx.core.findMessage(ctx.instance, id) : undefined;
  if (!stored) throw badRequest("Message not found");
  const type = Object.keys(stored.message).find((k) =>
    /^(image|video|audio|document|sticker|ptv)Message$/.test(k)
  );
  if (!type) throw badRequest("The message is not of the media type");
  const inner = obj(stored.message[type]);
  const base64 = stored.mediaBase64 ?? btoa("simulated media content");
  return {
    mediaType: type.replace(/Message$/, ""),
    fileName: inner.fileName ??
      `${stored.key.id}.${String(inner.mimetype ?? "bin").split("/")[1]?.split(";")[0]}`,
    caption: inner.caption,
    size: { fileLength: Number(inner.fileLength ?? 0), height: inner.height ?? 0, width: inner.width ?? 0 },
    mimetype: inner.mimetype,
    base64,
    buffer: null,
  };
}

function updateMessage(ctx: RouteContext): unknown {
  const b = ctx.body;
  checkBody(b, CHAT_SCHEMAS.updateMessage);
  const { core, instance } = ctx;
  const key = obj(b.key);
  const stored = typeof key.id === "string" ? core.findMessage(instance, key.id) : undefined;
  if (!stored) throw notFound("Message not found");
  if (!stored.key.fromMe) throw badRequest("You cannot edit others messages");
  const failure = core.socketErrorText(instance, "sendMessage");
  if (failure) throw badRequest(failure);
  const text = String(b.text ?? "");
  const timestampMs = core.now();
  const edit = { key: stored.key, type: "MESSAGE_EDIT", editedMessage: { conversation: text }, timestampMs };
  stored.message = { conversation: text };
  core.emit(instance, "send.message.update", edit);
  return {
    key: { remoteJid: createJid(String(b.number ?? stored.key.remoteJid)), fromMe: true, id: newMessageId() },
    message: { protocolMessage: edit },
    messageTimestamp: String(core.seconds()),
    status: "PENDING",
  };
}

function sendPresence(ctx: RouteContext): unknown {
  checkBody(ctx.body, CHAT_SCHEMAS.sendPresence);
  const failure = ctx.core.socketErrorText(ctx.instance);
  if (failure) throw badRequest(failure);
  if (!ctx.core.onWhatsApp(ctx.instance, String(ctx.body.number)).exists) throw badRequest("[object Object]");
  return { presence: ctx.body.presence };
}

function updateBlockStatus(ctx: RouteContext): unknown {
  checkBody(ctx.body, CHAT_SCHEMAS.updateBlockStatus);
  socketOr500(ctx, "Error blocking user");
  const check = ctx.core.onWhatsApp(ctx.instance, String(ctx.body.number));
  if (!check.exists) throw internalArray("Error blocking user", "[object Object]");
  if (ctx.body.status === "block") ctx.instance.blocked.add(check.jid);
  else ctx.instance.blocked.delete(check.jid);
  return { block: "success" };
}

/** The 14 chat routes (the profile routes are in `profile.ts`). */
export const CHAT_ROUTES: readonly RouteDef[] = [
  route(ROUTE.chat.whatsappNumbers, whatsappNumbers),
  route(ROUTE.chat.markMessageAsRead, markMessageAsRead),
  route(ROUTE.chat.archiveChat, archiveChat),
  route(ROUTE.chat.markChatUnread, markChatUnread),
  route(ROUTE.chat.deleteMessageForEveryone, deleteMessageForEveryone),
  route(ROUTE.chat.getBase64FromMediaMessage, getBase64FromMediaMessage),
  route(ROUTE.chat.updateMessage, updateMessage),
  route(ROUTE.chat.sendPresence, sendPresence),
  route(ROUTE.chat.updateBlockStatus, updateBlockStatus),
  route(ROUTE.chat.findContacts, findContacts),
  route(ROUTE.chat.findMessages, findMessages),
  route(ROUTE.chat.findStatusMessage, findStatusMessage),
  route(ROUTE.chat.findChats, findChats),
  route(ROUTE.chat.findChatByRemoteJid, findChatByRemoteJid),
];
