/** A JID (`5511999999999@s.whatsapp.net`, `123456789012345@lid`, `1203…@g.us`). */
export type Jid = string;

/** A Baileys message key; its fields may come as `null` (protobuf JSON) or be left out: compare with `== null`. */
export interface WebhookMessageKey {
  /** The chat (may be an `@lid` JID). */
  remoteJid?: Jid;
  /** Whether the instance sent the message. */
  fromMe?: boolean;
  /** The message id. */
  id?: string;
  /** The sender inside a group. */
  participant?: Jid | null;
  /** The other form of `remoteJid` (phone-number JID when `remoteJid` is an `@lid`, and back). */
  remoteJidAlt?: Jid | null;
  /** The other form of `participant`. */
  participantAlt?: Jid | null;
  /** `lid` or `pn` (Baileys 7). */
  addressingMode?: string | null;
  /** Phone-number JID of the sender (older servers). */
  senderPn?: Jid | null;
  /** `@lid` JID of the sender (older servers). */
  senderLid?: Jid | null;
  /** Fields a newer server adds. */
  [field: string]: unknown;
}

/** Quoted message, mentions and forwarding, as WhatsApp nests them in a message. */
export interface WebhookContextInfo {
  /** Id of the quoted message. */
  stanzaId?: string;
  /** Sender of the quoted message. */
  participant?: Jid | null;
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

/** A message's content, keyed by its type; the server stores `extendedTextMessage` as `conversation`. */
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
  pushName?: string | null;
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
  remoteJid?: Jid | null;
  /** Whether the instance sent the message. */
  fromMe?: boolean | null;
  /** The group member it concerns. */
  participant?: Jid | null;
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
  | (WebhookMessageData & { id?: string; status: "DELETED"; participant?: Jid | null });
