import { GatewayException } from "./base.ts";

/**
 * An inbound webhook was rejected (bad signature, malformed body, misconfiguration).
 *
 * @example
 * ```ts
 * import { WebhookException } from "@gw/gateway";
 * console.log(new WebhookException("Signature does not match", { status: 401 }).status); // 401
 * ```
 */
export class WebhookException extends GatewayException {
  /** The HTTP status the receiver answers with (401 unverified, 500 a handler failed, 503 busy). */
  readonly status?: number;
  /** Flat reasons (a verification failure's reason). */
  readonly messages: string[];

  /** Build a webhook error with the status the receiver answers. */
  constructor(message: string, context: { status?: number; messages?: string[]; cause?: unknown } = {}) {
    super(message, { cause: context.cause });
    this.status = context.status;
    this.messages = context.messages ?? [];
  }

  /** The error as plain JSON (for logs). */
  toJSON(): Record<string, unknown> {
    return { name: this.name, message: this.message, status: this.status, messages: this.messages };
  }
}

/**
 * The configuration is wrong; thrown when it is read, never at the first request.
 *
 * @example
 * ```ts
 * import { ConfigurationException } from "@gw/gateway";
 * console.log(new ConfigurationException("Unknown key", { setting: "serverUrl" }).setting); // "serverUrl"
 * ```
 */
export class ConfigurationException extends GatewayException {
  /** Which setting is wrong (`connections.main.api_key`). */
  readonly setting?: string;
  /** The connection the setting belongs to, when it is one connection's. */
  readonly connection?: string;
  /** The instance the setting belongs to, when it is one instance's. */
  readonly instance?: string;

  /** Build the error. */
  constructor(
    message: string,
    context: { setting?: string; connection?: string; instance?: string; cause?: unknown } = {},
  ) {
    super(message, { cause: context.cause });
    this.setting = context.setting;
    this.connection = context.connection;
    this.instance = context.instance;
  }

  /** The error as plain JSON (for logs). */
  toJSON(): Record<string, unknown> {
    const { name, message, setting, connection, instance } = this;
    return { name, message, setting, connection, instance };
  }
}
