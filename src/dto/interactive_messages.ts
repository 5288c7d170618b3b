/**
 * Request objects of the interactive send routes: list and buttons.
 *
 * @module
 */

import { type BodySpec, type FieldSpec, readBody, RECIPIENT_FIELD } from "./body_spec.ts";
import { LINK_PREVIEW_FIELD, MESSAGE_OPTION_FIELDS, type MessageOptions } from "./message_options.ts";
import { RequestDto, type RequestInput } from "./request_dto.ts";
import { TEXT } from "./structured_messages.ts";
import type { Problems } from "./validate.ts";
import { compact } from "../util/json_shape.ts";

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

function readListRows(problems: Problems, name: string, value: unknown): ListRow[] {
  const rows: ListRow[] = [];
  problems.array(name, value, { required: true, minItems: 1 })?.forEach((item, index) => {
    const field = `${name}[${index}]`;
    const row = problems.object(field, item, { required: true });
    if (!row) return;
    const title = problems.text(`${field}.title`, row.title, { required: true });
    const rowId = problems.text(`${field}.rowId`, row.rowId, { required: true });
    const description = problems.text(`${field}.description`, row.description);
    rows.push(compact({ title: title!, rowId: rowId!, description }));
  });
  return rows;
}

function readListSections(problems: Problems, name: string, value: unknown): ListSection[] {
  const sections: ListSection[] = [];
  problems.array(name, value, { required: true, minItems: 1 })?.forEach((item, index) => {
    const field = `${name}[${index}]`;
    const section = problems.object(field, item, { required: true });
    if (!section) return;
    const title = problems.text(`${field}.title`, section.title, { required: true });
    sections.push({ title: title!, rows: readListRows(problems, `${field}.rows`, section.rows) });
  });
  return sections;
}

/** The body of `/message/sendList` (sections and their rows checked one by one). */
export const SEND_LIST_BODY: BodySpec = {
  what: "list message",
  fields: {
    number: RECIPIENT_FIELD,
    title: { type: "string", required: true },
    description: { type: "string" },
    footerText: { type: "string", required: true },
    buttonText: { type: "string", required: true },
    sections: {
      type: "array",
      required: true,
      read: readListSections,
      server: {
        type: "array",
        minItems: 1,
        uniqueItems: true,
        items: {
          type: "object",
          properties: {
            title: TEXT,
            rows: {
              type: "array",
              minItems: 1,
              uniqueItems: true,
              items: {
                type: "object",
                properties: { title: TEXT, description: TEXT, rowId: TEXT },
                required: ["title", "rowId"],
                notEmpty: ["title", "description", "rowId"],
              },
            },
          },
          required: ["title", "rows"],
          notEmpty: ["title"],
        },
      },
    },
    ...MESSAGE_OPTION_FIELDS,
    linkPreview: LINK_PREVIEW_FIELD,
  },
};

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
  /** Validate; throws `ValidationException` naming every bad field. */
  static from(input: RequestInput<SendListMessageDto> | SendListMessageDto): SendListMessageDto {
    if (input instanceof SendListMessageDto) return input;
    return new SendListMessageDto(readBody(SEND_LIST_BODY, input));
  }
}

/** Button types of `sendButtons`. */
export const BUTTON_TYPES: readonly ["reply", "copy", "url", "call", "pix"] = [
  "reply",
  "copy",
  "url",
  "call",
  "pix",
];
/** PIX key types. */
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

function readButtons(problems: Problems, name: string, value: unknown): ButtonInput[] {
  const buttons: ButtonInput[] = [];
  problems.array(name, value, { required: true, minItems: 1 })?.forEach((item, index) => {
    const field = `${name}[${index}]`;
    const button = problems.object(field, item, { required: true });
    if (!button) return;
    const type = problems.oneOf(`${field}.type`, button.type, BUTTON_TYPES, { required: true });
    if (type === undefined) return;
    const out: Record<string, unknown> = { type };
    for (const key of BUTTON_FIELDS[type]) {
      out[key] = key === "keyType"
        ? problems.oneOf(`${field}.keyType`, button.keyType, PIX_KEY_TYPES, { required: true })
        : problems.text(`${field}.${key}`, button[key], { required: true });
    }
    buttons.push(compact(out) as unknown as ButtonInput);
  });
  return buttons;
}

/** At most 3 reply buttons, never mixed with other types; a pix button alone. */
function checkButtonMix(problems: Problems, body: Record<string, unknown>): void {
  const types = ((body.buttons ?? []) as ButtonInput[]).map((button) => button.type);
  const replies = types.filter((type) => type === "reply").length;
  if (replies > 3) problems.add("buttons must have at most 3 reply buttons");
  if (replies > 0 && replies < types.length) {
    problems.add("buttons cannot mix reply buttons with other types");
  }
  if (types.includes("pix") && types.length > 1) problems.add("buttons must hold a pix button alone");
}

const TEXT_FIELD: FieldSpec = { type: "string" };

/** The body of `/message/sendButtons` (each button's fields by its type; the mix rules in `check`). */
export const SEND_BUTTONS_BODY: BodySpec = {
  what: "buttons message",
  fields: {
    number: RECIPIENT_FIELD,
    thumbnailUrl: TEXT_FIELD,
    title: TEXT_FIELD,
    description: TEXT_FIELD,
    footer: TEXT_FIELD,
    buttons: {
      type: "array",
      required: true,
      serverRequired: false,
      read: readButtons,
      server: {
        type: "array",
        items: {
          type: "object",
          properties: {
            type: { type: "string", enum: [...BUTTON_TYPES] },
            displayText: TEXT,
            id: TEXT,
            url: TEXT,
            phoneNumber: TEXT,
            currency: TEXT,
            name: TEXT,
            keyType: { type: "string", enum: [...PIX_KEY_TYPES] },
            key: TEXT,
          },
          required: ["type"],
          notEmpty: ["id", "url", "phoneNumber"],
        },
      },
    },
    ...MESSAGE_OPTION_FIELDS,
    linkPreview: LINK_PREVIEW_FIELD,
  },
  check: checkButtonMix,
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
  /** Validate; throws `ValidationException` naming every bad field and every broken button rule. */
  static from(input: RequestInput<SendButtonsMessageDto> | SendButtonsMessageDto): SendButtonsMessageDto {
    if (input instanceof SendButtonsMessageDto) return input;
    return new SendButtonsMessageDto(readBody(SEND_BUTTONS_BODY, input));
  }
}
