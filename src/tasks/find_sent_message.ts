/**
 * Look for a send on the server (`findMessages`: `fromMe`, recipient, time window, then content).
 *
 * @module
 */

import type { OutboundMessageRecord } from "../store/store.ts";

/** The part of a client `findSentMessage` uses (a `GatewayClient` fits). */
export interface FindMessagesClient {
  /** Send a request (see `GatewayClient.request`). */
  request(
    method: "POST",
    route: string,
    options: {
      body: unknown;
      instance: string;
      connection: string;
      idempotent: boolean;
      signal?: AbortSignal;
    },
  ): Promise<{ data: unknown }>;
}

/** A message as `findMessages` returns it (the fields used). */
export interface FoundMessage {
  /** `{ remoteJid, fromMe, id, remoteJidAlt? }`. */
  key: { id?: string; remoteJid?: string; remoteJidAlt?: string; fromMe?: boolean };
  /** `conversation`, `imageMessage`, ... */
  messageType?: string;
  /** The proto-JSON message. */
  message?: Record<string, unknown>;
  /** Seconds since the epoch. */
  messageTimestamp?: number;
  /** Anything else the server returns. */
  [field: string]: unknown;
}

/** Pages of 50 looked at per query at most: a busier window is reported as undecided, never as not sent. */
const MAX_PAGES = 20;
const PAGE_SIZE = 50;

/** The JID the server addresses a number as (its own normalization, including the mobile-digit rules). */
export function recipientJid(recipient: string): string {
  if (/@(g\.us|s\.whatsapp\.net|lid|broadcast)$/.test(recipient)) return recipient.toLowerCase();
  const bare = recipient.replace(/[\s+()]/g, "").split(":")[0].split("@")[0];
  if (bare.includes("-") && bare.length >= 24) return `${bare.replace(/[^\d-]/g, "")}@g.us`;
  const digits = bare.replace(/\D/g, "");
  if (digits.length >= 18) return `${digits}@g.us`;
  return `${serverFormOf(digits)}@s.whatsapp.net`;
}

// Mexican and Argentinian mobiles lose the digit after the country code; Brazilian mobiles outside area
// codes below 31 lose their ninth digit (when it is 7 to 9): the server sends to that form.
function serverFormOf(digits: string): string {
  if ((digits.startsWith("52") || digits.startsWith("54")) && digits.length === 13) {
    return digits.slice(0, 2) + digits.slice(3);
  }
  const br = /^55(\d{2})\d(\d{8})$/.exec(digits);
  if (br && Number(br[1]) >= 31 && Number(br[2][0]) >= 7) return `55${br[1]}${br[2]}`;
  return digits;
}

/** Whether a JID's user part is the recipient's number, in either mobile-digit form. */
function sameRecipient(jid: string | undefined, recipient: string): boolean {
  if (jid === undefined) return false;
  const wanted = recipientJid(recipient);
  if (jid.toLowerCase() === wanted) return true;
  if (!jid.endsWith("@s.whatsapp.net") || !wanted.endsWith("@s.whatsapp.net")) return false;
  const user = jid.split("@")[0].split(":")[0];
  const digits = recipient.replace(/\D/g, "");
  return user === digits || serverFormOf(user) === serverFormOf(digits);
}

function field(value: unknown, ...path: string[]): unknown {
  let current = value;
  for (const part of path) {
    if (current === null || typeof current !== "object") return undefined;
    current = (current as Record<string, unknown>)[part];
  }
  return current;
}

/** The text a send's body puts in its message (text, caption, poll or list title, reaction), if any. */
function expectedText(record: OutboundMessageRecord): string | undefined {
  const body = record.body as Record<string, unknown> | null;
  const route = record.route;
  const pick = (name: string) => typeof body?.[name] === "string" ? body[name] as string : undefined;
  if (route.includes("/sendText/")) return pick("text");
  if (route.includes("/sendMedia/")) return pick("caption");
  if (route.includes("/sendPoll/")) return pick("name");
  if (route.includes("/sendList/")) return pick("title");
  if (route.includes("/sendReaction/")) return pick("reaction");
  if (route.includes("/sendStatus/")) return pick("type") === "text" ? pick("content") : pick("caption");
  return undefined;
}

/** The message types a send can be stored as, when its content has no text to compare. */
function expectedTypes(record: OutboundMessageRecord): string[] | undefined {
  const body = record.body as Record<string, unknown> | null;
  const route = record.route;
  if (route.includes("/sendWhatsAppAudio/")) return ["audioMessage"];
  if (route.includes("/sendSticker/")) return ["stickerMessage"];
  if (route.includes("/sendPtv/")) return ["ptvMessage", "videoMessage"];
  if (route.includes("/sendLocation/")) return ["locationMessage"];
  if (route.includes("/sendContact/")) return ["contactMessage", "contactsArrayMessage"];
  if (route.includes("/sendMedia/")) {
    return [`${String(body?.mediatype)}Message`, "documentWithCaptionMessage"];
  }
  if (route.includes("/sendTemplate/")) return ["templateMessage"];
  if (route.includes("/sendButtons/")) return ["buttonsMessage", "interactiveMessage"];
  return undefined;
}

function textOf(message: Record<string, unknown> | undefined): string | undefined {
  const candidates = [
    field(message, "conversation"),
    field(message, "extendedTextMessage", "text"),
    field(message, "imageMessage", "caption"),
    field(message, "videoMessage", "caption"),
    field(message, "documentMessage", "caption"),
    field(message, "documentWithCaptionMessage", "message", "documentMessage", "caption"),
    field(message, "pollCreationMessage", "name"),
    field(message, "pollCreationMessageV3", "name"),
    field(message, "listMessage", "title"),
    field(message, "reactionMessage", "text"),
  ];
  return candidates.find((value): value is string => typeof value === "string");
}

/** Whether a found message carries the record's content. */
export function matchesContent(record: OutboundMessageRecord, found: FoundMessage): boolean {
  const text = expectedText(record);
  if (text !== undefined) return textOf(found.message) === text;
  const types = expectedTypes(record);
  if (types === undefined) return true;
  return types.includes(String(found.messageType)) ||
    Object.keys(found.message ?? {}).some((type) => types.includes(type));
}

/** What {@link findSentMessage} concluded. */
export type FindSentResult =
  /** The message is on the server. */
  | { found: true; message: FoundMessage }
  /** Every message of the window was looked at: it is not there. */
  | { found: false; complete: true }
  /** The window held more messages than are looked at: nothing can be concluded. */
  | { found: false; complete: false };

/**
 * Look for `record`'s message on the server: messages `fromMe` to its recipient whose time falls within
 * `[from, to]` and whose content matches, leaving out message ids in `taken` (already credited to other
 * records). A query with the recipient's JID first, then one over every message of the window (the
 * server may have addressed another form of the number).
 */
export async function findSentMessage(
  client: FindMessagesClient,
  record: OutboundMessageRecord,
  window: { from: number; to: number; taken?: ReadonlySet<string>; signal?: AbortSignal },
): Promise<FindSentResult> {
  const messageTimestamp = {
    gte: new Date(window.from).toISOString(),
    lte: new Date(window.to).toISOString(),
  };
  let complete = true;
  for (const key of [{ fromMe: true, remoteJid: recipientJid(record.recipient) }, { fromMe: true }]) {
    for (let page = 1; page <= MAX_PAGES; page++) {
      const response = await client.request("POST", "/chat/findMessages/{instance}", {
        body: { where: { key, messageTimestamp }, page, offset: PAGE_SIZE },
        instance: record.instance,
        connection: record.connection,
        idempotent: true,
        signal: window.signal,
      });
      const messages = field(response.data, "messages") as { records?: unknown; pages?: unknown } | undefined;
      const records = Array.isArray(messages?.records) ? messages.records as FoundMessage[] : [];
      const match = records.find((found) =>
        found?.key?.fromMe === true && typeof found.key.id === "string" &&
        !window.taken?.has(found.key.id) &&
        (sameRecipient(found.key.remoteJid, record.recipient) ||
          sameRecipient(found.key.remoteJidAlt, record.recipient)) &&
        matchesContent(record, found)
      );
      if (match) return { found: true, message: match };
      const pages = typeof messages?.pages === "number" ? messages.pages : 0;
      if (records.length < PAGE_SIZE || page >= pages) break;
      if (page === MAX_PAGES) complete = false;
    }
  }
  return complete ? { found: false, complete: true } : { found: false, complete: false };
}
