/**
 * `CallOfferDto`: the body of `POST /call/offer/{instance}`.
 *
 * @module
 */

import { type BodySpec, readBody, RECIPIENT_FIELD } from "./body_spec.ts";
import { RequestDto, type RequestInput } from "./request_dto.ts";

/** The body of `/call/offer`. */
export const CALL_OFFER_BODY: BodySpec = {
  what: "call offer",
  fields: {
    number: RECIPIENT_FIELD,
    isVideo: { type: "boolean", strictBoolean: true },
    callDuration: { type: "integer", required: true, min: 1, max: 15 },
  },
};

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
  /** Validate; throws `ValidationException` naming every bad field. */
  static from(input: RequestInput<CallOfferDto> | CallOfferDto): CallOfferDto {
    if (input instanceof CallOfferDto) return input;
    return new CallOfferDto(readBody(CALL_OFFER_BODY, input));
  }
}
