/**
 * One webhook payload as a bot update: which filter queries it matches, and the chat, sender, message,
 * status, group change, connection or call it carries. Table-driven and pure (no I/O); the bot makes the
 * chat id canonical through the `LidDirectory` afterwards.
 *
 * The shapes are those the server sends (2.3.6): `messages.upsert` / `send.message` carry Baileys'
 * message object (`extendedTextMessage` is usually already folded into `conversation` by the server, but
 * both are read); `messages.edited` a protocol message `{ key, type, editedMessage }`; `messages.update`
 * `{ keyId, remoteJid, fromMe, status }` with `DELETED` for a revoke; `messages.delete` the message key;
 * `group-participants.update` `{ id, participants, action, author? }`.
 *
 * @module
 */

import { parseMessageStatus } from "../delivery/status_tracker.ts";
import type { WebhookPayloadDto } from "../webhooks/payload.ts";
import type { FilterQuery } from "./filter_table.ts";

/** The chat an update belongs to. */
export interface BotChat {
  /** One canonical id per chat: the phone-number JID when known, else the `@lid` JID; a group's JID. */
  id: string;
  /** Whether the chat is a group. */
  isGroup: boolean;
}

/** Who an update comes from. */
export interface BotSender {
  /** The sender's JID, as a phone-number JID when known. */
  id: string;
  /** Phone digits, when known. */
  phone?: string;
  /** `@lid` JID, when known. */
  lid?: string;
  /** Display name (`pushName`), when sent. */
  name?: string;
}

/** Media fields of an image, video, audio, document or sticker. */
export interface BotMedia {
  /** MIME type. */
  mimetype?: string;
  /** File name (documents). */
  fileName?: string;
  /** Length in seconds (audio, video). */
  seconds?: number;
  /** Whether an audio is a voice note. */
  voice?: boolean;
}

/** One message, as the context shows it. */
export interface BotMessage {
  /** The message id (`key.id`). */
  id: string;
  /** The message type (`conversation`, `imageMessage`, `reactionMessage`, ...). */
  type: string;
  /** Whether the instance sent it. */
  fromMe: boolean;
  /** Text, caption, or the chosen button's or row's title. */
  text?: string;
  /** Caption of a media message. */
  caption?: string;
  /** The button chosen (buttons or template-button reply). */
  buttonId?: string;
  /** The row chosen (list reply). */
  rowId?: string;
  /** The reaction's emoji; `""` when a reaction was removed. */
  reaction?: string;
  /** The id of the message reacted to. */
  reactionTo?: string;
  /** Media fields. */
  media?: BotMedia;
  /** A shared location. */
  location?: { latitude: number; longitude: number; name?: string; address?: string };
  /** Shared contact cards. */
  contacts?: { name?: string; vcard?: string }[];
  /** A poll. */
  poll?: { name: string; options: string[] };
  /** The message this one quotes. */
  quoted?: { id: string; participant?: string; text?: string };
  /** JIDs mentioned. */
  mentions: string[];
  /** When it was sent (epoch ms). */
  timestamp: number;
}

/** A change of a group's participants. */
export interface BotGroupChange {
  /** The group's JID. */
  id: string;
  /** `add`, `remove`, `promote`, `demote` (or another action the server reports). */
  action: string;
  /** The participants concerned. */
  participants: string[];
  /** Who made the change, when sent. */
  author?: string;
}

/** A connection change. */
export interface BotConnection {
  /** `open`, `connecting`, `close`, `refused`. */
  state: string;
  /** The reason code, when sent. */
  statusReason?: number;
}

/** An incoming call. */
export interface BotCall {
  /** Call id. */
  id: string;
  /** Caller JID. */
  from: string;
  /** Whether it is a video call. */
  isVideo: boolean;
  /** Call status (`offer`, `ringing`, `timeout`, `reject`, `accept`). */
  status?: string;
}

/** The kinds of update. */
export type BotUpdateKind =
  | "message"
  | "outgoing"
  | "story"
  | "edit"
  | "delete"
  | "status"
  | "group"
  | "connection"
  | "call"
  | "other";

/** One webhook payload as a bot update. */
export interface BotUpdate {
  /** What kind of update this is. */
  kind: BotUpdateKind;
  /** The filter queries it matches. */
  queries: readonly FilterQuery[];
  /** Whether it is about the instance's own message or a status post (echo safety applies). */
  own: boolean;
  /** The instance it came from. */
  instance: string;
  /** The chat, when the update has one (as the payload gives it; the bot makes it canonical). */
  chat?: BotChat;
  /** The sender, when known. */
  from?: BotSender;
  /** The message, for message, edit, delete and status updates. */
  msg?: BotMessage;
  /** The delivery status of a `status` update. */
  status?: string;
  /** The group change of a `group:*` update. */
  group?: BotGroupChange;
  /** The connection change of a `connection` update. */
  connection?: BotConnection;
  /** The call of a `call` update. */
  call?: BotCall;
}

type Json = Record<string, unknown>;

function isRecord(value: unknown): value is Json {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function str(value: unknown): string | undefined {
  return typeof value === "string" && value.length > 0 ? value : undefined;
}

function num(value: unknown): number | undefined {
  const n = typeof value === "string" ? Number(value) : value;
  return typeof n === "number" && Number.isFinite(n) ? n : undefined;
}

function part(message: Json, field: string): Json {
  const value = message[field];
  return isRecord(value) ? value : {};
}

function media(p: Json): BotMedia {
  return {
    mimetype: str(p.mimetype),
    fileName: str(p.fileName),
    seconds: num(p.seconds),
    voice: typeof p.ptt === "boolean" ? p.ptt : undefined,
  };
}

/** What one field of Baileys' message object means: its query and the fields it sets. */
interface ContentRule {
  query: FilterQuery;
  read(p: Json, message: Json): Partial<BotMessage>;
}

const captioned = (p: Json): Partial<BotMessage> => ({ caption: str(p.caption), text: str(p.caption) });

/** Baileys' message fields, in the order they are looked for. */
const CONTENT: Readonly<Record<string, ContentRule>> = {
  conversation: { query: "message:text", read: (_p, m) => ({ text: str(m.conversation) }) },
  extendedTextMessage: { query: "message:text", read: (p) => ({ text: str(p.text) }) },
  imageMessage: { query: "message:image", read: (p) => ({ ...captioned(p), media: media(p) }) },
  videoMessage: { query: "message:video", read: (p) => ({ ...captioned(p), media: media(p) }) },
  ptvMessage: { query: "message:video", read: (p) => ({ media: media(p) }) },
  audioMessage: { query: "message:audio", read: (p) => ({ media: media(p) }) },
  documentMessage: { query: "message:document", read: (p) => ({ ...captioned(p), media: media(p) }) },
  documentWithCaptionMessage: {
    query: "message:document",
    read: (p) => {
      const doc = part(part(p, "message"), "documentMessage");
      return { ...captioned(doc), media: media(doc) };
    },
  },
  stickerMessage: { query: "message:sticker", read: (p) => ({ media: media(p) }) },
  locationMessage: { query: "message:location", read: (p) => ({ location: location(p) }) },
  liveLocationMessage: { query: "message:location", read: (p) => ({ location: location(p) }) },
  contactMessage: {
    query: "message:contact",
    read: (p) => ({ contacts: [{ name: str(p.displayName), vcard: str(p.vcard) }] }),
  },
  contactsArrayMessage: {
    query: "message:contact",
    read: (p) => ({
      contacts: (Array.isArray(p.contacts) ? p.contacts : []).filter(isRecord).map((c) => ({
        name: str(c.displayName),
        vcard: str(c.vcard),
      })),
    }),
  },
  reactionMessage: {
    query: "message:reaction",
    read: (p) => ({ reaction: typeof p.text === "string" ? p.text : "", reactionTo: str(part(p, "key").id) }),
  },
  buttonsResponseMessage: {
    query: "message:button",
    read: (p) => ({ buttonId: str(p.selectedButtonId) ?? "", text: str(p.selectedDisplayText) }),
  },
  templateButtonReplyMessage: {
    query: "message:button",
    read: (p) => ({ buttonId: str(p.selectedId) ?? "", text: str(p.selectedDisplayText) }),
  },
  listResponseMessage: {
    query: "message:list",
    read: (p) => ({ rowId: str(part(p, "singleSelectReply").selectedRowId) ?? "", text: str(p.title) }),
  },
  pollCreationMessage: { query: "message:poll", read: (p) => ({ poll: poll(p), text: str(p.name) }) },
  pollCreationMessageV2: { query: "message:poll", read: (p) => ({ poll: poll(p), text: str(p.name) }) },
  pollCreationMessageV3: { query: "message:poll", read: (p) => ({ poll: poll(p), text: str(p.name) }) },
};

function location(p: Json): BotMessage["location"] {
  return {
    latitude: num(p.degreesLatitude) ?? 0,
    longitude: num(p.degreesLongitude) ?? 0,
    name: str(p.name),
    address: str(p.address),
  };
}

function poll(p: Json): { name: string; options: string[] } {
  const options = Array.isArray(p.options) ? p.options : [];
  return {
    name: str(p.name) ?? "",
    options: options.map((o) => isRecord(o) ? str(o.optionName) : undefined).filter((o) => o !== undefined),
  };
}

/** The first known content field of a message object, with what it sets. */
function readContent(message: Json): { type: string; query?: FilterQuery; fields: Partial<BotMessage> } {
  for (const field of Object.keys(message)) {
    const rule = CONTENT[field];
    if (rule !== undefined) {
      return { type: field, query: rule.query, fields: rule.read(part(message, field), message) };
    }
  }
  const type = Object.keys(message).find((key) => key !== "messageContextInfo") ?? "unknown";
  return { type, fields: {} };
}

/** Quoted message and mentions: the server lifts `contextInfo` to `data`; Baileys keeps it in the part. */
function readContext(data: Json, message: Json, type: string): Pick<BotMessage, "quoted" | "mentions"> {
  const info = isRecord(data.contextInfo) ? data.contextInfo : part(part(message, type), "contextInfo");
  const mentioned = Array.isArray(info.mentionedJid) ? info.mentionedJid : [];
  const mentions = mentioned.filter((jid): jid is string => typeof jid === "string");
  const id = str(info.stanzaId);
  if (id === undefined) return { mentions };
  const quotedMessage = isRecord(info.quotedMessage) ? info.quotedMessage : {};
  const text = readContent(quotedMessage).fields.text;
  return { mentions, quoted: { id, participant: str(info.participant), text } };
}

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
    phone: payload.senderPhone,
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
  return { kind, queries, own, instance: payload.instance };
}

/** messages.upsert and send.message. */
function fromMessage(payload: WebhookPayloadDto, sentEvent: boolean): BotUpdate {
  const data = payload.dataObject;
  const message = payload.message ?? {};
  const content = readContent(message);
  const fromMe = sentEvent || payload.fromMe === true;
  const msg: BotMessage = {
    id: payload.messageId ?? "",
    type: str(data.messageType) ?? content.type,
    fromMe,
    ...content.fields,
    ...readContext(data, message, content.type),
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

/** messages.edited (and send.message.update, an edit made through the API): a protocol message. */
function fromEdit(payload: WebhookPayloadDto): BotUpdate {
  const data = payload.dataObject;
  const key = payload.key ?? {};
  const fromMe = key.fromMe === true || payload.event === "SEND_MESSAGE_UPDATE";
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
  const chat = chatOf(payload.chatJid);
  if (fromMe) return { ...base(payload, "outgoing", ["outgoing"], true), msg, chat };
  if (revoke) return { ...base(payload, "delete", ["delete"], false), msg: { ...msg, type: "revoke" }, chat };
  if (!EDIT_TYPES.has(data.type) && Object.keys(edited).length === 0) {
    return base(payload, "other", [], false);
  }
  return { ...base(payload, "edit", ["edit"], false), msg, chat, from: senderOf(payload) };
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

/**
 * The bot update of one webhook payload.
 *
 * @example
 * ```ts ignore
 * import { WebhookPayloadDto } from "../webhooks/payload.ts";
 * const payload = WebhookPayloadDto.from({
 *   event: "messages.upsert",
 *   instance: "sales",
 *   data: { key: { remoteJid: "5511999999999@s.whatsapp.net", fromMe: false, id: "3EB0" }, message: { conversation: "hi" } },
 * })!;
 * toBotUpdate(payload).queries; // ["message", "message:text"]
 * ```
 */
export function toBotUpdate(payload: WebhookPayloadDto): BotUpdate {
  const read = BY_EVENT[payload.event];
  if (read === undefined) {
    return { ...base(payload, "other", [], false), chat: chatOf(payload.chatJid) };
  }
  const update = read(payload);
  if (update.chat !== undefined && update.chat.id === "") delete update.chat;
  return update;
}

/** The chat's `@lid` JID when the update names the chat by one (for the directory lookup). */
export function lidChat(update: BotUpdate): string | undefined {
  const id = update.chat?.id;
  return id !== undefined && id.endsWith("@lid") ? id : undefined;
}

/** Whether `update`'s message is from a group and mentions `own` (JIDs of the instance) or quotes it. */
export function addressesInstance(update: BotUpdate, own: readonly string[]): boolean {
  const msg = update.msg;
  if (msg === undefined) return false;
  if (msg.mentions.some((jid) => own.includes(jid))) return true;
  const quoted = msg.quoted?.participant;
  return quoted !== undefined && own.includes(quoted);
}
