/**
 * The base of every request object: a validated, frozen body that serialises to exactly what the server
 * expects.
 *
 * @module
 */

/**
 * A validated request body. Build one with the subclass's static `from(object)`, which throws
 * `ValidationException` naming every bad field; `toJSON()` (and `toBody()`) give the exact server body.
 *
 * @example
 * ```ts
 * import { SendTextMessageDto } from "@gw/gateway";
 * const dto = SendTextMessageDto.from({ number: "+55 11 99999-9999", text: "Hello" });
 * dto.toJSON(); // { number: "5511999999999", text: "Hello" }
 * ```
 */
export abstract class RequestDto<B extends object> {
  /** The validated body, as sent. */
  readonly body: Readonly<B>;

  /**
   * Wrap an already validated body (subclasses call this from `from()`).
   *
   * @example
   * ```ts
   * import { SendTextMessageDto } from "@gw/gateway";
   * SendTextMessageDto.from({ number: "5511999999999", text: "Hi" }).body.text; // "Hi"
   * ```
   */
  protected constructor(body: B) {
    this.body = Object.freeze(body);
  }

  /**
   * The exact JSON body the server expects (a fresh deep copy).
   *
   * @example
   * ```ts
   * import { SendTextMessageDto } from "@gw/gateway";
   * JSON.stringify(SendTextMessageDto.from({ number: "5511999999999", text: "Hi" }));
   * ```
   */
  toJSON(): B {
    return structuredClone(this.body) as B;
  }

  /**
   * Same as {@link RequestDto.toJSON}.
   *
   * @example
   * ```ts
   * import { SendTextMessageDto } from "@gw/gateway";
   * SendTextMessageDto.from({ number: "5511999999999", text: "Hi" }).toBody();
   * ```
   */
  toBody(): B {
    return this.toJSON();
  }
}
