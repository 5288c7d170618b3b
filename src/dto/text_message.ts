/**
 * `SendTextMessageDto`: the body of `POST /message/sendText/{instance}`.
 *
 * @module
 */

import {
  type MessageOptionsBody,
  type MessageOptionsInput,
  readMessageOptions,
  requireObject,
} from "./message_options.ts";
import { RequestDto } from "./request_dto.ts";
import { compact, Problems } from "./validate.ts";

/** What `SendTextMessageDto.from` accepts. */
export interface SendTextMessageInput extends MessageOptionsInput {
  /** Phone number (formatting is stripped) or JID. */
  number: string;
  /** The text; must not be blank. */
  text: string;
}

/** The `sendText` body as sent. */
export interface SendTextMessageBody extends MessageOptionsBody {
  /** Normalised recipient. */
  number: string;
  /** The text. */
  text: string;
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
export class SendTextMessageDto extends RequestDto<SendTextMessageBody> {
  /**
   * Validate and normalise; throws `ValidationException` naming every bad field.
   *
   * @example
   * ```ts
   * import { SendTextMessageDto } from "@gw/gateway";
   * SendTextMessageDto.from({ number: "5511999999999", text: "Hi", mentionsEveryOne: true });
   * ```
   */
  static from(input: SendTextMessageInput | SendTextMessageDto): SendTextMessageDto {
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
