// Contract §6, server 2.3.6. Types only: `data` is not verified, so code that must not crash checks it.

import type {
  Jid,
  WebhookMessageData,
  WebhookMessageDeleteData,
  WebhookMessageUpdateData,
  WebhookProtocolMessage,
} from "./message_data.ts";

export type * from "./message_data.ts";

/** `connection.update`. */
export interface WebhookConnectionData {
  /** The instance name. */
  instance?: string;
  /** `open`, `connecting`, `close` or `refused`. */
  state: "open" | "connecting" | "close" | "refused" | (string & Record<never, never>);
  /** 200 when open; the disconnect code when closed (401 logged out, 428 QR limit, ...). */
  statusReason?: number;
  /** The instance's own JID (when open or refused). */
  wuid?: Jid | null;
  /** The account's name (when open or refused). */
  profileName?: string | null;
  /** The account's picture (when open or refused). */
  profilePictureUrl?: string | null;
  /** Fields a newer server adds. */
  [field: string]: unknown;
}

/** `qrcode.updated`: a new QR code, or the QR limit message. */
export interface WebhookQrCodeData {
  /** The QR code (absent when the limit was reached). */
  qrcode?: {
    instance?: string;
    /** The pairing code, when a number was given to connect (else null). */
    pairingCode?: string | null;
    /** The raw QR string. */
    code?: string;
    /** `data:image/png;base64,...` */
    base64?: string;
  };
  /** `QR code limit reached, please login again`. */
  message?: string;
  /** 500 with the limit message. */
  statusCode?: number;
}

/** `group-participants.update`. */
export interface WebhookGroupParticipantsData {
  /** The group JID. */
  id: Jid;
  /** The participants concerned (JIDs as WhatsApp sent them, maybe `@lid`). */
  participants: Jid[];
  /** What happened to them. */
  action: "add" | "remove" | "promote" | "demote" | "modify" | (string & Record<never, never>);
  /** Who did it, when WhatsApp says. */
  author?: Jid | null;
  /** The participants resolved by the server (phone numbers for `@lid` JIDs), when it could. */
  participantsData?: { jid: Jid; phoneNumber: string; name?: string; imgUrl?: string }[];
  /** Fields a newer server adds. */
  [field: string]: unknown;
}

/** A group's metadata (`groups.upsert`: whole; `groups.update`: the changed fields and `id`). */
export interface WebhookGroupMetadata {
  /** The group JID. */
  id: Jid;
  /** Name. */
  subject?: string;
  /** Description. */
  desc?: string;
  /** Owner JID. */
  owner?: Jid;
  /** Creation time (seconds). */
  creation?: number;
  /** Only admins may send. */
  announce?: boolean;
  /** Only admins may edit the group. */
  restrict?: boolean;
  /** Members (whole metadata only). */
  participants?: { id: Jid; admin?: "admin" | "superadmin" | null; [field: string]: unknown }[];
  /** Fields a newer server adds. */
  [field: string]: unknown;
}

/** A contact as `contacts.*` carry it. */
export interface WebhookContact {
  /** The contact's JID. */
  remoteJid: Jid;
  /** Name (the agenda name, the verified business name or the number). */
  pushName?: string | null;
  /** Picture URL, or null when unknown. */
  profilePicUrl?: string | null;
  /** The server's instance id. */
  instanceId?: string;
  /** Fields a newer server adds. */
  [field: string]: unknown;
}

/** A chat as `chats.*` carry it. */
export interface WebhookChat {
  /** The chat's JID. */
  remoteJid: Jid;
  /** The server's instance id. */
  instanceId?: string;
  /** Name (`chats.upsert`). */
  name?: string | null;
  /** Unread count (`chats.upsert`). */
  unreadMessages?: number;
  /** Fields a newer server adds. */
  [field: string]: unknown;
}

/** `presence.update`: the presences of one chat's members. */
export interface WebhookPresenceData {
  /** The chat. */
  id: Jid;
  /** Participant JID → presence. */
  presences: Record<Jid, {
    /** `available`, `unavailable`, `composing`, `recording`, `paused`. */
    lastKnownPresence?: string;
    /** Seconds since the epoch. */
    lastSeen?: number;
  }>;
}

/** `call`: a WhatsApp call event. */
export interface WebhookCallData {
  /** Call id. */
  id: string;
  /** The caller. */
  from: Jid;
  /** The chat. */
  chatId?: Jid;
  /** When (an ISO date string once serialized). */
  date?: string;
  /** `offer`, `ringing`, `timeout`, `reject`, `accept`, `terminate`. */
  status: string;
  /** Whether it is a video call. */
  isVideo?: boolean;
  /** Whether it is a group call. */
  isGroup?: boolean;
  /** Whether it was received while offline. */
  offline?: boolean;
  /** Fields a newer server adds. */
  [field: string]: unknown;
}

/** `labels.edit`: a label created, changed or deleted. */
export interface WebhookLabelData {
  /** Label id. */
  id: string;
  /** Name. */
  name?: string;
  /** Colour index. */
  color?: number;
  /** Whether the label was deleted. */
  deleted?: boolean;
  /** Id of WhatsApp's predefined label, when it is one. */
  predefinedId?: string;
  /** The instance name. */
  instance?: string;
  /** Fields a newer server adds. */
  [field: string]: unknown;
}

/** `labels.association`: a label added to or removed from a chat. */
export interface WebhookLabelAssociationData {
  /** The instance name. */
  instance?: string;
  /** Added or removed. */
  type: "add" | "remove";
  /** The chat. */
  chatId: Jid;
  /** The label. */
  labelId: string;
}

/** `status.instance`: the instance closed for good. */
export interface WebhookStatusInstanceData {
  /** The instance name. */
  instance?: string;
  /** `closed`. */
  status: string;
  /** When (an ISO date string once serialized). */
  disconnectionAt?: string;
  /** The disconnect code. */
  disconnectionReasonCode?: number;
  /** The disconnect details, as a JSON string. */
  disconnectionObject?: string;
}

/** `instance.create` and `instance.delete`. */
export interface WebhookInstanceData {
  /** The instance name. */
  instanceName: string;
  /** The server's instance id. */
  instanceId?: string;
  /** Fields a newer server adds. */
  [field: string]: unknown;
}

/** `messaging-history.set` (sent by 2.4): one page of history sync. */
export interface WebhookHistorySetData {
  /** Messages. */
  messages?: WebhookMessageData[];
  /** Chats. */
  chats?: unknown[];
  /** Contacts. */
  contacts?: unknown[];
  /** Fields a newer server adds. */
  [field: string]: unknown;
}

/** The `data` of each event, by dotted name (`payload.data` in `processor.on(name, ...)`). */
export interface WebhookEventData {
  /** Never sent by 2.3.6. */
  "application.startup": unknown;
  /** A new QR code to scan. */
  "qrcode.updated": WebhookQrCodeData;
  /** History sync: messages. */
  "messages.set": WebhookMessageData[];
  /** One message received (or sent from another device). */
  "messages.upsert": WebhookMessageData;
  /** A message was edited: the protocol message. */
  "messages.edited": WebhookProtocolMessage;
  /** A message's status changed. */
  "messages.update": WebhookMessageUpdateData;
  /** A message was deleted. */
  "messages.delete": WebhookMessageDeleteData;
  /** A message sent through the API. */
  "send.message": WebhookMessageData;
  /** A message edited through the API: the protocol message. */
  "send.message.update": WebhookProtocolMessage;
  /** History sync: contacts. */
  "contacts.set": WebhookContact[];
  /** New contacts (an array, sometimes a single object). */
  "contacts.upsert": WebhookContact[] | WebhookContact;
  /** Changed contacts (an array, sometimes a single object). */
  "contacts.update": WebhookContact[] | WebhookContact;
  /** Presence of a chat's members. */
  "presence.update": WebhookPresenceData;
  /** History sync: chats. */
  "chats.set": WebhookChat[];
  /** New chats. */
  "chats.upsert": WebhookChat[];
  /** Changed chats. */
  "chats.update": WebhookChat[];
  /** Deleted chats: their JIDs. */
  "chats.delete": Jid[];
  /** Groups joined or created. */
  "groups.upsert": WebhookGroupMetadata[];
  /** Group metadata changed. */
  "groups.update": WebhookGroupMetadata[];
  /** Members added, removed, promoted or demoted. */
  "group-participants.update": WebhookGroupParticipantsData;
  /** The connection's state changed. */
  "connection.update": WebhookConnectionData;
  /** A label was edited. */
  "labels.edit": WebhookLabelData;
  /** A label was added to or removed from a chat. */
  "labels.association": WebhookLabelAssociationData;
  /** A call. */
  "call": WebhookCallData;
  /** A Typebot session started (the integration's own shape). */
  "typebot.start": Record<string, unknown>;
  /** A Typebot session changed status (the integration's own shape). */
  "typebot.change-status": Record<string, unknown>;
  /** The instance was removed: no data. */
  "remove.instance": null;
  /** The instance logged out: no data. */
  "logout.instance": null;
  /** An instance was created. */
  "instance.create": WebhookInstanceData;
  /** An instance was deleted. */
  "instance.delete": WebhookInstanceData;
  /** The instance closed for good. */
  "status.instance": WebhookStatusInstanceData;
  /** History sync (2.4). */
  "messaging-history.set": WebhookHistorySetData;
}
