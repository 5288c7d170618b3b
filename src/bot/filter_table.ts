/**
 * The filter queries a bot can ask for, in one table: what each matches, which payload fields it reads and
 * which context fields it narrows. `FilterQuery` (filter.ts) is the union of its keys; docs/bot.md shows it.
 *
 * "Inbound" below means: not sent by this instance (`key.fromMe` false) and not a status post
 * (`status@broadcast`). Updates about the instance's own messages reach middleware only through a query
 * that matches them explicitly (`outgoing`, `status`, `story`).
 *
 * @module
 */

/** One filter query: what it matches, the payload fields it reads, the context fields it narrows. */
export interface FilterQueryInfo {
  /** What the query matches, in a sentence. */
  readonly matches: string;
  /** The payload fields it reads (`data.` is the envelope's `data`). */
  readonly reads: string;
  /** The context fields it guarantees to be set. */
  readonly narrows: readonly string[];
}

/** Every filter query. */
export const FILTER_QUERIES = {
  "message": {
    matches: "any inbound message (messages.upsert)",
    reads: "event, data.key.fromMe, data.key.remoteJid, data.key.id",
    narrows: ["msg", "chat", "from"],
  },
  "message:text": {
    matches: "an inbound text",
    reads: "data.message.conversation | data.message.extendedTextMessage.text",
    narrows: ["msg", "chat", "from", "text", "msg.text"],
  },
  "message:image": {
    matches: "an inbound image (ctx.text is its caption, if any)",
    reads: "data.message.imageMessage(.caption)",
    narrows: ["msg", "chat", "from", "msg.media"],
  },
  "message:video": {
    matches: "an inbound video or round video",
    reads: "data.message.videoMessage | ptvMessage",
    narrows: ["msg", "chat", "from", "msg.media"],
  },
  "message:audio": {
    matches: "an inbound audio or voice note",
    reads: "data.message.audioMessage",
    narrows: ["msg", "chat", "from", "msg.media"],
  },
  "message:document": {
    matches: "an inbound document",
    reads: "data.message.documentMessage | documentWithCaptionMessage",
    narrows: ["msg", "chat", "from", "msg.media"],
  },
  "message:sticker": {
    matches: "an inbound sticker",
    reads: "data.message.stickerMessage",
    narrows: ["msg", "chat", "from", "msg.media"],
  },
  "message:location": {
    matches: "an inbound location",
    reads: "data.message.locationMessage | liveLocationMessage",
    narrows: ["msg", "chat", "from", "msg.location"],
  },
  "message:contact": {
    matches: "an inbound contact card",
    reads: "data.message.contactMessage | contactsArrayMessage",
    narrows: ["msg", "chat", "from", "msg.contacts"],
  },
  "message:reaction": {
    matches: 'an inbound reaction ("" when removed)',
    reads: "data.message.reactionMessage.text, .key.id",
    narrows: ["msg", "chat", "from", "msg.reaction"],
  },
  "message:button": {
    matches: "a buttons, template-button or quick-reply button reply (the buttons sendButtons sends)",
    reads:
      "data.message.buttonsResponseMessage.selectedButtonId | templateButtonReplyMessage.selectedId | interactiveResponseMessage.nativeFlowResponseMessage.paramsJson id",
    narrows: ["msg", "chat", "from", "msg.buttonId"],
  },
  "message:list": {
    matches: "a list reply",
    reads: "data.message.listResponseMessage.singleSelectReply.selectedRowId",
    narrows: ["msg", "chat", "from", "msg.rowId"],
  },
  "message:poll": {
    matches: "an inbound poll",
    reads: "data.message.pollCreationMessage(V2|V3).name, .options",
    narrows: ["msg", "chat", "from", "msg.poll"],
  },
  "edit": {
    matches: "a contact edited a message (messages.edited; chat and sender: where the message came in)",
    reads: "event, data.key.id, data.type (MESSAGE_EDIT), data.editedMessage",
    narrows: ["msg", "chat", "from"],
  },
  "delete": {
    matches: "a contact deleted a message for everyone (once, however many events report it)",
    reads: "messages.delete data.id | messages.update data.status DELETED | messages.edited data.type REVOKE",
    narrows: ["msg", "chat"],
  },
  "status": {
    matches: "a delivery status change (messages.update), also of the instance's own messages",
    reads: "data.keyId, data.remoteJid, data.fromMe, data.status",
    narrows: ["msg", "chat", "status"],
  },
  "group:join": {
    matches: "participants added to a group",
    reads: "group-participants.update data.id, data.action add, data.participants",
    narrows: ["chat", "group"],
  },
  "group:leave": {
    matches: "participants removed from or leaving a group",
    reads: "group-participants.update data.action remove",
    narrows: ["chat", "group"],
  },
  "group:promote": {
    matches: "participants made admins",
    reads: "group-participants.update data.action promote",
    narrows: ["chat", "group"],
  },
  "group:demote": {
    matches: "participants no longer admins",
    reads: "group-participants.update data.action demote",
    narrows: ["chat", "group"],
  },
  "connection": {
    matches: "the instance's connection changed (connection.update)",
    reads: "data.state, data.statusReason",
    narrows: ["connection"],
  },
  "call": {
    matches: "an incoming call",
    reads: "call data.id, data.from, data.isVideo, data.status",
    narrows: ["chat", "from", "call"],
  },
  "outgoing": {
    matches: "a message sent by the instance by other means than this bot (the phone, another app)",
    reads: "data.key.fromMe true (messages.upsert, send.message), not an id this bot sent",
    narrows: ["msg", "chat"],
  },
  "story": {
    matches: "a status post (status@broadcast)",
    reads: "data.key.remoteJid status@broadcast",
    narrows: ["msg", "from"],
  },
} as const satisfies Readonly<Record<string, FilterQueryInfo>>;

/** A filter query: a key of {@link FILTER_QUERIES}. */
export type FilterQuery = keyof typeof FILTER_QUERIES;

/** Every filter query, in table order. */
export const FILTER_QUERY_NAMES: readonly FilterQuery[] = Object.keys(FILTER_QUERIES) as FilterQuery[];

/**
 * Queries that can match updates about the instance's own messages or status posts: such an update runs the
 * middleware only when one of these is registered and matches it (echo safety).
 */
export const EXPLICIT_QUERIES: ReadonlySet<FilterQuery> = new Set<FilterQuery>([
  "outgoing",
  "status",
  "story",
]);
