/**
 * `SendTextMessageDto`: the body of `POST /message/sendText/{instance}`.
 *
 * @module
 */

import { type MessageOptions, readMessageOptions, requireObject } from "./message_options.ts";
import { RequestDto, type RequestInput } from "./request_dto.ts";
import { Problems } from "./validate.ts";
import { compact } from "../util/json_shape.ts";

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
    const record = requireObject(input, "text message");
    const problems = new Problems();
    const number = problems.recipient("number", record.number);
    const text = problems.text("text", record.text, { required: true });
    const options = readMessageOptions(problems, record);
    problems.throwIfAny("text message");
    return new SendTextMessageDto(compact({ number: number!, text: text!, ...options }));
  }
}
