/** Where an error happened (the fields of {@link GatewayApiException}), filled in by the client. */
export interface GatewayErrorContext {
  status?: number;
  body?: unknown;
  messages?: string[];
  method?: string;
  /** Without the server URL or query string. */
  path?: string;
  connection?: string;
  instance?: string;
  attempts?: number;
  cause?: unknown;
}

/**
 * Base class of every error the library throws: the server's answers and the setup errors.
 *
 * @example
 * ```ts
 * import { ConfigurationException, GatewayException } from "@gw/gateway";
 * console.log(new ConfigurationException("bad") instanceof GatewayException); // true
 * ```
 */
export class GatewayException extends Error {
  /** Build an error whose `name` is its class's. */
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
  }
}

/**
 * The server's answers and the failures to get one; setup errors are not in this family.
 *
 * @example
 * ```ts
 * import { GatewayApiException } from "@gw/gateway";
 * console.log(new GatewayApiException("Not found", { status: 404 }).toJSON().status); // 404
 * ```
 */
export class GatewayApiException extends GatewayException {
  /** HTTP status code, or undefined when the server never answered. */
  readonly status?: number;
  /** The parsed response body (never containing the request's api key). */
  readonly body?: unknown;
  /** Flat, human-readable messages, whatever shape the server used. */
  readonly messages: string[];
  /** HTTP method of the failed request. */
  readonly method?: string;
  /** Path of the failed request. */
  readonly path?: string;
  /** Connection name used. */
  readonly connection?: string;
  /** Instance name, when the request had one. */
  readonly instance?: string;
  /** Number of attempts made. */
  readonly attempts?: number;

  /** Build an error with a message and its context. */
  constructor(message: string, context: GatewayErrorContext = {}) {
    super(message, { cause: context.cause });
    this.status = context.status;
    this.body = context.body;
    this.messages = context.messages ?? [];
    this.method = context.method;
    this.path = context.path;
    this.connection = context.connection;
    this.instance = context.instance;
    this.attempts = context.attempts;
  }

  /** A plain object for logs and `JSON.stringify`: the context, never a secret. */
  toJSON(): Record<string, unknown> {
    return {
      name: this.name,
      message: this.message,
      status: this.status,
      messages: this.messages,
      method: this.method,
      path: this.path,
      connection: this.connection,
      instance: this.instance,
      attempts: this.attempts,
      body: this.body,
    };
  }
}
