/**
 * The base of every request object: validated, frozen fields serialized as the server expects them.
 *
 * @module
 */

/**
 * The fields of a request object `T` as a plain, mutable object: the exact JSON body the server receives
 * (`toJSON()`), without the request object's methods.
 *
 * @example
 * ```ts
 * import { SendTextMessageDto } from "@gw/gateway";
 * import { type RequestBody } from "@gw/gateway/resources";
 * const body: RequestBody<SendTextMessageDto> = SendTextMessageDto.from({ number: "5511999999999", text: "Hi" })
 *   .toJSON();
 * body.number; // "5511999999999"
 * ```
 */
export type RequestBody<T> = {
  -readonly [
    K in keyof T as K extends "body" | "toJSON" | "toBody" | "~readFromBody" ? never
      // A type-only `"~readFromBody"` member lists the properties a request object reads from its body for
      // convenience (`WebhookConfigDto.url` is `webhook.url`): they are not fields of the body itself.
      : K extends (T extends { readonly "~readFromBody"?: infer R } ? NonNullable<R> : never) ? never
      : K
  ]: T[K];
};

/**
 * What a request object's `from()` accepts: the same fields as the request object itself, before they
 * are checked and normalized (a number with formatting, a dotted event name, ...).
 *
 * @example
 * ```ts
 * import { SendTextMessageDto } from "@gw/gateway";
 * import { type RequestInput } from "@gw/gateway/resources";
 * const input: RequestInput<SendTextMessageDto> = { number: "+55 11 99999-9999", text: "Hello" };
 * SendTextMessageDto.from(input).number; // "5511999999999"
 * ```
 */
export type RequestInput<T> = RequestBody<T>;

/**
 * A validated request. Build one with the subclass's static `from(object)`, which throws
 * `ValidationException` naming every bad field. Each field of the body is a readonly property of the
 * request object (`dto.number`), already normalized; `toJSON()` (and `toBody()`) give the exact server body.
 *
 * @example
 * ```ts
 * import { SendTextMessageDto } from "@gw/gateway";
 * const dto = SendTextMessageDto.from({ number: "+55 11 99999-9999", text: "Hello" });
 * dto.number; // "5511999999999"
 * dto.toJSON(); // { number: "5511999999999", text: "Hello" }
 * ```
 */
export abstract class RequestDto {
  readonly #body: object;

  /** Hold a validated body (subclasses call this from `from()`); its fields become readonly properties. */
  protected constructor(body: object) {
    this.#body = Object.freeze(body);
    // Every field as an own, enumerable, read-only property, by one assign and one freeze rather than a
    // defineProperty per field (bench/README.md, "Client overhead"): the object stays out of dictionary mode.
    Object.freeze(Object.assign(this, body));
  }

  /** The validated body, as sent (frozen). */
  get body(): Readonly<RequestBody<this>> {
    return this.#body as RequestBody<this>;
  }

  /** The exact JSON body the server expects (a fresh deep copy). */
  toJSON(): RequestBody<this> {
    return structuredClone(this.#body) as RequestBody<this>;
  }

  /** Same as {@link RequestDto.toJSON}. */
  toBody(): RequestBody<this> {
    return this.toJSON();
  }
}
