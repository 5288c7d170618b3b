/**
 * Event names of the reference server: UPPER_SNAKE in configuration, dotted in payloads (contract §5.3).
 *
 * @module
 */

/**
 * The per-instance event enum accepted by `/webhook/set`, in the server's order.
 *
 * @example
 * ```ts
 * import { INSTANCE_EVENTS } from "@gw/gateway/testing";
 * console.log(INSTANCE_EVENTS.includes("SEND_MESSAGE")); // true
 * ```
 */
export const INSTANCE_EVENTS: readonly string[] = [
  "APPLICATION_STARTUP",
  "QRCODE_UPDATED",
  "MESSAGES_SET",
  "MESSAGES_UPSERT",
  "MESSAGES_EDITED",
  "MESSAGES_UPDATE",
  "MESSAGES_DELETE",
  "SEND_MESSAGE",
  "SEND_MESSAGE_UPDATE",
  "CONTACTS_SET",
  "CONTACTS_UPSERT",
  "CONTACTS_UPDATE",
  "PRESENCE_UPDATE",
  "CHATS_SET",
  "CHATS_UPSERT",
  "CHATS_UPDATE",
  "CHATS_DELETE",
  "GROUPS_UPSERT",
  "GROUP_UPDATE",
  "GROUP_PARTICIPANTS_UPDATE",
  "CONNECTION_UPDATE",
  "LABELS_EDIT",
  "LABELS_ASSOCIATION",
  "CALL",
  "TYPEBOT_START",
  "TYPEBOT_CHANGE_STATUS",
  "REMOVE_INSTANCE",
  "LOGOUT_INSTANCE",
  "INSTANCE_CREATE",
  "INSTANCE_DELETE",
  "STATUS_INSTANCE",
];

/** `messages.upsert` → `MESSAGES_UPSERT`, the server's `event.replace(/[.-]/g, "_").toUpperCase()`. */
export function eventConfigName(event: string): string {
  return event.replace(/[.-]/g, "_").toUpperCase();
}

/** `messages.upsert` → `messages-upsert`, the byEvents URL suffix. */
export function eventKebab(event: string): string {
  return eventConfigName(event).replace(/_/g, "-").toLowerCase();
}
