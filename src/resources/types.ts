/**
 * Typed answers of the server's common routes (contract §2, §4); every shape is open to new fields.
 *
 * @module
 */

/** A message key. */
export interface MessageKey {
  /** Chat JID, e.g. `5511999999999@s.whatsapp.net`. */
  remoteJid: string;
  /** True for messages this instance sent. */
  fromMe: boolean;
  /** Message id, e.g. `3EB0...`. */
  id: string;
  /** Sender inside a group. */
  participant?: string;
  /** Other fields the server sends or accepts. */
  [key: string]: unknown;
}

/** The answer of every send route (the server's "messageRaw"; also the `send.message` webhook data). */
export interface SendMessageResponse {
  /** Key of the sent message; `key.id` is the message id. */
  key: MessageKey;
  /** `"Você"` for own messages (hard-coded by the server). */
  pushName?: string;
  /** `PENDING` right after a send. */
  status?: string;
  /** Message content keyed by type (`conversation`, `imageMessage`, ...). */
  message?: Record<string, unknown>;
  /** Quote and mention info, or null. */
  contextInfo?: Record<string, unknown> | null;
  /** `conversation`, `imageMessage`, ... */
  messageType?: string;
  /** Unix seconds. */
  messageTimestamp?: number;
  /** Instance uuid. */
  instanceId?: string;
  /** `web`, `android`, `ios`, `desktop` or `unknown`. */
  source?: string;
  /** Other fields the server sends or accepts. */
  [key: string]: unknown;
}

/** A connection state. */
export type ConnectionState = "open" | "connecting" | "close" | "refused";

/** The QR code object of `connect` (and of `create` with `qrcode: true`). */
export interface QrCode {
  /** Pairing code when a number was given, else null. */
  pairingCode?: string | null;
  /** The raw QR string. */
  code?: string;
  /** `data:image/png;base64,...` image of the QR. */
  base64?: string;
  /** How many QR codes were generated so far. */
  count?: number;
  /** Other fields the server sends or accepts. */
  [key: string]: unknown;
}

/** The answer of `connectionState` (and of `connect` on an open instance). */
export interface ConnectionStateResponse {
  /** Instance name and state. */
  instance: { instanceName: string; state?: ConnectionState; [key: string]: unknown };
  /** Other fields the server sends or accepts. */
  [key: string]: unknown;
}

/** The answer of `/instance/create` (201). */
export interface CreateInstanceResponse {
  /** The created instance. */
  instance: {
    instanceName: string;
    instanceId: string;
    integration: string;
    webhookWaBusiness?: string | null;
    accessTokenWaBusiness?: string;
    status: string;
    [key: string]: unknown;
  };
  /** The instance api key. */
  hash: string;
  /** Stored webhook summary. */
  webhook?: Record<string, unknown>;
  /** Stored settings. */
  settings?: Record<string, unknown>;
  /** QR code, with `qrcode: true` on Baileys. */
  qrcode?: QrCode;
  /** Other fields the server sends or accepts. */
  [key: string]: unknown;
}

/** One row of `fetchInstances`. */
export interface InstanceRow {
  /** Instance uuid. */
  id: string;
  /** Instance name. */
  name: string;
  /** `open`, `connecting` or `close`. */
  connectionStatus: string;
  /** Own JID once connected. */
  ownerJid?: string | null;
  /** Own profile name. */
  profileName?: string | null;
  /** Own picture URL. */
  profilePicUrl?: string | null;
  /** Integration. */
  integration?: string;
  /** Phone number. */
  number?: string | null;
  /** The instance token (only when the server exposes it). */
  token?: string;
  /** Creation time (ISO). */
  createdAt?: string;
  /** Last change (ISO). */
  updatedAt?: string;
  /** The last disconnect's `statusReason` (see `disconnectReason`), or null. */
  disconnectionReasonCode?: number | null;
  /** Stored settings. */
  Setting?: Record<string, unknown> | null;
  /** Message, contact and chat counts. */
  _count?: { Message?: number; Contact?: number; Chat?: number };
  /** Other fields the server sends or accepts. */
  [key: string]: unknown;
}

/** The `{status, error, response}` answer of logout and delete. */
export interface ActionResult {
  /** `SUCCESS`. */
  status: string;
  /** False. */
  error: boolean;
  /** What happened. */
  response: { message: string };
  /** Other fields the server sends or accepts. */
  [key: string]: unknown;
}

/** A presence state. */
export type Presence = "unavailable" | "available" | "composing" | "recording" | "paused";

/** The stored webhook row (`/webhook/find`, `/webhook/set`). */
export interface WebhookRow {
  /** Row id. */
  id?: string;
  /** URL. */
  url: string;
  /** Headers sent. */
  headers?: Record<string, string> | null;
  /** On or off. */
  enabled: boolean;
  /** UPPER_SNAKE events; empty when disabled. */
  events: string[];
  /** Per-event URLs. */
  webhookByEvents: boolean;
  /** Media as base64. */
  webhookBase64: boolean;
  /** Creation time. */
  createdAt?: string;
  /** Last change. */
  updatedAt?: string;
  /** Instance uuid. */
  instanceId?: string;
  /** Other fields the server sends or accepts. */
  [key: string]: unknown;
}

/** The answer of `/settings/set`. */
export interface SettingsSetResponse {
  /** The stored settings. */
  settings: { instanceName: string; settings: Record<string, unknown> };
  /** Other fields the server sends or accepts. */
  [key: string]: unknown;
}

/** One answer of `whatsappNumbers`. */
export interface OnWhatsAppResult {
  /** JID. */
  jid: string;
  /** Whether the number is on WhatsApp. */
  exists: boolean;
  /** The number as asked. */
  number: string;
  /** Name, when known. */
  name?: string;
  /** LID, when known. */
  lid?: string;
  /** Other fields the server sends or accepts. */
  [key: string]: unknown;
}

/** A key that identifies one message for read, delete and edit routes. */
export interface MessageRef {
  /** Chat JID. */
  remoteJid: string;
  /** Message id. */
  id: string;
  /** Sent by this instance. */
  fromMe: boolean;
  /** Sender inside a group. */
  participant?: string;
}

/** One stored message (`findMessages`). */
export interface MessageRecord {
  /** DB id. */
  id: string;
  /** Message key. */
  key: MessageKey;
  /** Sender name. */
  pushName?: string | null;
  /** Type. */
  messageType: string;
  /** Content. */
  message: Record<string, unknown>;
  /** Unix seconds. */
  messageTimestamp: number;
  /** Instance uuid. */
  instanceId?: string;
  /** Device. */
  source?: string;
  /** Context. */
  contextInfo?: Record<string, unknown> | null;
  /** Status updates. */
  MessageUpdate?: { status: string }[];
  /** Other fields the server sends or accepts. */
  [key: string]: unknown;
}

/** The filter of `findMessages`. */
export interface FindMessagesQuery {
  /** Filters. */
  where?: {
    id?: string;
    source?: string;
    messageType?: string;
    key?: { id?: string; fromMe?: boolean; remoteJid?: string; remoteJidAlt?: string; participant?: string };
    messageTimestamp?: { gte?: number | string; lte?: number | string };
    [key: string]: unknown;
  };
  /** Page number, from 1. */
  page?: number;
  /** Page size (the server's name), default 50. */
  offset?: number;
}

/** One page of `findMessages`. */
export interface FindMessagesResponse {
  /** Page data. */
  messages: { total: number; pages: number; currentPage: number; records: MessageRecord[] };
  /** Other fields the server sends or accepts. */
  [key: string]: unknown;
}

/** One contact row (`findContacts`). */
export interface ContactRow {
  /** DB id. */
  id: string;
  /** JID. */
  remoteJid: string;
  /** Name. */
  pushName?: string | null;
  /** Picture URL. */
  profilePicUrl?: string | null;
  /** `group`, `contact` or `group_member`. */
  type?: string;
  /** Other fields the server sends or accepts. */
  [key: string]: unknown;
}

/** One chat row (`findChats`, `findChatByRemoteJid`). */
export interface ChatRow {
  /** DB id. */
  id: string;
  /** JID. */
  remoteJid: string;
  /** Name. */
  pushName?: string | null;
  /** Unread messages. */
  unreadCount?: number;
  /** Last message. */
  lastMessage?: Record<string, unknown> | null;
  /** Other fields the server sends or accepts. */
  [key: string]: unknown;
}

/** A profile (`fetchProfile`). */
export interface ProfileInfo {
  /** JID. */
  wuid?: string;
  /** Name. */
  name?: string;
  /** Whether the number exists. */
  numberExists?: boolean;
  /** Picture URL. */
  picture?: string | null;
  /** Status text. */
  status?: string | Record<string, unknown> | null;
  /** Business account. */
  isBusiness?: boolean;
  /** Other fields the server sends or accepts. */
  [key: string]: unknown;
}

/** `{update: "success"}` answers of profile and group changes. */
export interface UpdateResult {
  /** `success`. */
  update: string;
  /** Other fields the server sends or accepts. */
  [key: string]: unknown;
}

/** Group metadata (`findGroupInfos`, `fetchAllGroups`, `create`). */
export interface GroupInfo {
  /** Group JID (`...@g.us`). */
  id: string;
  /** Name. */
  subject: string;
  /** Member count. */
  size?: number;
  /** Owner JID. */
  owner?: string;
  /** Description. */
  desc?: string;
  /** Members (only when asked). */
  participants?: { id: string; admin?: string | null; [key: string]: unknown }[];
  /** Other fields the server sends or accepts. */
  [key: string]: unknown;
}

/** The invite code of a group. */
export interface InviteCodeResponse {
  /** `https://chat.whatsapp.com/<code>`. */
  inviteUrl: string;
  /** The code. */
  inviteCode: string;
  /** Other fields the server sends or accepts. */
  [key: string]: unknown;
}

/** Group participant actions. */
export type ParticipantAction = "add" | "remove" | "promote" | "demote";

/** Group setting actions. */
export type GroupSettingAction = "announcement" | "not_announcement" | "locked" | "unlocked";

/** A label. */
export interface Label {
  /** Label id. */
  id: string;
  /** Name. */
  name: string;
  /** Colour index. */
  color?: number | string;
  /** Predefined id. */
  predefinedId?: string | null;
  /** Other fields the server sends or accepts. */
  [key: string]: unknown;
}
