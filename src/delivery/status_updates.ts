/**
 * Message statuses as the server reports them: which status may follow which (a status only moves
 * forward; ERROR is terminal and only follows PENDING or SERVER_ACK), the names and numbers it uses, and
 * the status updates a webhook carries. `MessageStatusTracker` keeps them; this file only reads them.
 *
 * @module
 */

import type { WebhookPayloadDto } from "../webhooks/payload.ts";
import { isRecord, nonEmptyString } from "../util/json_shape.ts";
import type { MessageStatus } from "./status_events.ts";

const RANK: Readonly<Record<string, number>> = {
  PENDING: 1,
  SERVER_ACK: 2,
  DELIVERY_ACK: 3,
  READ: 4,
  PLAYED: 5,
};
// The server's numeric statuses (`renderStatus`): 0 ERROR, 1 PENDING, ... 5 PLAYED.
const BY_NUMBER: readonly MessageStatus[] = [
  "ERROR",
  "PENDING",
  "SERVER_ACK",
  "DELIVERY_ACK",
  "READ",
  "PLAYED",
];

/** One status report given to `MessageStatusTracker.observe` directly. */
export interface MessageStatusUpdate {
  /** The message's `key.id`. */
  messageId: string;
  /** The reported status (a name, or the server's number 0-5). */
  status: string | number;
  /** The instance, when known. */
  instance?: string;
  /** The chat JID, when known. */
  remoteJid?: string;
}

/** Whether `to` may follow `from`. Internal. */
export function isAdvance(from: MessageStatus | undefined, to: MessageStatus): boolean {
  if (from === undefined) return true;
  if (from === "ERROR") return false;
  if (to === "ERROR") return RANK[from] <= RANK.SERVER_ACK;
  return RANK[to] > RANK[from];
}

/** Whether `current` is `target` or further. Internal. */
export function reached(current: MessageStatus, target: MessageStatus): boolean {
  if (target === "ERROR") return current === "ERROR";
  return current !== "ERROR" && RANK[current] >= RANK[target];
}

/** The status named by `value` (`"READ"`, `"read"`, `4`), or undefined for anything else (`DELETED`). */
export function parseMessageStatus(value: unknown): MessageStatus | undefined {
  if (typeof value === "number") return BY_NUMBER[value];
  if (typeof value !== "string") return undefined;
  const upper = value.trim().toUpperCase();
  return upper === "ERROR" || Object.hasOwn(RANK, upper) ? upper as MessageStatus : undefined;
}

/** The status updates a webhook carries. Internal. */
export function updatesOf(payload: WebhookPayloadDto): MessageStatusUpdate[] {
  const out: MessageStatusUpdate[] = [];
  const items = Array.isArray(payload.data) ? payload.data : [payload.data];
  for (const item of items) {
    if (!isRecord(item)) continue;
    const key = isRecord(item.key) ? item.key : undefined;
    let messageId: string | undefined;
    let status: unknown = item.status;
    if (payload.event === "MESSAGES_UPDATE") {
      // `messageId` is the server's row id here; `keyId` is the message's own id.
      messageId = nonEmptyString(item.keyId) ?? nonEmptyString(key?.id);
    } else if (payload.event === "SEND_MESSAGE") {
      messageId = nonEmptyString(key?.id);
      status ??= "PENDING";
    } else if (payload.event === "MESSAGES_UPSERT" && key?.fromMe === true) {
      messageId = nonEmptyString(key.id);
    }
    if (messageId === undefined || status === undefined) continue;
    const update: MessageStatusUpdate = { messageId, status: status as string };
    if (payload.instance !== "") update.instance = payload.instance;
    const remoteJid = nonEmptyString(item.remoteJid) ?? nonEmptyString(key?.remoteJid);
    if (remoteJid !== undefined) update.remoteJid = remoteJid;
    out.push(update);
  }
  return out;
}
