/**
 * One webhook payload as a bot update, table-driven and pure (the bot makes the chat id canonical after).
 * Shapes of 2.3.6: `messages.upsert`/`send.message` Baileys' message (`extendedTextMessage` read too);
 * `messages.edited` `{ key, type, editedMessage }`; `messages.update` `{ keyId, remoteJid, fromMe, status }`
 * (`DELETED`: a revoke); `messages.delete` the key; `group-participants.update` `{ id, participants,
 * action, author? }`.
 *
 * @module
 */

import type { MessageOrigin } from "../webhooks/message_claims.ts";
import { parseMessageStatus } from "../delivery/status_updates.ts";
import { phoneOfSender, type WebhookPayloadDto } from "../webhooks/payload.ts";
import type { FilterQuery } from "./filter_table.ts";
import { isRecord } from "../util/json_shape.ts";
import { messageType, num, readContent, readContext, str } from "./message_content.ts";
import type {
  BotCall,
  BotChat,
  BotGroupChange,
  BotMessage,
  BotSender,
  BotUpdate,
  BotUpdateKind,
} from "./update_types.ts";

function timestampOf(payload: WebhookPayloadDto): number {
  return payload.messageTimestamp ?? payload.receivedAt;
}

function chatOf(jid: string | undefined): BotChat | undefined {
  return jid === undefined ? undefined : { id: jid, isGroup: jid.endsWith("@g.us") };
}

function senderOf(payload: WebhookPayloadDto): BotSender | undefined {
  const id = payload.senderJid;
  if (id === undefined) return undefined;
  const fromMe = payload.fromMe === true;
  return {
    id,
    phone: phoneOfSender(id), // what `payload.senderPhone` reads, without reading `senderJid` twice
    lid: fromMe ? undefined : payload.senderLid,
    name: fromMe ? undefined : payload.pushName,
  };
}

function base(
  payload: WebhookPayloadDto,
  kind: BotUpdateKind,
  queries: FilterQuery[],
  own: boolean,
): BotUpdate {
  return { id: "", kind, queries, own, instance: payload.instance };
}

/** Events whose message id names the update itself (a message, not something about one). */
const MESSAGE_EVENTS = new Set(["MESSAGES_UPSERT", "SEND_MESSAGE"]);

function updateId(payload: WebhookPayloadDto, update: BotUpdate): string {
  const msg = update.msg?.id;
  if (MESSAGE_EVENTS.has(payload.event) && msg) return msg;
  // 2.3.6 reports one revoke twice (messages.edited with a REVOKE protocol message, and messages.delete):
  // one id for both, so a `delete` handler runs once. A message is deleted once.
  if (update.kind === "delete" && msg) return `delete:${msg}`;
  const delivery = payload.deliveryId ?? payload.dateTime ?? String(payload.receivedAt);
  return `${payload.event.toLowerCase()}:${msg ?? ""}:${delivery}`;
}

/**
 * Whether the server named `update` (a message by its key id, a delete by the deleted message's id, or
 * any update by its signed delivery id): else it is named by its content (`content_identity.ts`).
 */
export function namedByServer(payload: WebhookPayloadDto, update: BotUpdate): boolean {
  if (payload.deliveryId !== undefined) return true;
  const msg = update.msg?.id;
  return msg !== undefined && msg !== "" && (MESSAGE_EVENTS.has(payload.event) || update.kind === "delete");
}

/** messages.upsert and send.message. */
function fromMessage(payload: WebhookPayloadDto, sentEvent: boolean): BotUpdate {
  const data = payload.dataObject;
  const content = readContent(payload.message ?? {});
  const fromMe = sentEvent || payload.fromMe === true;
  const msg: BotMessage = {
    id: payload.messageId ?? "",
    type: messageType(data.messageType, content.type),
    fromMe,
    ...content.fields,
    ...readContext(data, content.part),
    timestamp: timestampOf(payload),
  };
  const chat = chatOf(payload.chatJid);
  if (payload.remoteJid === "status@broadcast") {
    // A status post names its author as the participant.
    const key = payload.key ?? {};
    const author = str(key.participantAlt) ?? payload.participant ?? "status@broadcast";
    return { ...base(payload, "story", ["story"], true), msg, from: { id: author, name: payload.pushName } };
  }
  if (fromMe) return { ...base(payload, "outgoing", ["outgoing"], true), msg, chat };
  const queries: FilterQuery[] = ["message"];
  if (content.query !== undefined) queries.push(content.query);
  return { ...base(payload, "message", queries, false), msg, chat, from: senderOf(payload) };
}

const EDIT_TYPES = new Set<unknown>([14, "MESSAGE_EDIT"]);
const REVOKE_TYPES = new Set<unknown>([0, "REVOKE"]);

/**
 * messages.edited (and send.message.update): the key is the sender's side (Baileys does not flip it), so
 * `fromMe` is true for a contact's own edit too; with `origin` the edit is the contact's, in that chat.
 */
function fromEdit(payload: WebhookPayloadDto, origin?: MessageOrigin): BotUpdate {
  const data = payload.dataObject;
  const key = payload.key ?? {};
  const fromMe = origin === undefined && (key.fromMe === true || payload.event === "SEND_MESSAGE_UPDATE");
  const revoke = REVOKE_TYPES.has(data.type);
  const edited = isRecord(data.editedMessage) ? data.editedMessage : {};
  const inner = isRecord(edited.message) ? edited.message : edited; // FutureProofMessage wraps it
  const content = readContent(inner);
  const msg: BotMessage = {
    id: str(key.id) ?? "",
    type: content.type,
    fromMe,
    ...content.fields,
    mentions: [],
    timestamp: num(data.timestampMs) ?? timestampOf(payload),
  };
  const chat = chatOf(origin?.chat ?? payload.chatJid);
  if (fromMe) return { ...base(payload, "outgoing", ["outgoing"], true), msg, chat };
  if (revoke) return { ...base(payload, "delete", ["delete"], false), msg: { ...msg, type: "revoke" }, chat };
  if (!EDIT_TYPES.has(data.type) && Object.keys(edited).length === 0) {
    return base(payload, "other", [], false);
  }
  const from = origin === undefined ? senderOf(payload) : senderOfOrigin(origin);
  return { ...base(payload, "edit", ["edit"], false), msg, chat, from };
}

function senderOfOrigin(origin: MessageOrigin): BotSender | undefined {
  const id = origin.from ?? origin.chat;
  if (id === undefined) return undefined;
  const phone = /^(\d+)@s\.whatsapp\.net$/.exec(id)?.[1];
  return phone === undefined ? { id } : { id, phone };
}

/** messages.update: a status change, or DELETED for a message revoked. */
function fromStatus(payload: WebhookPayloadDto): BotUpdate {
  const data = payload.dataObject;
  const fromMe = data.fromMe === true;
  const msg: BotMessage = {
    id: str(data.keyId) ?? payload.messageId ?? "",
    type: "status",
    fromMe,
    mentions: [],
    timestamp: payload.receivedAt,
  };
  const chat = chatOf(payload.chatJid);
  if (data.remoteJid === "status@broadcast") return base(payload, "other", [], true);
  if (data.status === "DELETED") {
    return { ...base(payload, "delete", fromMe ? ["outgoing"] : ["delete"], fromMe), msg, chat };
  }
  const status = parseMessageStatus(data.status);
  if (status === undefined) return base(payload, "other", [], fromMe);
  return { ...base(payload, "status", ["status"], fromMe), msg, chat, status };
}

/** messages.delete: the deleted message's key (or the stored message, for a delete through the API). */
function fromDelete(payload: WebhookPayloadDto): BotUpdate {
  const data = payload.dataObject;
  const key = isRecord(data.key) ? data.key : data;
  const fromMe = key.fromMe === true;
  const msg: BotMessage = {
    id: str(key.id) ?? "",
    type: "revoke",
    fromMe,
    mentions: [],
    timestamp: payload.receivedAt,
  };
  const queries: FilterQuery[] = fromMe ? ["outgoing"] : ["delete"];
  return { ...base(payload, "delete", queries, fromMe), msg, chat: chatOf(str(key.remoteJid)) };
}

const GROUP_ACTIONS: Readonly<Record<string, FilterQuery>> = {
  add: "group:join",
  remove: "group:leave",
  leave: "group:leave",
  promote: "group:promote",
  demote: "group:demote",
};

function fromGroup(payload: WebhookPayloadDto): BotUpdate {
  const data = payload.dataObject;
  const id = str(data.id) ?? "";
  const action = str(data.action) ?? "";
  const list = Array.isArray(data.participants) ? data.participants : [];
  // Newer servers send participant objects ({ id, phoneNumber }); 2.3.6 sends JIDs.
  const participants = list.map((p) => typeof p === "string" ? p : isRecord(p) ? str(p.id) : undefined)
    .filter((p): p is string => p !== undefined);
  const query = GROUP_ACTIONS[action];
  const group: BotGroupChange = { id, action, participants, author: str(data.author) };
  const author = group.author;
  return {
    ...base(payload, "group", query === undefined ? [] : [query], false),
    chat: chatOf(id),
    from: author === undefined ? undefined : { id: author },
    group,
  };
}

function fromConnection(payload: WebhookPayloadDto): BotUpdate {
  const state = payload.connectionState ?? "";
  return {
    ...base(payload, "connection", ["connection"], false),
    connection: { state, statusReason: payload.statusReason },
  };
}

function fromCall(payload: WebhookPayloadDto): BotUpdate {
  const data = Array.isArray(payload.data) && isRecord(payload.data[0])
    ? payload.data[0]
    : payload.dataObject;
  const from = str(data.from) ?? "";
  const call: BotCall = {
    id: str(data.id) ?? "",
    from,
    isVideo: data.isVideo === true,
    status: str(data.status),
  };
  return {
    ...base(payload, "call", ["call"], false),
    call,
    chat: chatOf(str(data.chatId) ?? from),
    from: { id: from },
  };
}

/** How each event becomes an update. */
const BY_EVENT: Readonly<Record<string, (payload: WebhookPayloadDto) => BotUpdate>> = {
  MESSAGES_UPSERT: (payload) => fromMessage(payload, false),
  SEND_MESSAGE: (payload) => fromMessage(payload, true),
  MESSAGES_EDITED: fromEdit,
  SEND_MESSAGE_UPDATE: fromEdit,
  MESSAGES_UPDATE: fromStatus,
  MESSAGES_DELETE: fromDelete,
  GROUP_PARTICIPANTS_UPDATE: fromGroup,
  CONNECTION_UPDATE: fromConnection,
  CALL: fromCall,
};

/** The bot update of one webhook payload. */
export function toBotUpdate(payload: WebhookPayloadDto): BotUpdate {
  const read = BY_EVENT[payload.event];
  const update = read === undefined
    ? { ...base(payload, "other", [], false), chat: chatOf(payload.chatJid) }
    : read(payload);
  return finish(payload, update);
}

function finish(payload: WebhookPayloadDto, update: BotUpdate): BotUpdate {
  if (update.chat !== undefined && update.chat.id === "") delete update.chat;
  update.id = updateId(payload, update);
  return update;
}

/** The edited id of a `fromMe` messages.edited: maybe a contact's, placed by origin ({@link placeEdit}). */
export function editedId(payload: WebhookPayloadDto, update: BotUpdate): string | undefined {
  const id = update.msg?.id;
  return payload.event !== "MESSAGES_EDITED" || update.kind !== "outgoing" || !id ? undefined : id;
}

/** `update` placed in the chat this instance received the edited message in, when its origin is known. */
export function placeEdit(
  payload: WebhookPayloadDto,
  update: BotUpdate,
  origin: MessageOrigin | undefined,
): BotUpdate {
  return origin === undefined ? update : finish(payload, fromEdit(payload, origin));
}

/** The chat's `@lid` JID when the update names the chat by one (for the directory lookup). */
export function lidChat(update: BotUpdate): string | undefined {
  const id = update.chat?.id;
  return id !== undefined && id.endsWith("@lid") ? id : undefined;
}

/** Name the chat and sender by `phone`, the phone form of the chat's `@lid` (unchanged when undefined). */
export function renameChat(update: BotUpdate, lid: string, phone: string | undefined): BotUpdate {
  if (phone === undefined) return update;
  update.chat = { ...update.chat!, id: `${phone}@s.whatsapp.net` };
  if (update.from !== undefined && update.from.id === lid) {
    update.from = { ...update.from, id: update.chat.id, phone, lid };
  }
  return update;
}

/** Whether `update`'s message is from a group and mentions `own` (JIDs of the instance) or quotes it. */
export function addressesInstance(update: BotUpdate, own: readonly string[]): boolean {
  const msg = update.msg;
  if (msg === undefined) return false;
  if (msg.mentions.some((jid) => own.includes(jid))) return true;
  const quoted = msg.quoted?.participant;
  return quoted !== undefined && own.includes(quoted);
}
