/**
 * Who sent a message, over every field the server has used for the other form of an `@lid`:
 * `key.remoteJidAlt`/`participantAlt` (2.3.6), `key.senderPn` (2.3.0 to 2.3.5), `participantPn`/`senderLid`.
 *
 * @module
 */

import { isRecord, nonEmptyString } from "../util/json_shape.ts";

/** What {@link resolveSender} answers. */
export interface ResolvedSender {
  /** The JID to reply to, always one the server sent (the group; else the phone-number JID, else `remoteJid`). */
  replyTo: string;
  /** The sender's LID JID (`123@lid`), when the payload carries one. */
  lid?: string;
  /** The sender's phone digits, when the payload carries a phone-number JID for them. */
  phone?: string;
}

type Json = Record<string, unknown>;

const PN = /^(\d+)(?::\d+)?@(?:s\.whatsapp\.net|c\.us)$/;
const LID = /^(\d+)(?::\d+)?@lid$/;

function phoneJid(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const match = PN.exec(value);
  return match ? `${match[1]}@s.whatsapp.net` : undefined;
}

function lidJid(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const match = LID.exec(value);
  return match ? `${match[1]}@lid` : undefined;
}

/** The message object of a payload (`{ data: { key } }`) or of a message (`{ key }`), or undefined. */
function messageOf(source: unknown): Json | undefined {
  if (!isRecord(source)) return undefined;
  if (isRecord(source.key)) return source;
  const data = source.data;
  return isRecord(data) && isRecord(data.key) ? data : undefined;
}

/**
 * The sender of a webhook payload or one message object (`{ key, ... }`); null without a `key.remoteJid`.
 * For a message this instance sent, `lid` and `phone` describe the other party.
 *
 * @example
 * ```ts
 * import { resolveSender } from "@gw/gateway/delivery";
 * resolveSender({
 *   key: { remoteJid: "123456789012345@lid", remoteJidAlt: "5511999999999@s.whatsapp.net", addressingMode: "lid" },
 * }); // { replyTo: "5511999999999@s.whatsapp.net", lid: "123456789012345@lid", phone: "5511999999999" }
 * resolveSender({ key: { remoteJid: "123456789012345@lid" } }); // { replyTo: "123456789012345@lid", lid: "123456789012345@lid" }
 * ```
 */
export function resolveSender(source: unknown): ResolvedSender | null {
  const message = messageOf(source);
  const key = message?.key as Json | undefined;
  const remoteJid = nonEmptyString(key?.remoteJid);
  if (message === undefined || key === undefined || remoteJid === undefined) return null;
  const group = remoteJid.endsWith("@g.us") || remoteJid.endsWith("@broadcast") ||
    remoteJid.endsWith("@newsletter");
  // Every field that has named the sender, most specific first.
  const candidates = group
    ? [key.participant, key.participantAlt, key.participantPn, key.participantLid, message.participant]
    : [remoteJid, key.remoteJidAlt];
  candidates.push(key.senderPn, key.senderLid);
  let phone: string | undefined;
  let lid: string | undefined;
  for (const candidate of candidates) {
    const value = nonEmptyString(candidate);
    phone ??= phoneJid(value);
    lid ??= lidJid(value);
  }
  const replyTo = group ? remoteJid : phone ?? remoteJid;
  const out: ResolvedSender = { replyTo };
  if (lid !== undefined) out.lid = lid;
  if (phone !== undefined) out.phone = phone.slice(0, phone.indexOf("@"));
  return out;
}
