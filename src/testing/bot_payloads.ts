/**
 * Webhook payloads as the gateway server (2.3.6) sends them, for the {@link BotHarness}: the envelope
 * `{event, instance, data, destination, date_time, sender, server_url, apikey}` and the `messages.upsert`
 * message objects of the kinds a bot reacts to (image, reaction, buttons reply, list reply). Text messages
 * come from the simulator itself (`simulateInboundMessage`), so it also stores them.
 *
 * @module
 */

import { newInboundMessageId } from "./simulator/jid.ts";

/** A webhook body as the server posts it. */
export interface WebhookEnvelope {
  /** Dotted event name (`messages.upsert`). */
  event: string;
  /** Instance name. */
  instance: string;
  /** The event's payload. */
  data: unknown;
  /** The webhook URL (informational). */
  destination: string;
  /** The server's `date_time` (local wall clock with a `Z`; UTC here). */
  date_time: string;
  /** The instance's own JID. */
  sender?: string;
  /** `SERVER_URL`. */
  server_url?: string;
  /** The instance token when the server exposes it, else null. */
  apikey: string | null;
}

/** Where an envelope comes from. */
export interface EnvelopeSource {
  instance: string;
  ownerJid: string | null;
  now: number;
}

/** Wrap one event's data in the server's envelope. */
export function envelope(source: EnvelopeSource, event: string, data: unknown): WebhookEnvelope {
  const body: WebhookEnvelope = {
    event,
    instance: source.instance,
    data,
    destination: "http://bot.test/webhook",
    date_time: new Date(source.now).toISOString(),
    server_url: "http://gateway.test",
    apikey: null,
  };
  if (source.ownerJid !== null) body.sender = source.ownerJid;
  return body;
}

/** Who sends an inbound message and where. */
export interface InboundAddress {
  /** The chat's JID (a contact, a `@lid`, or a group). */
  remoteJid: string;
  /** The phone JID when the chat is addressed by LID. */
  remoteJidAlt?: string;
  /** In a group, who wrote. */
  participant?: string;
  /** Display name. */
  pushName: string;
  /** The instance's id (uuid). */
  instanceId: string;
}

/** A `messages.upsert` messageRaw of any type: `message` is Baileys' object, `messageType` its field name. */
export function inboundMessage(
  address: InboundAddress,
  message: Record<string, unknown>,
  messageType: string,
  seconds: number,
  contextInfo: Record<string, unknown> | null = null,
): Record<string, unknown> {
  const key: Record<string, unknown> = {
    remoteJid: address.remoteJid,
    fromMe: false,
    id: newInboundMessageId(),
  };
  if (address.remoteJidAlt !== undefined) {
    key.remoteJidAlt = address.remoteJidAlt;
    key.addressingMode = "lid";
  }
  if (address.participant !== undefined) key.participant = address.participant;
  return {
    key,
    pushName: address.pushName,
    status: "DELIVERY_ACK",
    message,
    contextInfo,
    messageType,
    messageTimestamp: seconds,
    instanceId: address.instanceId,
    source: "android",
  };
}

/** Options of an image sent by a harness user. */
export interface ImageOptions {
  /** The caption. */
  caption?: string;
  /** MIME type (default `image/jpeg`). */
  mimetype?: string;
}

/** Baileys' `imageMessage` as the server forwards it (no `base64` unless the webhook asks for it). */
export function imageContent(options: ImageOptions): Record<string, unknown> {
  const image: Record<string, unknown> = {
    url: `https://mmg.whatsapp.net/o1/v/t62.7118-24/${newInboundMessageId()}.enc`,
    mimetype: options.mimetype ?? "image/jpeg",
    fileSha256: "kVqv0tH7m0yXcS2sEYcFhVx3n1o8mX6u9bq2b0e6m8k=",
    fileLength: "48213",
    height: 1280,
    width: 960,
    mediaKey: "p0W0c1tOq1ZzJb6rT3W6mQ3h0Yx8Q2c9s1m4n7v5b8c=",
    jpegThumbnail: "/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAP//////////////////////////////////////////2Q==",
  };
  if (options.caption !== undefined) image.caption = options.caption;
  return { imageMessage: image, messageContextInfo: {} };
}

/** A reaction to the message `targetId` in `remoteJid` (`""` removes it). */
export function reactionContent(
  remoteJid: string,
  targetId: string,
  targetFromMe: boolean,
  emoji: string,
  nowMs: number,
): Record<string, unknown> {
  return {
    reactionMessage: {
      key: { remoteJid, fromMe: targetFromMe, id: targetId },
      text: emoji,
      senderTimestampMs: String(nowMs),
    },
  };
}

/** The quote of the message a button or row belongs to. */
function quoting(targetId: string | undefined): Record<string, unknown> | null {
  return targetId === undefined ? null : { stanzaId: targetId };
}

/** A buttons reply (the user tapped a button of the message `targetId`). */
export function buttonReplyContent(
  buttonId: string,
  displayText: string,
  targetId: string | undefined,
): { message: Record<string, unknown>; contextInfo: Record<string, unknown> | null } {
  return {
    message: {
      buttonsResponseMessage: { selectedButtonId: buttonId, selectedDisplayText: displayText, type: 1 },
    },
    contextInfo: quoting(targetId),
  };
}

/** A list reply (the user chose the row `rowId` of the list message `targetId`). */
export function listReplyContent(
  rowId: string,
  title: string,
  targetId: string | undefined,
): { message: Record<string, unknown>; contextInfo: Record<string, unknown> | null } {
  return {
    message: {
      listResponseMessage: { title, listType: 1, singleSelectReply: { selectedRowId: rowId } },
    },
    contextInfo: quoting(targetId),
  };
}
