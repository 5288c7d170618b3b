/**
 * The `data` of each webhook event, typed from the gateway contract (§6) and the server's source
 * (Evolution API 2.3.6, `whatsapp.baileys.service.ts`). Fields the server always sets are required; fields it
 * sets only sometimes are optional; objects the server passes through from WhatsApp keep an index signature
 * so that a field a newer server adds reads as `unknown` (check it before use) instead of being hidden.
 *
 * These are types only: nothing here validates a body at run time. The envelope is verified, not the shape
 * of `data`, so code that must not crash on a surprising body still checks what it reads.
 *
 * @module
 */

/** A JID (`5511999999999@s.whatsapp.net`, `123456789012345@lid`, `1203…@g.us`). */
export type Jid = string;

/** A Baileys message key, as `messages.upsert`, `messages.delete` and protocol messages carry it. */
export interface WebhookMessageKey {
  /** The chat (may be an `@lid` JID). */
  remoteJid?: Jid;
  /** Whether the instance sent the message. */
  fromMe?: boolean;
  /** The message id. */
  id?: string;
  /** The sender inside a group. */
  participant?: Jid;
  /** The other form of `remoteJid` (phone-number JID when `remoteJid` is an `@lid`, and back). */
  remoteJidAlt?: Jid;
  /** The other form of `participant`. */
  participantAlt?: Jid;
  /** `lid` or `pn` (Baileys 7). */
  addressingMode?: string;
  /** Phone-number JID of the sender (older servers). */
  senderPn?: Jid;
  /** `@lid` JID of the sender (older servers). */
  senderLid?: Jid;
  /** Fields a newer server adds. */
  [field: string]: unknown;
}

/** Quoted message, mentions and forwarding, as WhatsApp nests them in a message. */
export interface WebhookContextInfo {
  /** Id of the quoted message. */
  stanzaId?: string;
  /** Sender of the quoted message. */
  participant?: Jid;
  /** The quoted message's content. */
  quotedMessage?: WebhookMessageContent;
  /** JIDs mentioned in the text. */
  mentionedJid?: Jid[];
  /** Fields a newer server adds. */
  [field: string]: unknown;
}

/** An image, video, audio, document or sticker message (the fields a handler reads; more are sent). */
export interface WebhookMediaMessage {
  /** WhatsApp's encrypted media URL (use the server's media route to download it). */
  url?: string;
  /** `image/jpeg`, `audio/ogg; codecs=opus`, ... */
  mimetype?: string;
  /** Caption (image, video, document). */
  caption?: string;
  /** File name (document). */
  fileName?: string;
  /** Duration in seconds (audio, video). */
  seconds?: number;
  /** Whether an audio is a voice note. */
  ptt?: boolean;
  /** Quote, mentions. */
  contextInfo?: WebhookContextInfo;
  /** Fields a newer server adds. */
  [field: string]: unknown;
}

/**
 * A message's content, keyed by its type (`conversation`, `imageMessage`, ...). The server turns
 * `extendedTextMessage` into `conversation` for messages it stores, and may add `base64` (webhook with
 * `base64: true`), `mediaUrl` (S3) and `speechToText` (OpenAI).
 */
export interface WebhookMessageContent {
  /** Plain text. */
  conversation?: string;
  /** Text with a preview, a quote or mentions. */
  extendedTextMessage?: { text?: string; contextInfo?: WebhookContextInfo; [field: string]: unknown };
  /** Image. */
  imageMessage?: WebhookMediaMessage;
  /** Video. */
  videoMessage?: WebhookMediaMessage;
  /** Audio or voice note. */
  audioMessage?: WebhookMediaMessage;
  /** Document. */
  documentMessage?: WebhookMediaMessage;
  /** Sticker. */
  stickerMessage?: WebhookMediaMessage;
  /** Location. */
  locationMessage?: {
    degreesLatitude?: number;
    degreesLongitude?: number;
    name?: string;
    address?: string;
    [field: string]: unknown;
  };
  /** A shared contact card. */
  contactMessage?: { displayName?: string; vcard?: string; [field: string]: unknown };
  /** A reaction to `key`; `text` is the emoji, `""` when the reaction was removed. */
  reactionMessage?: { key?: WebhookMessageKey; text?: string; [field: string]: unknown };
  /** A reply to a buttons message. */
  buttonsResponseMessage?: {
    selectedButtonId?: string;
    selectedDisplayText?: string;
    contextInfo?: WebhookContextInfo;
    [field: string]: unknown;
  };
  /** A reply to a template-buttons message. */
  templateButtonReplyMessage?: {
    selectedId?: string;
    selectedDisplayText?: string;
    selectedIndex?: number;
    contextInfo?: WebhookContextInfo;
    [field: string]: unknown;
  };
  /** A reply to a list message. */
  listResponseMessage?: {
    title?: string;
    singleSelectReply?: { selectedRowId?: string; [field: string]: unknown };
    contextInfo?: WebhookContextInfo;
    [field: string]: unknown;
  };
  /** A poll (`pollCreationMessageV3` on newer clients). */
  pollCreationMessage?: {
    name?: string;
    options?: { optionName?: string }[];
    selectableOptionsCount?: number;
    [field: string]: unknown;
  };
  /** Edits, deletions ("revoke") and other protocol messages. */
  protocolMessage?: WebhookProtocolMessage;
  /** Base64 of the media, when the webhook is set with `base64: true`. */
  base64?: string;
  /** Public URL of the media, when the server stores media in S3. */
  mediaUrl?: string;
  /** Transcription of an audio, when the OpenAI integration is on. */
  speechToText?: string;
  /** Other message types (`pollCreationMessageV3`, `viewOnceMessageV2`, ...). */
  [type: string]: unknown;
}

/** A protocol message: an edit (`type` 14, `MESSAGE_EDIT`), a deletion (`type` 0, `REVOKE`), ... */
export interface WebhookProtocolMessage {
  /** The message edited or deleted. */
  key?: WebhookMessageKey;
  /** Protocol message type (a number or its name, depending on the serializer). */
  type?: number | string;
  /** The new content of an edited message. */
  editedMessage?: WebhookMessageContent;
  /** When it was edited (epoch ms, a number or a string). */
  timestampMs?: number | string;
  /** Fields a newer server adds. */
  [field: string]: unknown;
}

/** A message as the server stores and sends it (`messages.upsert`, `send.message`). */
export interface WebhookMessageData {
  /** The message key. */
  key: WebhookMessageKey;
  /** Sender's display name (`"Você"` on `send.message`). */
  pushName?: string;
  /** `DELIVERY_ACK` on inbound messages, `PENDING` on `send.message`. */
  status?: string;
  /** The content, keyed by type; absent for some system messages. */
  message?: WebhookMessageContent;
  /** Quote and mentions, or null. */
  contextInfo?: WebhookContextInfo | null;
  /** `conversation`, `imageMessage`, `reactionMessage`, ... */
  messageType?: string;
  /** Seconds since the epoch (a number or a numeric string). */
  messageTimestamp?: number | string;
  /** The server's instance id. */
  instanceId?: string;
  /** `android`, `ios`, `web`, `desktop`, `unknown`. */
  source?: string;
  /** Chatwoot ids, when the integration is on. */
  chatwootMessageId?: number;
  /** Fields a newer server adds. */
  [field: string]: unknown;
}

/** `messages.update`: a status change (`status`) of one message, or aggregated poll votes. */
export interface WebhookMessageUpdateData {
  /** The message id. */
  keyId: string;
  /** The chat. */
  remoteJid?: Jid;
  /** Whether the instance sent the message. */
  fromMe?: boolean;
  /** The group member it concerns. */
  participant?: Jid;
  /** `SERVER_ACK`, `DELIVERY_ACK`, `READ`, `PLAYED`, `ERROR`, or `DELETED` when unknown. */
  status: string;
  /** Aggregated poll votes, for a poll. */
  pollUpdates?: unknown;
  /** The server's instance id. */
  instanceId?: string;
  /** The server's database id of the message (when it stores messages). */
  messageId?: string;
  /** Fields a newer server adds. */
  [field: string]: unknown;
}

/** `messages.delete`: the deleted message's key, or the stored message when deleted through the API. */
export type WebhookMessageDeleteData =
  | WebhookMessageKey
  | (WebhookMessageData & { id?: string; status: "DELETED"; participant?: Jid });

/** `connection.update`. */
export interface WebhookConnectionData {
  /** The instance name. */
  instance?: string;
  /** `open`, `connecting`, `close` or `refused`. */
  state: "open" | "connecting" | "close" | "refused" | (string & Record<never, never>);
  /** 200 when open; the disconnect code when closed (401 logged out, 428 QR limit, ...). */
  statusReason?: number;
  /** The instance's own JID (when open or refused). */
  wuid?: Jid;
  /** The account's name (when open or refused). */
  profileName?: string;
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
  author?: Jid;
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
  pushName?: string;
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

/**
 * The `data` of each event, by dotted name. `WebhookEventData["messages.upsert"]` is the type of
 * `payload.data` in a handler registered with `processor.on("messages.upsert", ...)`.
 */
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
