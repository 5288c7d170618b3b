/**
 * `CallOfferDto`: the body of `POST /call/offer/{instance}`.
 *
 * @module
 */

import { requireObject } from "./message_options.ts";
import { RequestDto, type RequestInput } from "./request_dto.ts";
import { Problems } from "./validate.ts";
import { compact } from "../util/json_shape.ts";

/** The fields of a `CallOfferDto`: what `CallOfferDto.from` accepts, and (normalized) what it holds. */
export interface CallOfferDto {
  /** Who to call. */
  readonly number: string;
  /** Seconds, 1–15. */
  readonly callDuration: number;
  /** Video call. */
  readonly isVideo?: boolean;
}

/**
 * A validated call offer.
 *
 * @example
 * ```ts
 * import { CallOfferDto } from "@gw/gateway";
 * CallOfferDto.from({ number: "5511999999999", callDuration: 5 });
 * ```
 */
export class CallOfferDto extends RequestDto {
  /**
   * Validate; throws `ValidationException` naming every bad field.
   *
   * @example
   * ```ts
   * import { CallOfferDto } from "@gw/gateway";
   * CallOfferDto.from({ number: "5511999999999", callDuration: 10, isVideo: true });
   * ```
   */
  static from(input: RequestInput<CallOfferDto> | CallOfferDto): CallOfferDto {
    if (input instanceof CallOfferDto) return input;
    const record = requireObject(input, "call offer");
    const problems = new Problems();
    const number = problems.recipient("number", record.number);
    const callDuration = problems.number("callDuration", record.callDuration, {
      required: true,
      integer: true,
      min: 1,
      max: 15,
    });
    const isVideo = problems.bool("isVideo", record.isVideo);
    problems.throwIfAny("call offer");
    return new CallOfferDto(compact({ number: number!, callDuration: callDuration!, isVideo }));
  }
}
