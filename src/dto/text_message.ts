/**
 * `SendTextMessageDto`: the body of `POST /message/sendText/{instance}`.
 *
 * @module
 */

import { type BodySpec, readBody, RECIPIENT_FIELD } from "./body_spec.ts";
import { MESSAGE_OPTION_FIELDS, type MessageOptions } from "./message_options.ts";
import { RequestDto, type RequestInput } from "./request_dto.ts";

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
  /**
   * Validate and normalize; throws `ValidationException` naming every bad field.
   *
   * @example
   * ```ts
   * import { SendTextMessageDto } from "@gw/gateway";
   * SendTextMessageDto.from({ number: "5511999999999", text: "Hi", mentionsEveryOne: true });
   * ```
   */
  static from(input: RequestInput<SendTextMessageDto> | SendTextMessageDto): SendTextMessageDto {
    if (input instanceof SendTextMessageDto) return input;
    return new SendTextMessageDto(readBody(SEND_TEXT_BODY, input));
  }
}
