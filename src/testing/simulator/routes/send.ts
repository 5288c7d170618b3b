/**
 * `sendMessageWithTyping` of the server: number check, messageRaw, storage and `send.message`.
 *
 * @module
 */

import { badRequest } from "../errors.ts";
import { createJid, isGroupJid, newMessageId } from "../jid.ts";
import type { RouteContext } from "../route.ts";
import type { InstanceState, StoredMessage } from "../state.ts";

/** What a send route prepared. */
export interface OutgoingContent {
  /** The proto-JSON message, keyed by type. */
  message: Record<string, unknown>;
  messageType: string;
  /** Text for the `sentMessages` log. */
  text?: string;
  /** Raw base64 of the media, kept for getBase64FromMediaMessage. */
  mediaBase64?: string;
  /** Media facts for the S3 `Media` row. */
  media?: { type: string; fileName: string; mimetype: string };
}

function contextInfoFor(
  ctx: RouteContext,
  instance: InstanceState,
  remoteJid: string,
): Record<string, unknown> | null {
  const body = ctx.body;
  const info: Record<string, unknown> = {};
  if (isGroupJid(remoteJid) && body.mentionsEveryOne === true) {
    info.mentionedJid = instance.groups.get(remoteJid)?.participants.map((p) => p.id) ?? [];
  } else if (Array.isArray(body.mentioned) && body.mentioned.length > 0) {
    info.mentionedJid = body.mentioned.map((m) => createJid(String(m))).filter((j) => !isGroupJid(j));
  }
  const quotedKey = (body.quoted as { key?: { id?: unknown } } | undefined)?.key;
  if (quotedKey?.id) {
    const quoted = instance.messages.find((m) => m.key.id === quotedKey.id);
    if (quoted) {
      info.stanzaId = quoted.key.id;
      info.participant = quoted.key.fromMe
        ? instance.ownerJid
        : quoted.key.participant ?? quoted.key.remoteJid;
      info.quotedMessage = quoted.message;
    }
  }
  return Object.keys(info).length > 0 ? info : null;
}

/** The recipient's JID, or the error the server answers for a number not on WhatsApp or an unknown group. */
function recipientJid({ core, instance }: RouteContext, number: string): string {
  core.requireSocket(instance, "onWhatsApp");
  const check = core.onWhatsApp(instance, number);
  if (!check.exists && !isGroupJid(check.jid) && !check.jid.includes("@broadcast")) {
    throw badRequest({ jid: check.jid, exists: false, number: check.number });
  }
  const remoteJid = check.jid.toLowerCase();
  if (isGroupJid(remoteJid) && !instance.groups.has(remoteJid)) {
    // NotFoundException("Group not found"), caught and rethrown with a plain object's toString().
    throw badRequest("[object Object]");
  }
  return remoteJid;
}

/**
 * Send `content` to `number` for the instance of `ctx`: fails like the server when the socket is not
 * open, the number is not on WhatsApp or the group is unknown; otherwise stores the message, emits
 * `send.message`, logs it in `sentMessages` and returns the messageRaw.
 */
export function performSend(
  ctx: RouteContext,
  operation: string,
  number: string,
  content: OutgoingContent,
): Record<string, unknown> {
  const { core, instance } = ctx;
  const remoteJid = recipientJid(ctx, number);
  const id = newMessageId();
  const raw: Record<string, unknown> = {
    key: { remoteJid, fromMe: true, id },
    pushName: "Você",
    status: "PENDING",
    message: content.message,
    contextInfo: contextInfoFor(ctx, instance, remoteJid),
    messageType: content.messageType,
    messageTimestamp: core.seconds(),
    instanceId: instance.id,
    source: "web",
  };
  const stored: StoredMessage = {
    id: crypto.randomUUID(),
    key: { remoteJid, fromMe: true, id },
    pushName: "Você",
    messageType: content.messageType,
    message: content.message,
    contextInfo: raw.contextInfo,
    messageTimestamp: raw.messageTimestamp as number,
    instanceId: instance.id,
    source: "web",
    status: "PENDING",
    mediaBase64: content.mediaBase64,
  };
  core.storeMessage(instance, stored);
  if (content.media) {
    instance.media.push({
      id: crypto.randomUUID(),
      fileName: `${instance.id}/${remoteJid}/${id}/${content.media.type}/${content.media.fileName}`,
      type: content.media.type,
      mimetype: content.media.mimetype,
      createdAt: core.isoNow(),
      messageId: stored.id,
    });
  }
  core.emit(instance, "send.message", raw);
  core.sentMessages.push({
    instance: instance.name,
    operation,
    number,
    remoteJid,
    text: content.text,
    body: ctx.body,
    message: raw,
  });
  return raw;
}
