import { GatewayApiException, type GatewayErrorContext } from "./base.ts";

/**
 * The server refused the api key (401) or the action (403), a taken instance name excepted.
 *
 * @example
 * ```ts
 * import { AuthenticationException } from "@gw/gateway";
 * console.log(new AuthenticationException("Unauthorized", { status: 401 }).status); // 401
 * ```
 */
export class AuthenticationException extends GatewayApiException {}

/**
 * Creating an instance failed because its name is taken (the server's 403); the key was accepted.
 *
 * @example
 * ```ts
 * import { GatewayService, InstanceAlreadyExistsException } from "@gw/gateway";
 * const gw = GatewayService.make({ server_url: "http://localhost:8080", api_key: "k" });
 * await gw.instances().create("sales").catch((error) => {
 *   if (!(error instanceof InstanceAlreadyExistsException)) throw error;
 * });
 * ```
 */
export class InstanceAlreadyExistsException extends GatewayApiException {}

/**
 * An answer exceeded `http.max_response_bytes`; a send that gets it was accepted: never resend it blindly.
 *
 * @example
 * ```ts
 * import { ResponseTooLargeException } from "@gw/gateway";
 * console.log(new ResponseTooLargeException("Too large", { status: 200 }, 4_194_304).limit); // 4194304
 * ```
 */
export class ResponseTooLargeException extends GatewayApiException {
  /** The limit that was exceeded, in bytes. */
  readonly limit: number;

  /** Build the error. */
  constructor(message: string, context: GatewayErrorContext, limit: number) {
    super(message, context);
    this.limit = limit;
  }

  /** A plain object for logs and `JSON.stringify`, with this class's own fields. */
  override toJSON(): Record<string, unknown> {
    return { ...super.toJSON(), limit: this.limit };
  }
}

/**
 * The instance does not exist on the server, or no instance was given for an instance-level call.
 *
 * @example
 * ```ts
 * import { InstanceNotFoundException } from "@gw/gateway";
 * console.log(new InstanceNotFoundException("No such instance", { instance: "sales" }).instance); // "sales"
 * ```
 */
export class InstanceNotFoundException extends GatewayApiException {}

/**
 * The request was invalid, refused before sending or by the server (400, 422); one `messages` entry per field.
 *
 * @example
 * ```ts
 * import { ValidationException } from "@gw/gateway";
 * console.log(new ValidationException("Invalid request", { messages: ["text is required"] }).messages);
 * ```
 */
export class ValidationException extends GatewayApiException {}

/**
 * Too many requests: the server answered 429, or the library's rate limiter refused the call.
 *
 * @example
 * ```ts
 * import { RateLimitException } from "@gw/gateway";
 * console.log(new RateLimitException("Rate limit reached", { status: 429 }, 12).getRetryAfter()); // 12
 * ```
 */
export class RateLimitException extends GatewayApiException {
  /** Seconds to wait before trying again, or null when unknown. */
  readonly retryAfter: number | null;

  /** Build the error. */
  constructor(message: string, context: GatewayErrorContext = {}, retryAfter: number | null = null) {
    super(message, context);
    this.retryAfter = retryAfter;
  }

  /** Seconds until a retry may succeed, or null when unknown. */
  getRetryAfter(): number | null {
    return this.retryAfter;
  }

  /** A plain object for logs and `JSON.stringify`, with this class's own fields. */
  override toJSON(): Record<string, unknown> {
    return { ...super.toJSON(), retryAfter: this.retryAfter };
  }
}
