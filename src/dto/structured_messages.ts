/**
 * Request objects of location, contact, reaction, poll and template sends.
 *
 * @module
 */

import { type BodySpec, readBody, RECIPIENT_FIELD, type ServerSchema, unlisted } from "./body_spec.ts";
import { LINK_PREVIEW_FIELD, MESSAGE_OPTION_FIELDS, type MessageOptions } from "./message_options.ts";
import { RequestDto, type RequestInput } from "./request_dto.ts";
import type { MessageKeyInput, Problems } from "./validate.ts";
import { compact } from "../util/json_shape.ts";

/** The body of `/message/sendLocation` (coordinates in range, name and address default to ""). */
export const SEND_LOCATION_BODY: BodySpec = {
  what: "location message",
  fields: {
    number: RECIPIENT_FIELD,
    latitude: { type: "number", required: true, min: -90, max: 90, server: { type: "number" } },
    longitude: { type: "number", required: true, min: -180, max: 180, server: { type: "number" } },
    name: { type: "string", required: true, default: "" },
    address: { type: "string", required: true, default: "" },
    ...MESSAGE_OPTION_FIELDS,
    linkPreview: LINK_PREVIEW_FIELD,
  },
};

function readPollValues(problems: Problems, field: string, value: unknown): string[] | undefined {
  const list = problems.array(field, value, { required: true, minItems: 2, maxItems: 10 });
  if (!list) return undefined;
  const values: string[] = [];
  list.forEach((item, index) => {
    const text = problems.text(`${field}[${index}]`, item, { required: true });
    if (text === undefined) return;
    if (values.includes(text)) problems.add(`${field}[${index}] repeats ${JSON.stringify(text)}`);
    else values.push(text);
  });
  return values;
}

/** The body of `/message/sendPoll` (2–10 distinct values, `selectableCount` 0–10, default 1). */
export const SEND_POLL_BODY: BodySpec = {
  what: "poll message",
  fields: {
    number: RECIPIENT_FIELD,
    name: { type: "string", required: true },
    selectableCount: { type: "integer", required: true, min: 0, max: 10, default: 1 },
    values: {
      type: "array",
      required: true,
      read: readPollValues,
      server: { type: "array", minItems: 2, maxItems: 10, uniqueItems: true, items: { type: "string" } },
    },
    ...MESSAGE_OPTION_FIELDS,
    linkPreview: LINK_PREVIEW_FIELD,
  },
};

/** The body of `/message/sendTemplate` (the recipient is required, unlike in the server's schema). */
export const SEND_TEMPLATE_BODY: BodySpec = {
  what: "template message",
  fields: {
    number: { ...RECIPIENT_FIELD, serverRequired: false },
    name: { type: "string", required: true },
    language: { type: "string", required: true },
    components: { type: "array", objectItems: true },
    webhookUrl: { type: "string" },
  },
};

/** The fields of a `SendLocationMessageDto`: what `SendLocationMessageDto.from` accepts, and (normalized) what it holds. */
export interface SendLocationMessageDto extends MessageOptions {
  /** Recipient. */
  readonly number: string;
  /** −90..90. */
  readonly latitude: number;
  /** −180..180. */
  readonly longitude: number;
  /** Place name (sent as `""` when omitted; the server requires the field). */
  readonly name?: string;
  /** Address (sent as `""` when omitted). */
  readonly address?: string;
}

/**
 * A validated location.
 *
 * @example
 * ```ts
 * import { SendLocationMessageDto } from "@gw/gateway";
 * SendLocationMessageDto.from({ number: "5511999999999", latitude: -23.55, longitude: -46.63, name: "Office" });
 * ```
 */
export class SendLocationMessageDto extends RequestDto {
  /** Validate; throws `ValidationException` naming every bad field. */
  static from(input: RequestInput<SendLocationMessageDto> | SendLocationMessageDto): SendLocationMessageDto {
    if (input instanceof SendLocationMessageDto) return input;
    return new SendLocationMessageDto(readBody(SEND_LOCATION_BODY, input));
  }
}

/** One contact card. */
export interface ContactCard {
  /** Display name. */
  fullName: string;
  /** Phone number as shown on the card; at least 10 characters. */
  phoneNumber: string;
  /** WhatsApp id (digits); the server derives it from `phoneNumber` when omitted. */
  wuid?: string;
  /** Company. */
  organization?: string;
  /** E-mail. */
  email?: string;
  /** Web site. */
  url?: string;
}

function readContactCards(problems: Problems, name: string, value: unknown): ContactCard[] {
  const contact: ContactCard[] = [];
  problems.array(name, value, { required: true, minItems: 1 })?.forEach((item, index) => {
    const field = `${name}[${index}]`;
    const card = problems.object(field, item, { required: true });
    if (!card) return;
    const fullName = problems.text(`${field}.fullName`, card.fullName, { required: true });
    let phoneNumber = problems.text(`${field}.phoneNumber`, card.phoneNumber, { required: true });
    if (phoneNumber !== undefined) {
      phoneNumber = phoneNumber.trim();
      if (phoneNumber.length < 10 || !/^\+?[\d\s\-().]+$/.test(phoneNumber)) {
        problems.add(`${field}.phoneNumber must be a phone number of at least 10 characters`);
      }
    }
    const wuid = problems.text(`${field}.wuid`, card.wuid);
    const organization = problems.text(`${field}.organization`, card.organization);
    const email = problems.text(`${field}.email`, card.email);
    const url = problems.text(`${field}.url`, card.url);
    contact.push(compact({ fullName: fullName!, phoneNumber: phoneNumber!, wuid, organization, email, url }));
  });
  return contact;
}

/** A plain string in the server's schema. */
export const TEXT: ServerSchema = { type: "string" };

/** The body of `/message/sendContact` (the server's schema lists none of the shared send options). */
export const SEND_CONTACT_BODY: BodySpec = {
  what: "contact message",
  fields: {
    number: RECIPIENT_FIELD,
    contact: {
      type: "array",
      required: true,
      read: readContactCards,
      server: {
        type: "array",
        items: {
          type: "object",
          properties: {
            fullName: TEXT,
            wuid: {
              type: "string",
              minLength: 10,
              pattern: "\\d+",
              description: '"wuid" must be a numeric string',
            },
            phoneNumber: { type: "string", minLength: 10 },
            organization: TEXT,
            email: TEXT,
            url: TEXT,
          },
          required: ["fullName", "phoneNumber"],
          notEmpty: ["fullName"],
        },
        minItems: 1,
        uniqueItems: true,
      },
    },
    ...unlisted({ ...MESSAGE_OPTION_FIELDS, linkPreview: LINK_PREVIEW_FIELD }),
  },
};

/** The fields of a `SendContactMessageDto`: what `SendContactMessageDto.from` accepts, and (normalized) what it holds. */
export interface SendContactMessageDto extends MessageOptions {
  /** Recipient. */
  readonly number: string;
  /** One or more cards. */
  readonly contact: ContactCard[];
}

/**
 * Validated contact cards.
 *
 * @example
 * ```ts
 * import { SendContactMessageDto } from "@gw/gateway";
 * SendContactMessageDto.from({ number: "5511999999999", contact: [{ fullName: "Ana", phoneNumber: "+55 11 98888-7777" }] });
 * ```
 */
export class SendContactMessageDto extends RequestDto {
  /** Validate; throws `ValidationException` naming every bad field. */
  static from(input: RequestInput<SendContactMessageDto> | SendContactMessageDto): SendContactMessageDto {
    if (input instanceof SendContactMessageDto) return input;
    return new SendContactMessageDto(readBody(SEND_CONTACT_BODY, input));
  }
}

function readReaction(problems: Problems, field: string, value: unknown): string | undefined {
  if (value === undefined || value === null) {
    problems.add(`${field} is required (use "" to remove a reaction)`);
    return undefined;
  }
  const reaction = problems.text(field, value);
  if (reaction !== undefined && graphemeCount(reaction) > 1) {
    problems.add(`${field} must be a single emoji or ""`);
  }
  return reaction;
}

/** The server's shape of a message key (`{ id, remoteJid, fromMe }`), in reactions and the chat routes. */
export const MESSAGE_KEY_SCHEMA: ServerSchema = {
  type: "object",
  properties: { id: TEXT, remoteJid: TEXT, fromMe: { type: "boolean", enum: [true, false] } },
  required: ["id", "remoteJid", "fromMe"],
  notEmpty: ["id", "remoteJid"],
};

/** The body of `/message/sendReaction` (a full message key; one emoji, or "" to remove the reaction). */
export const SEND_REACTION_BODY: BodySpec = {
  what: "reaction message",
  fields: {
    key: {
      type: "object",
      required: true,
      read: (problems, field, value) => problems.messageKey(field, value),
      server: MESSAGE_KEY_SCHEMA,
    },
    reaction: { type: "string", required: true, read: readReaction },
  },
};

/** The fields of a `SendReactionMessageDto`: what `SendReactionMessageDto.from` accepts, and (normalized) what it holds. */
export interface SendReactionMessageDto {
  /** Key of the message reacted to; the reaction goes to `key.remoteJid`. */
  readonly key: MessageKeyInput;
  /** One emoji, or `""` to remove the reaction. */
  readonly reaction: string;
}

/** User-perceived characters; a skin-toned or ZWJ emoji is one. Built lazily: nothing runs at import time. */
function graphemeCount(text: string): number {
  const Segmenter = (Intl as { Segmenter?: typeof Intl.Segmenter }).Segmenter;
  if (Segmenter === undefined) return Array.from(text).length;
  return [...new Segmenter(undefined, { granularity: "grapheme" }).segment(text)].length;
}

/**
 * A validated reaction.
 *
 * @example
 * ```ts
 * import { SendReactionMessageDto } from "@gw/gateway";
 * SendReactionMessageDto.from({ key: { id: "3EB0", remoteJid: "5511999999999@s.whatsapp.net", fromMe: false }, reaction: "👍" });
 * ```
 */
export class SendReactionMessageDto extends RequestDto {
  /** Validate; throws `ValidationException` naming every bad field. */
  static from(input: RequestInput<SendReactionMessageDto> | SendReactionMessageDto): SendReactionMessageDto {
    if (input instanceof SendReactionMessageDto) return input;
    return new SendReactionMessageDto(readBody(SEND_REACTION_BODY, input));
  }
}

/** The fields of a `SendPollMessageDto`: what `SendPollMessageDto.from` accepts, and (normalized) what it holds. */
export interface SendPollMessageDto extends MessageOptions {
  /** Recipient. */
  readonly number: string;
  /** The question. */
  readonly name: string;
  /** How many options a voter may pick, 0–10 (0: any number). Default 1. */
  readonly selectableCount?: number;
  /** 2–10 unique options. */
  readonly values: string[];
}

/**
 * A validated poll.
 *
 * @example
 * ```ts
 * import { SendPollMessageDto } from "@gw/gateway";
 * SendPollMessageDto.from({ number: "5511999999999", name: "Lunch?", values: ["Pizza", "Sushi"] });
 * ```
 */
export class SendPollMessageDto extends RequestDto {
  /** Validate; throws `ValidationException` naming every bad field. */
  static from(input: RequestInput<SendPollMessageDto> | SendPollMessageDto): SendPollMessageDto {
    if (input instanceof SendPollMessageDto) return input;
    return new SendPollMessageDto(readBody(SEND_POLL_BODY, input));
  }
}

/** The fields of a `SendTemplateMessageDto`: what `SendTemplateMessageDto.from` accepts, and (normalized) what it holds. */
export interface SendTemplateMessageDto {
  /** Recipient. */
  readonly number: string;
  /** Template name. */
  readonly name: string;
  /** Language code, e.g. `en_US`. */
  readonly language: string;
  /** Template components (header, body, buttons parameters). */
  readonly components?: Record<string, unknown>[];
  /** Status callback URL. */
  readonly webhookUrl?: string;
}

/**
 * A validated template message.
 *
 * @example
 * ```ts
 * import { SendTemplateMessageDto } from "@gw/gateway";
 * SendTemplateMessageDto.from({ number: "5511999999999", name: "hello_world", language: "en_US" });
 * ```
 */
export class SendTemplateMessageDto extends RequestDto {
  /** Validate; throws `ValidationException` naming every bad field. */
  static from(input: RequestInput<SendTemplateMessageDto> | SendTemplateMessageDto): SendTemplateMessageDto {
    if (input instanceof SendTemplateMessageDto) return input;
    return new SendTemplateMessageDto(readBody(SEND_TEMPLATE_BODY, input));
  }
}
