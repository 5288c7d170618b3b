/**
 * What a Baileys message object holds, by its content field (`conversation`, `imageMessage`,
 * `buttonsResponseMessage`, ...): the filter query it matches and the message fields it sets, in one table.
 *
 * @module
 */

import { isRecord, nonEmptyString } from "../util/json_shape.ts";
import type { FilterQuery } from "./filter_table.ts";
import type { BotMedia, BotMessage } from "./update_types.ts";

/** A JSON object. */
export type Json = Record<string, unknown>;

/** A non-empty string, or undefined. */
export const str: (value: unknown) => string | undefined = nonEmptyString;

/** A finite number (or numeric string), or undefined. */
export function num(value: unknown): number | undefined {
  const n = typeof value === "string" ? Number(value) : value;
  return typeof n === "number" && Number.isFinite(n) ? n : undefined;
}

// The empty part: shared (read only, never handed out as a field), so a missing part allocates nothing.
const NONE: Json = Object.freeze({});

/** `message[field]` when it is an object, else an empty one (frozen). */
export function part(message: Json, field: string): Json {
  const value = message[field];
  return isRecord(value) ? value : NONE;
}

function media(p: Json): BotMedia {
  return {
    mimetype: str(p.mimetype),
    fileName: str(p.fileName),
    seconds: num(p.seconds),
    voice: typeof p.ptt === "boolean" ? p.ptt : undefined,
  };
}

/** What one field of Baileys' message object means: its query and the fields it sets. */
interface ContentRule {
  query: FilterQuery;
  read(p: Json, message: Json): Partial<BotMessage>;
  /** A field the query needs: without it the message matches `message` only. */
  needs?: keyof BotMessage;
}

/** The `id` of a native flow reply's parameters (a quick-reply button's), when they are JSON with one. */
function flowButtonId(p: Json): string | undefined {
  const flow = part(p, "nativeFlowResponseMessage");
  if (typeof flow.paramsJson !== "string") return undefined;
  try {
    const params: unknown = JSON.parse(flow.paramsJson);
    return isRecord(params) ? str(params.id) : undefined;
  } catch {
    return undefined;
  }
}

const captioned = (p: Json): Partial<BotMessage> => ({ caption: str(p.caption), text: str(p.caption) });

/** Baileys' message fields, in the order they are looked for. */
const CONTENT: Readonly<Record<string, ContentRule>> = {
  conversation: { query: "message:text", read: (_p, m) => ({ text: str(m.conversation) }) },
  extendedTextMessage: { query: "message:text", read: (p) => ({ text: str(p.text) }) },
  imageMessage: { query: "message:image", read: (p) => ({ ...captioned(p), media: media(p) }) },
  videoMessage: { query: "message:video", read: (p) => ({ ...captioned(p), media: media(p) }) },
  ptvMessage: { query: "message:video", read: (p) => ({ media: media(p) }) },
  audioMessage: { query: "message:audio", read: (p) => ({ media: media(p) }) },
  documentMessage: { query: "message:document", read: (p) => ({ ...captioned(p), media: media(p) }) },
  documentWithCaptionMessage: {
    query: "message:document",
    read: (p) => {
      const doc = part(part(p, "message"), "documentMessage");
      return { ...captioned(doc), media: media(doc) };
    },
  },
  stickerMessage: { query: "message:sticker", read: (p) => ({ media: media(p) }) },
  locationMessage: { query: "message:location", read: (p) => ({ location: location(p) }) },
  liveLocationMessage: { query: "message:location", read: (p) => ({ location: location(p) }) },
  contactMessage: {
    query: "message:contact",
    read: (p) => ({ contacts: [{ name: str(p.displayName), vcard: str(p.vcard) }] }),
  },
  contactsArrayMessage: {
    query: "message:contact",
    read: (p) => ({
      contacts: (Array.isArray(p.contacts) ? p.contacts : []).filter(isRecord).map((c) => ({
        name: str(c.displayName),
        vcard: str(c.vcard),
      })),
    }),
  },
  reactionMessage: {
    query: "message:reaction",
    read: (p) => ({ reaction: typeof p.text === "string" ? p.text : "", reactionTo: str(part(p, "key").id) }),
  },
  buttonsResponseMessage: {
    query: "message:button",
    read: (p) => ({ buttonId: str(p.selectedButtonId) ?? "", text: str(p.selectedDisplayText) }),
  },
  templateButtonReplyMessage: {
    query: "message:button",
    read: (p) => ({ buttonId: str(p.selectedId) ?? "", text: str(p.selectedDisplayText) }),
  },
  // The reply to the buttons 2.3.6 sends (`sendButtons`: an interactive message with quick-reply buttons).
  interactiveResponseMessage: {
    query: "message:button",
    read: (p) => ({ buttonId: flowButtonId(p), text: str(part(p, "body").text) }),
    needs: "buttonId",
  },
  listResponseMessage: {
    query: "message:list",
    read: (p) => ({ rowId: str(part(p, "singleSelectReply").selectedRowId) ?? "", text: str(p.title) }),
  },
  pollCreationMessage: { query: "message:poll", read: (p) => ({ poll: poll(p), text: str(p.name) }) },
  pollCreationMessageV2: { query: "message:poll", read: (p) => ({ poll: poll(p), text: str(p.name) }) },
  pollCreationMessageV3: { query: "message:poll", read: (p) => ({ poll: poll(p), text: str(p.name) }) },
};

function location(p: Json): BotMessage["location"] {
  return {
    latitude: num(p.degreesLatitude) ?? 0,
    longitude: num(p.degreesLongitude) ?? 0,
    name: str(p.name),
    address: str(p.address),
  };
}

function poll(p: Json): { name: string; options: string[] } {
  const options = Array.isArray(p.options) ? p.options : [];
  return {
    name: str(p.name) ?? "",
    options: options.map((o) => isRecord(o) ? str(o.optionName) : undefined).filter((o) => o !== undefined),
  };
}

/** Envelopes Baileys keeps around the content, which the server forwards as they are. */
const WRAPPERS = ["ephemeralMessage", "viewOnceMessage", "viewOnceMessageV2", "viewOnceMessageV2Extension"];

/** The message type to show: the server's `messageType`, unless it names an envelope (then the content's). */
export function messageType(declared: unknown, content: string): string {
  const type = str(declared);
  return type === undefined || WRAPPERS.includes(type) ? content : type;
}

/**
 * The message inside its envelopes: a text in a chat with disappearing messages comes as
 * `{ ephemeralMessage: { message: { extendedTextMessage } } }`, a view-once photo in `viewOnceMessageV2`.
 */
export function unwrap(message: Json): Json {
  for (let depth = 0; depth < 4; depth++) {
    const inner = wrapped(message);
    if (inner === undefined) return message;
    message = inner;
  }
  return message;
}

/** The message inside the first envelope `message` is, if any. */
function wrapped(message: Json): Json | undefined {
  for (let at = 0; at < WRAPPERS.length; at++) { // indexed: no iterator per message read
    const inner = part(message, WRAPPERS[at]).message;
    if (isRecord(inner)) return inner;
  }
  return undefined;
}

/**
 * The first known content field of a message object (inside its envelopes), with what it sets and the
 * content itself (`part`, where Baileys keeps its `contextInfo`).
 */
export function readContent(
  wrapped: Json,
): { type: string; query?: FilterQuery; fields: Partial<BotMessage>; part: Json } {
  const message = unwrap(wrapped);
  // `for...in` over the own keys: the same order as `Object.keys`, without its array per message read.
  for (const field in message) {
    if (!Object.hasOwn(message, field)) continue;
    const rule = CONTENT[field];
    if (rule !== undefined) {
      const content = part(message, field);
      const fields = rule.read(content, message);
      const query = rule.needs === undefined || fields[rule.needs] !== undefined ? rule.query : undefined;
      return { type: field, query, fields, part: content };
    }
  }
  const type = Object.keys(message).find((key) => key !== "messageContextInfo") ?? "unknown";
  return { type, fields: {}, part: part(message, type) };
}

/**
 * Quoted message and mentions: the server lifts `contextInfo` to `data`; Baileys keeps it in the content
 * (`readContent(...).part`).
 */
export function readContext(data: Json, content: Json): Pick<BotMessage, "quoted" | "mentions"> {
  const info = isRecord(data.contextInfo) ? data.contextInfo : part(content, "contextInfo");
  const mentioned = info.mentionedJid;
  const mentions = Array.isArray(mentioned)
    ? mentioned.filter((jid): jid is string => typeof jid === "string")
    : [];
  const id = str(info.stanzaId);
  if (id === undefined) return { mentions };
  const quotedMessage = isRecord(info.quotedMessage) ? info.quotedMessage : {};
  const text = readContent(quotedMessage).fields.text;
  return { mentions, quoted: { id, participant: str(info.participant), text } };
}
