/**
 * Request objects of the structured send routes: location, contact, reaction, poll, list, buttons and
 * template.
 *
 * @module
 */

import { type MessageOptions, readMessageOptions, requireObject } from "./message_options.ts";
import { RequestDto, type RequestInput } from "./request_dto.ts";
import { type MessageKeyInput, Problems } from "./validate.ts";
import { compact } from "../util/json_shape.ts";

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
  /**
   * Validate; throws `ValidationException` naming every bad field.
   *
   * @example
   * ```ts
   * import { SendLocationMessageDto } from "@gw/gateway";
   * SendLocationMessageDto.from({ number: "5511999999999", latitude: 0, longitude: 0 });
   * ```
   */
  static from(input: RequestInput<SendLocationMessageDto> | SendLocationMessageDto): SendLocationMessageDto {
    if (input instanceof SendLocationMessageDto) return input;
    const record = requireObject(input, "location message");
    const problems = new Problems();
    const number = problems.recipient("number", record.number);
    const latitude = problems.number("latitude", record.latitude, { required: true, min: -90, max: 90 });
    const longitude = problems.number("longitude", record.longitude, { required: true, min: -180, max: 180 });
    const name = problems.text("name", record.name) ?? "";
    const address = problems.text("address", record.address) ?? "";
    const options = readMessageOptions(problems, record);
    problems.throwIfAny("location message");
    return new SendLocationMessageDto(
      compact({ number: number!, latitude: latitude!, longitude: longitude!, name, address, ...options }),
    );
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
  /**
   * Validate; throws `ValidationException` naming every bad field.
   *
   * @example
   * ```ts
   * import { SendContactMessageDto } from "@gw/gateway";
   * SendContactMessageDto.from({ number: "5511999999999", contact: [{ fullName: "Ana", phoneNumber: "5511988887777" }] });
   * ```
   */
  static from(input: RequestInput<SendContactMessageDto> | SendContactMessageDto): SendContactMessageDto {
    if (input instanceof SendContactMessageDto) return input;
    const record = requireObject(input, "contact message");
    const problems = new Problems();
    const number = problems.recipient("number", record.number);
    const list = problems.array("contact", record.contact, { required: true, minItems: 1 });
    const contact: ContactCard[] = [];
    list?.forEach((item, index) => {
      const field = `contact[${index}]`;
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
      contact.push(
        compact({ fullName: fullName!, phoneNumber: phoneNumber!, wuid, organization, email, url }),
      );
    });
    const options = readMessageOptions(problems, record);
    problems.throwIfAny("contact message");
    return new SendContactMessageDto(compact({ number: number!, contact, ...options }));
  }
}

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
  /**
   * Validate; throws `ValidationException` naming every bad field.
   *
   * @example
   * ```ts
   * import { SendReactionMessageDto } from "@gw/gateway";
   * SendReactionMessageDto.from({ key: { id: "3EB0", remoteJid: "5511999999999@s.whatsapp.net", fromMe: true }, reaction: "" });
   * ```
   */
  static from(input: RequestInput<SendReactionMessageDto> | SendReactionMessageDto): SendReactionMessageDto {
    if (input instanceof SendReactionMessageDto) return input;
    const record = requireObject(input, "reaction message");
    const problems = new Problems();
    const key = problems.messageKey("key", record.key);
    const reaction = problems.text("reaction", record.reaction, { required: false });
    if (record.reaction === undefined || record.reaction === null) {
      problems.add(`reaction is required (use "" to remove a reaction)`);
    } else if (reaction !== undefined && graphemeCount(reaction) > 1) {
      problems.add(`reaction must be a single emoji or ""`);
    }
    problems.throwIfAny("reaction message");
    return new SendReactionMessageDto({ key: key!, reaction: reaction! });
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
  /**
   * Validate; throws `ValidationException` naming every bad field.
   *
   * @example
   * ```ts
   * import { SendPollMessageDto } from "@gw/gateway";
   * SendPollMessageDto.from({ number: "5511999999999", name: "Days?", values: ["Mon", "Tue", "Wed"], selectableCount: 2 });
   * ```
   */
  static from(input: RequestInput<SendPollMessageDto> | SendPollMessageDto): SendPollMessageDto {
    if (input instanceof SendPollMessageDto) return input;
    const record = requireObject(input, "poll message");
    const problems = new Problems();
    const number = problems.recipient("number", record.number);
    const name = problems.text("name", record.name, { required: true });
    const selectableCount = problems.number("selectableCount", record.selectableCount ?? 1, {
      integer: true,
      min: 0,
      max: 10,
    });
    const list = problems.array("values", record.values, { required: true, minItems: 2, maxItems: 10 });
    const values: string[] = [];
    list?.forEach((item, index) => {
      const value = problems.text(`values[${index}]`, item, { required: true });
      if (value === undefined) return;
      if (values.includes(value)) problems.add(`values[${index}] repeats ${JSON.stringify(value)}`);
      else values.push(value);
    });
    const options = readMessageOptions(problems, record);
    problems.throwIfAny("poll message");
    return new SendPollMessageDto(
      compact({ number: number!, name: name!, selectableCount: selectableCount!, values, ...options }),
    );
  }
}

/** One row of a list section. */
export interface ListRow {
  /** Row title. */
  title: string;
  /** Id returned when the row is picked. */
  rowId: string;
  /** Row description. */
  description?: string;
}

/** One section of a list message. */
export interface ListSection {
  /** Section title. */
  title: string;
  /** At least one row. */
  rows: ListRow[];
}

/** The fields of a `SendListMessageDto`: what `SendListMessageDto.from` accepts, and (normalized) what it holds. */
export interface SendListMessageDto extends MessageOptions {
  /** Recipient. */
  readonly number: string;
  /** Title. */
  readonly title: string;
  /** Body text. */
  readonly description?: string;
  /** Footer. */
  readonly footerText: string;
  /** Label of the button that opens the list. */
  readonly buttonText: string;
  /** At least one section. */
  readonly sections: ListSection[];
}

/**
 * A validated list message.
 *
 * @example
 * ```ts
 * import { SendListMessageDto } from "@gw/gateway";
 * SendListMessageDto.from({
 *   number: "5511999999999", title: "Menu", footerText: "Thanks", buttonText: "Open",
 *   sections: [{ title: "Food", rows: [{ title: "Pizza", rowId: "pizza" }] }],
 * });
 * ```
 */
export class SendListMessageDto extends RequestDto {
  /**
   * Validate; throws `ValidationException` naming every bad field.
   *
   * @example
   * ```ts
   * import { SendListMessageDto } from "@gw/gateway";
   * SendListMessageDto.from({ number: "5511999999999", title: "T", footerText: "F", buttonText: "B",
   *   sections: [{ title: "S", rows: [{ title: "R", rowId: "r1", description: "D" }] }] });
   * ```
   */
  static from(input: RequestInput<SendListMessageDto> | SendListMessageDto): SendListMessageDto {
    if (input instanceof SendListMessageDto) return input;
    const record = requireObject(input, "list message");
    const problems = new Problems();
    const number = problems.recipient("number", record.number);
    const title = problems.text("title", record.title, { required: true });
    const description = problems.text("description", record.description);
    const footerText = problems.text("footerText", record.footerText, { required: true });
    const buttonText = problems.text("buttonText", record.buttonText, { required: true });
    const sections: ListSection[] = [];
    problems.array("sections", record.sections, { required: true, minItems: 1 })?.forEach((item, index) => {
      const field = `sections[${index}]`;
      const section = problems.object(field, item, { required: true });
      if (!section) return;
      const sectionTitle = problems.text(`${field}.title`, section.title, { required: true });
      const rows: ListRow[] = [];
      problems.array(`${field}.rows`, section.rows, { required: true, minItems: 1 })?.forEach(
        (rowItem, r) => {
          const rowField = `${field}.rows[${r}]`;
          const row = problems.object(rowField, rowItem, { required: true });
          if (!row) return;
          const rowTitle = problems.text(`${rowField}.title`, row.title, { required: true });
          const rowId = problems.text(`${rowField}.rowId`, row.rowId, { required: true });
          const rowDescription = problems.text(`${rowField}.description`, row.description);
          rows.push(compact({ title: rowTitle!, rowId: rowId!, description: rowDescription }));
        },
      );
      sections.push({ title: sectionTitle!, rows });
    });
    const options = readMessageOptions(problems, record);
    problems.throwIfAny("list message");
    return new SendListMessageDto(
      compact({
        number: number!,
        title: title!,
        description,
        footerText: footerText!,
        buttonText: buttonText!,
        sections,
        ...options,
      }),
    );
  }
}

/**
 * Button types of `sendButtons`.
 *
 * @example
 * ```ts
 * import { BUTTON_TYPES } from "./structured_messages.ts";
 * BUTTON_TYPES.includes("pix"); // true
 * ```
 */
export const BUTTON_TYPES: readonly ["reply", "copy", "url", "call", "pix"] = [
  "reply",
  "copy",
  "url",
  "call",
  "pix",
];
/**
 * PIX key types.
 *
 * @example
 * ```ts
 * import { PIX_KEY_TYPES } from "./structured_messages.ts";
 * PIX_KEY_TYPES.includes("cpf"); // true
 * ```
 */
export const PIX_KEY_TYPES: readonly ["phone", "email", "cpf", "cnpj", "random"] = [
  "phone",
  "email",
  "cpf",
  "cnpj",
  "random",
];

/** One button; which fields are needed depends on `type`. */
export interface ButtonInput {
  /** `reply`, `copy`, `url`, `call` or `pix`. */
  type: "reply" | "copy" | "url" | "call" | "pix";
  /** Label (all but pix). */
  displayText?: string;
  /** Reply id (reply). */
  id?: string;
  /** Link (url). */
  url?: string;
  /** Number to call (call). */
  phoneNumber?: string;
  /** Text copied (copy). */
  copyCode?: string;
  /** Currency, e.g. `BRL` (pix). */
  currency?: string;
  /** Receiver name (pix). */
  name?: string;
  /** PIX key type (pix). */
  keyType?: "phone" | "email" | "cpf" | "cnpj" | "random";
  /** PIX key (pix). */
  key?: string;
}

/** The fields of a `SendButtonsMessageDto`: what `SendButtonsMessageDto.from` accepts, and (normalized) what it holds. */
export interface SendButtonsMessageDto extends MessageOptions {
  /** Recipient. */
  readonly number: string;
  /** Title. */
  readonly title?: string;
  /** Body text. */
  readonly description?: string;
  /** Footer. */
  readonly footer?: string;
  /** Image shown above the text. */
  readonly thumbnailUrl?: string;
  /** Up to 3 reply buttons, or other kinds (not mixed with reply), or one pix button alone. */
  readonly buttons: ButtonInput[];
}

const BUTTON_FIELDS: Record<ButtonInput["type"], ReadonlyArray<keyof ButtonInput>> = {
  reply: ["displayText", "id"],
  copy: ["displayText", "copyCode"],
  url: ["displayText", "url"],
  call: ["displayText", "phoneNumber"],
  pix: ["currency", "name", "keyType", "key"],
};

/**
 * A validated buttons message.
 *
 * @example
 * ```ts
 * import { SendButtonsMessageDto } from "@gw/gateway";
 * SendButtonsMessageDto.from({ number: "5511999999999", title: "Pick", buttons: [
 *   { type: "reply", displayText: "Yes", id: "yes" }, { type: "reply", displayText: "No", id: "no" },
 * ] });
 * ```
 */
export class SendButtonsMessageDto extends RequestDto {
  /**
   * Validate; throws `ValidationException` naming every bad field and every broken button rule.
   *
   * @example
   * ```ts
   * import { SendButtonsMessageDto } from "@gw/gateway";
   * SendButtonsMessageDto.from({ number: "5511999999999", buttons: [
   *   { type: "pix", currency: "BRL", name: "Shop", keyType: "email", key: "pay@example.com" },
   * ] });
   * ```
   */
  static from(input: RequestInput<SendButtonsMessageDto> | SendButtonsMessageDto): SendButtonsMessageDto {
    if (input instanceof SendButtonsMessageDto) return input;
    const record = requireObject(input, "buttons message");
    const problems = new Problems();
    const number = problems.recipient("number", record.number);
    const title = problems.text("title", record.title);
    const description = problems.text("description", record.description);
    const footer = problems.text("footer", record.footer);
    const thumbnailUrl = problems.text("thumbnailUrl", record.thumbnailUrl);
    const buttons: ButtonInput[] = [];
    const list = problems.array("buttons", record.buttons, { required: true, minItems: 1 });
    list?.forEach((item, index) => {
      const field = `buttons[${index}]`;
      const button = problems.object(field, item, { required: true });
      if (!button) return;
      const type = problems.oneOf(`${field}.type`, button.type, BUTTON_TYPES, { required: true });
      if (type === undefined) return;
      const out: Record<string, unknown> = { type };
      for (const name of BUTTON_FIELDS[type]) {
        out[name] = name === "keyType"
          ? problems.oneOf(`${field}.keyType`, button.keyType, PIX_KEY_TYPES, { required: true })
          : problems.text(`${field}.${name}`, button[name], { required: true });
      }
      buttons.push(compact(out) as unknown as ButtonInput);
    });
    const types = buttons.map((button) => button.type);
    const replies = types.filter((type) => type === "reply").length;
    if (replies > 3) problems.add("buttons must have at most 3 reply buttons");
    if (replies > 0 && replies < types.length) {
      problems.add("buttons cannot mix reply buttons with other types");
    }
    if (types.includes("pix") && types.length > 1) problems.add("buttons must hold a pix button alone");
    const options = readMessageOptions(problems, record);
    problems.throwIfAny("buttons message");
    return new SendButtonsMessageDto(
      compact({ number: number!, title, description, footer, thumbnailUrl, buttons, ...options }),
    );
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
  /**
   * Validate; throws `ValidationException` naming every bad field.
   *
   * @example
   * ```ts
   * import { SendTemplateMessageDto } from "@gw/gateway";
   * SendTemplateMessageDto.from({ number: "5511999999999", name: "order", language: "pt_BR", components: [] });
   * ```
   */
  static from(input: RequestInput<SendTemplateMessageDto> | SendTemplateMessageDto): SendTemplateMessageDto {
    if (input instanceof SendTemplateMessageDto) return input;
    const record = requireObject(input, "template message");
    const problems = new Problems();
    const number = problems.recipient("number", record.number);
    const name = problems.text("name", record.name, { required: true });
    const language = problems.text("language", record.language, { required: true });
    const list = problems.array("components", record.components);
    list?.forEach((item, index) => problems.object(`components[${index}]`, item, { required: true }));
    const webhookUrl = problems.text("webhookUrl", record.webhookUrl);
    problems.throwIfAny("template message");
    return new SendTemplateMessageDto(
      compact({
        number: number!,
        name: name!,
        language: language!,
        components: list as Record<string, unknown>[] | undefined,
        webhookUrl,
      }),
    );
  }
}
