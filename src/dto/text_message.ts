/**
 * `SendTextMessageDto`: the body of `POST /message/sendText/{instance}`.
 *
 * @module
 */

import { type BodySpec, readBody, RECIPIENT_FIELD } from "./body_spec.ts";
import { MESSAGE_OPTION_FIELDS, type MessageOptions } from "./message_options.ts";
import { type RequestBody, RequestDto, type RequestInput } from "./request_dto.ts";
import { isRecord } from "../util/json_shape.ts";

/** The body of `/message/sendText`. */
export const SEND_TEXT_BODY: BodySpec = {
  what: "text message",
  fields: {
    number: RECIPIENT_FIELD,
    text: { type: "string", required: true },
    linkPreview: { type: "boolean" },
    ...MESSAGE_OPTION_FIELDS,
  },
};

/**
 * A recipient `normalizeNumber` returns unchanged: digits only, as many as it accepts (7 to 20). Most sends
 * give one; anything else (formatting, a JID, a bad value) takes the full reading.
 */
const PLAIN_NUMBER = /^\d{7,20}$/;

/** True when `input` sets no key but `number` and `text`: the common send. */
function setsNoOption(input: Record<string, unknown>): boolean {
  for (const name in input) {
    if (name !== "number" && name !== "text" && input[name] !== undefined) return false;
  }
  return true;
}

/** The body at once, when the recipient is plain digits and the text is not blank; else undefined. */
function plainTextBody(number: unknown, text: unknown): RequestBody<SendTextMessageDto> | undefined {
  if (typeof number !== "string" || typeof text !== "string" || !PLAIN_NUMBER.test(number)) return undefined;
  return text.trim() === "" ? undefined : { number, text };
}

/**
 * The validated body of a text send, as `SendTextMessageDto.from` reads it. The common shape (plain digits,
 * a text, no other key) is checked at once, without the full reading of the declaration: every send goes
 * through here, and the full reading costs a few percent of a loopback round trip. Any other input takes
 * the full reading, so the body and the errors are the same either way.
 */
export function readTextBody(input: unknown): RequestBody<SendTextMessageDto> {
  const body = isRecord(input) && setsNoOption(input) ? plainTextBody(input.number, input.text) : undefined;
  return body ?? readBody(SEND_TEXT_BODY, input) as RequestBody<SendTextMessageDto>;
}

/** {@link readTextBody} of `{ number, text }`, without building that object for a plain body. */
export function textBodyOf(number: unknown, text: unknown): RequestBody<SendTextMessageDto> {
  return plainTextBody(number, text) ?? readTextBody({ number, text });
}

/** The fields of a `SendTextMessageDto`: what `SendTextMessageDto.from` accepts, and (normalized) what it holds. */
export interface SendTextMessageDto extends MessageOptions {
  /** Phone number (formatting is stripped) or JID. */
  readonly number: string;
  /** The text; must not be blank. */
  readonly text: string;
}

/**
 * A validated text message.
 *
 * @example
 * ```ts
 * import { SendTextMessageDto } from "@gw/gateway";
 * const dto = SendTextMessageDto.from({ number: "+55 11 99999-9999", text: "Hello", delay: 1200 });
 * dto.toJSON(); // { number: "5511999999999", text: "Hello", delay: 1200 }
 * ```
 */
export class SendTextMessageDto extends RequestDto {
  /** Validate and normalize; throws `ValidationException` naming every bad field. */
  static from(input: RequestInput<SendTextMessageDto> | SendTextMessageDto): SendTextMessageDto {
    if (input instanceof SendTextMessageDto) return input;
    return new SendTextMessageDto(readTextBody(input));
  }
}
