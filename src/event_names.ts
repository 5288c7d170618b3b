/**
 * The reference server's event names (contract §5.3): the UPPER_SNAKE names of its configuration enum, in
 * the server's order, mapped to the dotted names it puts in webhook bodies. One list serves the request
 * objects (what `/webhook/set` accepts), the webhook payload normalizer and the simulated server.
 *
 * @module
 */

/**
 * Configuration name → dotted name, for every event `/webhook/set` accepts. `GROUP_UPDATE` ↔
 * `groups.update` is the server's own naming mismatch, kept as the server spells it.
 *
 * @example
 * ```ts
 * import { WEBHOOK_CONFIG_EVENTS } from "./event_names.ts";
 * WEBHOOK_CONFIG_EVENTS.MESSAGES_UPSERT; // "messages.upsert"
 * ```
 */
export const WEBHOOK_CONFIG_EVENTS: Readonly<Record<string, string>> = Object.freeze({
  APPLICATION_STARTUP: "application.startup",
  QRCODE_UPDATED: "qrcode.updated",
  MESSAGES_SET: "messages.set",
  MESSAGES_UPSERT: "messages.upsert",
  MESSAGES_EDITED: "messages.edited",
  MESSAGES_UPDATE: "messages.update",
  MESSAGES_DELETE: "messages.delete",
  SEND_MESSAGE: "send.message",
  SEND_MESSAGE_UPDATE: "send.message.update",
  CONTACTS_SET: "contacts.set",
  CONTACTS_UPSERT: "contacts.upsert",
  CONTACTS_UPDATE: "contacts.update",
  PRESENCE_UPDATE: "presence.update",
  CHATS_SET: "chats.set",
  CHATS_UPSERT: "chats.upsert",
  CHATS_UPDATE: "chats.update",
  CHATS_DELETE: "chats.delete",
  GROUPS_UPSERT: "groups.upsert",
  GROUP_UPDATE: "groups.update",
  GROUP_PARTICIPANTS_UPDATE: "group-participants.update",
  CONNECTION_UPDATE: "connection.update",
  LABELS_EDIT: "labels.edit",
  LABELS_ASSOCIATION: "labels.association",
  CALL: "call",
  TYPEBOT_START: "typebot.start",
  TYPEBOT_CHANGE_STATUS: "typebot.change-status",
  REMOVE_INSTANCE: "remove.instance",
  LOGOUT_INSTANCE: "logout.instance",
  INSTANCE_CREATE: "instance.create",
  INSTANCE_DELETE: "instance.delete",
  STATUS_INSTANCE: "status.instance",
});
