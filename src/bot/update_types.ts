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
  /**
   * A stable id of the update, the same for every delivery of it: the message id of a message; for other
   * events the event, the message id if any, and the delivery id (a digest of the body), else `date_time`;
   * `delete:<message id>` for a delete, however many events report it.
   */
  id: string;
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
