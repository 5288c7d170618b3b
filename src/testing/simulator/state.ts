/**
 * In-memory state of the simulated server: per instance, the rows the server keeps in its database.
 *
 * @module
 */

import type { SimulatedConnectionState } from "./types.ts";

/** A stored message: the messageRaw plus the DB columns `findMessages` returns. */
export interface StoredMessage {
  id: string;
  key: Record<string, unknown>;
  pushName: string | null;
  messageType: string;
  message: Record<string, unknown>;
  contextInfo: unknown;
  messageTimestamp: number;
  instanceId: string;
  source: string;
  status: string;
  participant?: string | null;
  /** Base64 of the media bytes, when the send carried them (for getBase64FromMediaMessage). */
  mediaBase64?: string;
}

/** A `MessageUpdate` row. */
export interface MessageUpdateRow {
  id: string;
  keyId: string;
  remoteJid: string;
  fromMe: boolean;
  participant: string | null;
  pollUpdates: unknown;
  status: string;
  messageId: string;
  instanceId: string;
}

/** A chat row. */
export interface ChatRow {
  id: string;
  remoteJid: string;
  name: string | null;
  unreadMessages: number;
  archived: boolean;
  markedUnread: boolean;
  labels: string[];
  createdAt: string;
  updatedAt: string;
}

/** A contact row. */
export interface ContactRow {
  id: string;
  remoteJid: string;
  pushName: string | null;
  profilePicUrl: string | null;
  createdAt: string;
  updatedAt: string;
}

/** A group participant, as Baileys lists it. */
export interface GroupParticipant {
  id: string;
  admin: "superadmin" | "admin" | null;
}

/** A group, as Baileys' `GroupMetadata` describes it. */
export interface GroupState {
  id: string;
  subject: string;
  subjectOwner: string;
  subjectTime: number;
  pictureUrl: string | null;
  creation: number;
  owner: string;
  desc: string;
  descId: string;
  restrict: boolean;
  announce: boolean;
  ephemeralDuration: number;
  inviteCode: string;
  participants: GroupParticipant[];
}

/** The `Webhook` row. */
export interface WebhookRow {
  id: string;
  url: string;
  headers: Record<string, unknown> | null;
  enabled: boolean;
  events: string[];
  webhookByEvents: boolean;
  webhookBase64: boolean;
  createdAt: string;
  updatedAt: string;
  instanceId: string;
}

/** A label. */
export interface LabelRow {
  color: number;
  name: string;
  id: string;
  predefinedId: string | null;
}

/** A `Media` row (what S3 would hold). */
export interface MediaRow {
  id: string;
  fileName: string;
  type: string;
  mimetype: string;
  createdAt: string;
  messageId: string;
}

/** A template created on a WHATSAPP-BUSINESS instance. */
export interface TemplateRow {
  id: string;
  templateId: string;
  name: string;
  template: Record<string, unknown>;
  webhookUrl: string | null;
  instanceId: string;
  createdAt: string;
  updatedAt: string;
}

/** The current QR code of a connecting instance. */
export interface QrState {
  pairingCode: string | null;
  code: string;
  base64: string;
  count: number;
}

/** Everything the simulator knows about one instance. */
export interface InstanceState {
  id: string;
  name: string;
  token: string;
  integration: string;
  number: string | null;
  businessId: string | null;
  clientName: string;
  state: SimulatedConnectionState;
  /** A socket was started once: later sends fail with "Connection Closed", not a TypeError. */
  everConnected: boolean;
  ownerJid: string | null;
  profileName: string | null;
  profilePicUrl: string | null;
  profileStatus: string;
  qr: QrState | null;
  disconnectionReasonCode: number | null;
  disconnectionObject: string | null;
  disconnectionAt: string | null;
  createdAt: string;
  updatedAt: string;
  settings: Record<string, unknown> | null;
  webhook: WebhookRow | null;
  proxy: Record<string, unknown> | null;
  privacy: Record<string, string>;
  presence: string;
  messages: StoredMessage[];
  updates: MessageUpdateRow[];
  chats: Map<string, ChatRow>;
  contacts: Map<string, ContactRow>;
  groups: Map<string, GroupState>;
  labels: LabelRow[];
  blocked: Set<string>;
  media: MediaRow[];
  templates: TemplateRow[];
  /** Cancels a pending auto-connect timer. */
  cancelAutoConnect?: () => void;
}

/** WhatsApp Business' predefined labels, which a freshly linked account shows. */
export const DEFAULT_LABELS: readonly LabelRow[] = [
  { color: 1, name: "New customer", id: "1", predefinedId: "1" },
  { color: 2, name: "New order", id: "2", predefinedId: "2" },
  { color: 3, name: "Pending payment", id: "3", predefinedId: "3" },
  { color: 4, name: "Paid", id: "4", predefinedId: "4" },
  { color: 5, name: "Order complete", id: "5", predefinedId: "5" },
];

/** A new instance record in state `close`. */
export function newInstanceState(
  init: Pick<InstanceState, "id" | "name" | "token" | "integration" | "number" | "businessId"> & {
    now: string;
  },
): InstanceState {
  return {
    ...init,
    clientName: "evolution_exchange",
    state: "close",
    everConnected: false,
    ownerJid: null,
    profileName: null,
    profilePicUrl: null,
    profileStatus: "Hey there! I am using WhatsApp.",
    qr: null,
    disconnectionReasonCode: null,
    disconnectionObject: null,
    disconnectionAt: null,
    createdAt: init.now,
    updatedAt: init.now,
    settings: null,
    webhook: null,
    proxy: null,
    privacy: {
      readreceipts: "all",
      profile: "all",
      status: "contacts",
      online: "all",
      last: "all",
      groupadd: "all",
    },
    presence: "available",
    messages: [],
    updates: [],
    chats: new Map(),
    contacts: new Map(),
    groups: new Map(),
    labels: DEFAULT_LABELS.map((l) => ({ ...l })),
    blocked: new Set(),
    media: [],
    templates: [],
  };
}
