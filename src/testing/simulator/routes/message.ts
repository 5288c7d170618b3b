/**
 * `/message/*` routes (contract §2.3): schema, controller and socket checks in the server's order.
 *
 * @module
 */

import { badRequest, internalString } from "../errors.ts";
import { isBase64, isUrl } from "../jid.ts";
import { route, type RouteContext, type RouteDef } from "../route.ts";
import { ROUTE } from "../../../resources/routes.ts";
import { MESSAGE_SCHEMAS } from "../message_schemas.ts";
import { checkBody } from "../validate.ts";
import { type OutgoingContent, performSend } from "./send.ts";

const MIME_BY_EXT: Record<string, string> = {
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  gif: "image/gif",
  webp: "image/webp",
  mp4: "video/mp4",
  mp3: "audio/mpeg",
  ogg: "audio/ogg",
  pdf: "application/pdf",
  txt: "text/plain",
  csv: "text/csv",
  json: "application/json",
  zip: "application/zip",
  doc: "application/msword",
  docx: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
  xlsx: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
};

function mimeFor(fileName: string | undefined): string | undefined {
  const ext = fileName?.split(".").pop()?.toLowerCase();
  return ext ? MIME_BY_EXT[ext] : undefined;
}

function mediaUrl(id = crypto.randomUUID()): string {
  return `https://mmg.whatsapp.net/v/t62.7118-24/${id}.enc?ccb=11-4&mms3=true`;
}

/** Source of a media field: the multipart file, else the body value. */
function mediaSource(ctx: RouteContext, field: string): { url?: string; base64?: string } | undefined {
  if (ctx.file) return { base64: ctx.file.base64 };
  const value = ctx.body[field];
  if (isUrl(value)) return { url: value as string };
  if (isBase64(value)) return { base64: value as string };
  return undefined;
}

function sizeOf(base64: string | undefined): number {
  if (!base64) return 102400;
  const padding = base64.endsWith("==") ? 2 : base64.endsWith("=") ? 1 : 0;
  return base64.length * 3 / 4 - padding;
}

function sendText(ctx: RouteContext): unknown {
  checkBody(ctx.body, MESSAGE_SCHEMAS.sendText);
  const text = ctx.body.text as string;
  if (!text || text.trim().length === 0) throw badRequest("Text is required");
  return performSend(ctx, "sendText", ctx.body.number as string, {
    message: { conversation: text },
    messageType: "conversation",
    text,
  });
}

function sendMedia(ctx: RouteContext): unknown {
  const body = ctx.body;
  checkBody(body, MESSAGE_SCHEMAS.sendMedia);
  if (isBase64(body.media) && !body.fileName && body.mediatype === "document") {
    throw badRequest("For base64 the file name must be informed.");
  }
  const source = mediaSource(ctx, "media");
  if (!source) throw badRequest("Owned media must be a url or base64");
  const mediatype = body.mediatype as string;
  let fileName = (body.fileName as string | undefined) ?? ctx.file?.name;
  if (!fileName && mediatype === "document" && source.url) fileName = /.*\/(.+?)\./.exec(source.url)?.[1];
  if (!fileName && mediatype === "image") fileName = "image.png";
  if (!fileName && mediatype === "video") fileName = "video.mp4";
  const mimetype = (body.mimetype as string | undefined) ?? ctx.file?.type ?? mimeFor(fileName) ??
    "application/octet-stream";
  const type = `${mediatype}Message`;
  const inner: Record<string, unknown> = {
    url: mediaUrl(),
    mimetype,
    fileLength: String(sizeOf(source.base64)),
    mediaKey: btoa(crypto.randomUUID()),
  };
  if (body.caption !== undefined) inner.caption = body.caption;
  if (fileName !== undefined) inner.fileName = fileName;
  if (mediatype === "video") inner.gifPlayback = false;
  return performSend(ctx, "sendMedia", body.number as string, {
    message: { [type]: inner },
    messageType: type,
    text: body.caption as string | undefined,
    mediaBase64: source.base64,
    media: { type: mediatype, fileName: fileName ?? `${mediatype}.bin`, mimetype },
  });
}

function simpleMedia(
  operation: string,
  field: string,
  type: string,
  inner: Record<string, unknown>,
  missing: string,
): (ctx: RouteContext) => unknown {
  return (ctx) => {
    checkBody(ctx.body, MESSAGE_SCHEMAS[operation]);
    const source = mediaSource(ctx, field);
    if (!source) throw badRequest(missing);
    const mimetype = String(inner.mimetype);
    return performSend(ctx, operation, ctx.body.number as string, {
      message: { [type]: { url: mediaUrl(), ...inner, fileLength: String(sizeOf(source.base64)) } },
      messageType: type,
      mediaBase64: source.base64,
      media: { type: type.replace(/Message$/, ""), fileName: `${crypto.randomUUID()}.bin`, mimetype },
    });
  };
}

/** Send one message of `type` (its content `inner`) to the body's `number`, as the `operation` route. */
function sendOne(
  ctx: RouteContext,
  operation: string,
  type: string,
  inner: Record<string, unknown>,
  text: string | undefined,
): unknown {
  return performSend(ctx, operation, ctx.body.number as string, {
    message: { [type]: inner },
    messageType: type,
    text,
  });
}

function sendLocation(ctx: RouteContext): unknown {
  const b = ctx.body;
  checkBody(b, MESSAGE_SCHEMAS.sendLocation);
  const location = {
    degreesLatitude: b.latitude,
    degreesLongitude: b.longitude,
    name: b.name,
    address: b.address,
  };
  return sendOne(ctx, "sendLocation", "locationMessage", location, b.name as string);
}

function vcard(contact: Record<string, unknown>): string {
  let card = `BEGIN:VCARD\nVERSION:3.0\nN:${contact.fullName}\nFN:${contact.fullName}\n`;
  if (contact.organization) card += `ORG:${contact.organization};\n`;
  if (contact.email) card += `EMAIL:${contact.email}\n`;
  if (contact.url) card += `URL:${contact.url}\n`;
  const wuid = contact.wuid ?? String(contact.phoneNumber).replace(/\D/g, "");
  card += `item1.TEL;waid=${wuid}:${contact.phoneNumber}\nitem1.X-ABLabel:Celular\nEND:VCARD`;
  return card;
}

function sendContact(ctx: RouteContext): unknown {
  checkBody(ctx.body, MESSAGE_SCHEMAS.sendContact);
  const contacts = ctx.body.contact as Record<string, unknown>[];
  const content: OutgoingContent = contacts.length === 1
    ? {
      message: { contactMessage: { displayName: contacts[0].fullName, vcard: vcard(contacts[0]) } },
      messageType: "contactMessage",
    }
    : {
      message: {
        contactsArrayMessage: {
          displayName: `${contacts.length} contacts`,
          contacts: contacts.map((c) => ({ displayName: c.fullName, vcard: vcard(c) })),
        },
      },
      messageType: "contactsArrayMessage",
    };
  return performSend(ctx, "sendContact", ctx.body.number as string, content);
}

function sendReaction(ctx: RouteContext): unknown {
  checkBody(ctx.body, MESSAGE_SCHEMAS.sendReaction);
  const reaction = ctx.body.reaction as string;
  // The server's emoji test; "" (remove the reaction) is let through as the contract describes.
  if (reaction !== "" && !/[^()\w\sà-ú"-+]+/.test(reaction)) throw badRequest('"reaction" must be an emoji');
  const key = ctx.body.key as Record<string, unknown>;
  return performSend(ctx, "sendReaction", String(key.remoteJid), {
    message: { reactionMessage: { key, text: reaction, senderTimestampMs: String(ctx.core.now()) } },
    messageType: "reactionMessage",
    text: reaction,
  });
}

function sendPoll(ctx: RouteContext): unknown {
  const b = ctx.body;
  checkBody(b, MESSAGE_SCHEMAS.sendPoll);
  const type = b.selectableCount === 1 ? "pollCreationMessageV3" : "pollCreationMessage";
  const options = (b.values as string[]).map((optionName) => ({ optionName }));
  const poll = { name: b.name, options, selectableOptionsCount: b.selectableCount };
  return sendOne(ctx, "sendPoll", type, poll, b.name as string);
}

function sendList(ctx: RouteContext): unknown {
  const b = ctx.body;
  checkBody(b, MESSAGE_SCHEMAS.sendList);
  const { title, description, buttonText, footerText, sections } = b;
  const list = { title, description, buttonText, footerText, sections, listType: 2 };
  return sendOne(ctx, "sendList", "listMessage", list, b.title as string);
}

function sendButtons(ctx: RouteContext): unknown {
  const b = ctx.body;
  checkBody(b, MESSAGE_SCHEMAS.sendButtons);
  const buttons = b.buttons as Record<string, unknown>[] | undefined;
  if (!Array.isArray(buttons)) throw internalString("Cannot read properties of undefined (reading 'length')");
  if (buttons.length === 0) throw badRequest("At least one button is required");
  const hasReply = buttons.some((x) => x.type === "reply");
  const hasPix = buttons.some((x) => x.type === "pix");
  const hasOther = buttons.some((x) => x.type !== "reply" && x.type !== "pix");
  if (hasReply && buttons.length > 3) throw badRequest("Maximum of 3 reply buttons allowed");
  if (hasReply && hasOther) throw badRequest("Reply buttons cannot be mixed with other button types");
  if (hasPix && buttons.length > 1) throw badRequest("Only one PIX button is allowed");
  if (hasPix && hasOther) throw badRequest("PIX button cannot be mixed with other button types");
  const names: Record<string, string> = {
    reply: "quick_reply",
    copy: "cta_copy",
    url: "cta_url",
    call: "cta_call",
    pix: "payment_info",
  };
  const text = `*${b.title}*${b.description ? `\n\n${b.description}\n` : ""}`;
  const flow = buttons.map((x) => ({ name: names[String(x.type)], buttonParamsJson: JSON.stringify(x) }));
  const interactive = { body: { text }, footer: { text: b.footer }, nativeFlowMessage: { buttons: flow } };
  return sendOne(ctx, "sendButtons", "interactiveMessage", interactive, b.title as string | undefined);
}

function sendStatus(ctx: RouteContext): unknown {
  const b = ctx.body;
  if (ctx.file) b.content = ctx.file.base64;
  checkBody(b, MESSAGE_SCHEMAS.sendStatus);
  if (!b.content) throw badRequest("Content is required");
  let jids = b.statusJidList as string[] | undefined;
  if (b.allContacts) {
    const contacts = [...ctx.instance.contacts.values()];
    if (contacts.length === 0) throw badRequest("Contacts not found");
    jids = contacts.filter((c) => c.pushName).map((c) => c.remoteJid);
  }
  if (!jids?.length && !b.allContacts) throw badRequest("StatusJidList is required");
  let content: OutgoingContent;
  if (b.type === "text") {
    if (!b.backgroundColor) throw badRequest("Background color is required");
    if (!b.font) throw badRequest("Font is required");
    content = {
      message: { conversation: b.content },
      messageType: "conversation",
      text: b.content as string,
    };
  } else {
    const type = `${b.type}Message`;
    const inner: Record<string, unknown> = { url: mediaUrl() };
    if (b.caption !== undefined) inner.caption = b.caption;
    if (b.type === "audio") Object.assign(inner, { ptt: true, mimetype: "audio/ogg; codecs=opus" });
    content = { message: { [type]: inner }, messageType: type, text: b.caption as string | undefined };
  }
  return performSend(ctx, "sendStatus", "status@broadcast", content);
}

function sendTemplate(ctx: RouteContext): unknown {
  const b = ctx.body;
  checkBody(b, MESSAGE_SCHEMAS.sendTemplate);
  if (ctx.instance.integration === "WHATSAPP-BAILEYS") {
    throw internalString("Method not available in the Baileys service");
  }
  return performSend(ctx, "sendTemplate", String(b.number ?? ""), {
    message: { templateMessage: { name: b.name, language: b.language, components: b.components ?? [] } },
    messageType: "templateMessage",
    text: b.name as string,
  });
}

/** The 13 message routes. */
export const MESSAGE_ROUTES: readonly RouteDef[] = [
  route(ROUTE.message.sendText, sendText),
  route(ROUTE.message.sendMedia, sendMedia),
  route(
    ROUTE.message.sendPtv,
    simpleMedia(
      "sendPtv",
      "video",
      "ptvMessage",
      { mimetype: "video/mp4" },
      "Owned media must be a url or base64",
    ),
  ),
  route(
    ROUTE.message.sendWhatsAppAudio,
    simpleMedia(
      "sendWhatsAppAudio",
      "audio",
      "audioMessage",
      { mimetype: "audio/ogg; codecs=opus", ptt: true },
      "Owned media must be a url, base64, or valid file with buffer",
    ),
  ),
  route(
    ROUTE.message.sendSticker,
    simpleMedia(
      "sendSticker",
      "sticker",
      "stickerMessage",
      { mimetype: "image/webp" },
      "Owned media must be a url or base64",
    ),
  ),
  route(ROUTE.message.sendLocation, sendLocation),
  route(ROUTE.message.sendContact, sendContact),
  route(ROUTE.message.sendReaction, sendReaction),
  route(ROUTE.message.sendPoll, sendPoll),
  route(ROUTE.message.sendList, sendList),
  route(ROUTE.message.sendButtons, sendButtons),
  route(ROUTE.message.sendStatus, sendStatus),
  route(ROUTE.message.sendTemplate, sendTemplate),
];
