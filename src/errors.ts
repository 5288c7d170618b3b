/**
 * The exceptions the library throws. Which answer of the server becomes which exception is decided in
 * `client/from_response.ts`; what a failed send's exception means for a resend in `send/outcome.ts`.
 *
 * @module
 */

import type { DisconnectReason } from "./health/disconnect_reason.ts";

/** Where an error happened: filled in by the client for every error it throws. */
export interface GatewayErrorContext {
  /** HTTP status code, when the server answered. */
  status?: number;
  /** The parsed response body (never containing the request's api key). */
  body?: unknown;
  /** Flat, human-readable messages taken from the body. */
  messages?: string[];
  /** HTTP method of the request. */
  method?: string;
  /** Path of the request, without the server URL or query string. */
  path?: string;
  /** Name of the connection used. */
  connection?: string;
  /** Instance the request was for, when there was one. */
  instance?: string;
  /** How many attempts were made. */
  attempts?: number;
  /** The underlying error. */
  cause?: unknown;
}

/**
 * Base class of every error the library throws.
 *
 * @example Catching any gateway error
 * ```ts
 * import { GatewayApiException, GatewayService } from "@gw/gateway";
 * const gw = GatewayService.make({ server_url: "http://127.0.0.1:1", api_key: "k", instance: "sales" });
 * try {
 *   await gw.messages().text("5511999999999", "Hello");
 * } catch (error) {
 *   if (error instanceof GatewayApiException) console.log(error.status, error.messages);
 * }
 * ```
 */
export class GatewayApiException extends Error {
  /** HTTP status code, or undefined when the server never answered. */
  readonly status?: number;
  /** The parsed response body. */
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

  /**
   * Build an error with a message and its context.
   *
   * @example
   * ```ts
   * import { GatewayApiException } from "@gw/gateway";
   * const error = new GatewayApiException("Cannot send: bad input", { status: 400, messages: ["bad input"] });
   * console.log(error.status);
   * ```
   */
  constructor(message: string, context: GatewayErrorContext = {}) {
    super(message, context.cause === undefined ? undefined : { cause: context.cause });
    this.name = new.target.name;
    this.status = context.status;
    this.body = context.body;
    this.messages = context.messages ?? [];
    this.method = context.method;
    this.path = context.path;
    this.connection = context.connection;
    this.instance = context.instance;
    this.attempts = context.attempts;
  }

  /**
   * A plain object for logs and `JSON.stringify`: the context, never a secret.
   *
   * @example
   * ```ts
   * import { GatewayApiException } from "@gw/gateway";
   * console.log(JSON.stringify(new GatewayApiException("Cannot reach server")));
   * ```
   */
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

/**
 * The server refused the api key (401), or refused the action (403). A 403 for a taken instance name is an
 * {@link InstanceAlreadyExistsException} instead.
 *
 * @example
 * ```ts
 * import { AuthenticationException } from "@gw/gateway";
 * const error = new AuthenticationException("Unauthorized", { status: 401 });
 * console.log(error instanceof AuthenticationException);
 * ```
 */
export class AuthenticationException extends GatewayApiException {}

/**
 * Creating an instance failed because its name is taken: the server answers 403 `This name "x" is already in
 * use.`. Not an {@link AuthenticationException}: the key was accepted. `instance` is the name.
 *
 * @example
 * ```ts
 * import { GatewayService, InstanceAlreadyExistsException } from "@gw/gateway";
 * const gw = GatewayService.make({ server_url: "http://localhost:8080", api_key: "k" });
 * try {
 *   await gw.instances().create("sales");
 * } catch (error) {
 *   if (!(error instanceof InstanceAlreadyExistsException)) throw error;
 *   console.log(`"${error.instance}" exists already`);
 * }
 * ```
 */
export class InstanceAlreadyExistsException extends GatewayApiException {}

/**
 * A successful answer was larger than the configured limit (`http.max_response_bytes`, or
 * `http.max_media_response_bytes` for media reads). Only the limit was read: the rest of the body was never
 * buffered. `status` is the answer's status, `limit` the limit in bytes. A message send that gets this answer
 * was accepted by the server, so `isOutcomeUnknown` is true for it: never resend it blindly.
 *
 * @example
 * ```ts
 * import { ResponseTooLargeException } from "@gw/gateway";
 * const error = new ResponseTooLargeException("Answer too large", { status: 200 }, 4_194_304);
 * console.log(error.limit); // 4194304
 * ```
 */
export class ResponseTooLargeException extends GatewayApiException {
  /** The limit that was exceeded, in bytes. */
  readonly limit: number;

  /**
   * Build the error.
   *
   * @example
   * ```ts
   * import { ResponseTooLargeException } from "@gw/gateway";
   * throw new ResponseTooLargeException("Answer too large", { status: 200 }, 1024);
   * ```
   */
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
 * const error = new InstanceNotFoundException('The "sales" instance does not exist', { instance: "sales" });
 * console.log(error.instance);
 * ```
 */
export class InstanceNotFoundException extends GatewayApiException {}

/**
 * The request was invalid: rejected by the library before sending, or by the server's validation (400, 422).
 * `messages` holds one message per bad field.
 *
 * @example
 * ```ts
 * import { ValidationException } from "@gw/gateway";
 * const error = new ValidationException("Invalid request: text is required", { messages: ["text is required"] });
 * console.log(error.messages);
 * ```
 */
export class ValidationException extends GatewayApiException {}

/**
 * Too many requests: the server answered 429, or the library's rate limiter refused the call.
 *
 * @example
 * ```ts
 * import { RateLimitException } from "@gw/gateway";
 * const error = new RateLimitException("Rate limit reached", { status: 429 }, 12);
 * console.log(error.getRetryAfter()); // 12
 * ```
 */
export class RateLimitException extends GatewayApiException {
  /** Seconds to wait before trying again, or null when unknown. */
  readonly retryAfter: number | null;

  /**
   * Build a rate-limit error.
   *
   * @example
   * ```ts
   * import { RateLimitException } from "@gw/gateway";
   * throw new RateLimitException("Rate limit reached", {}, 5);
   * ```
   */
  constructor(message: string, context: GatewayErrorContext = {}, retryAfter: number | null = null) {
    super(message, context);
    this.retryAfter = retryAfter;
  }

  /**
   * Seconds until a retry may succeed, or null when unknown.
   *
   * @example
   * ```ts
   * import { RateLimitException } from "@gw/gateway";
   * console.log(new RateLimitException("limited", {}, 3).getRetryAfter());
   * ```
   */
  getRetryAfter(): number | null {
    return this.retryAfter;
  }

  /** A plain object for logs and `JSON.stringify`, with this class's own fields. */
  override toJSON(): Record<string, unknown> {
    return { ...super.toJSON(), retryAfter: this.retryAfter };
  }
}

/** Why a {@link ConnectionException} happened. */
export type ConnectionFailureReason =
  | "network"
  | "timeout"
  | "deadline"
  | "server_error"
  | "license_required"
  | "outcome_unknown";

/**
 * The server could not be reached, timed out, or answered 5xx.
 *
 * `outcomeUnknown` is true when a request that is not safe to repeat (a message send) may have reached the
 * server: the library did not retry it, because a retry could deliver the message twice.
 *
 * @example
 * ```ts
 * import { ConnectionException } from "@gw/gateway";
 * const error = new ConnectionException("Cannot reach server", { reason: "timeout", timedOut: true });
 * console.log(error.timedOut, error.outcomeUnknown);
 * ```
 */
export class ConnectionException extends GatewayApiException {
  /** The attempt timed out, or the overall deadline passed. */
  readonly timedOut: boolean;
  /** The server may have acted on the request. */
  readonly outcomeUnknown: boolean;
  /** What went wrong. */
  readonly reason: ConnectionFailureReason;

  /**
   * Build a connection error.
   *
   * @example
   * ```ts
   * import { ConnectionException } from "@gw/gateway";
   * throw new ConnectionException("Cannot reach server", { reason: "network" });
   * ```
   */
  constructor(
    message: string,
    context: GatewayErrorContext & {
      reason?: ConnectionFailureReason;
      timedOut?: boolean;
      outcomeUnknown?: boolean;
    } = {},
  ) {
    super(message, context);
    this.reason = context.reason ?? "network";
    this.timedOut = context.timedOut ?? false;
    this.outcomeUnknown = context.outcomeUnknown ?? false;
  }

  /** A plain object for logs and `JSON.stringify`, with this class's own fields. */
  override toJSON(): Record<string, unknown> {
    return {
      ...super.toJSON(),
      reason: this.reason,
      timedOut: this.timedOut,
      outcomeUnknown: this.outcomeUnknown,
    };
  }
}

/**
 * A send with an idempotency key was refused, and nothing was sent, because an earlier send with the same
 * key may have been delivered: its outcome is unknown (`inFlight` false), or it was still in flight when
 * this call's deadline came (`inFlight` true). An unknown outcome stays refused until the earlier send's
 * record is settled by `reconcileSends` (or `retryFailedMessages`), or until the key's window ends.
 * `outcomeUnknown` is true: a blind resend could deliver the message twice.
 *
 * @example
 * ```ts
 * import { OutcomeUnknownException } from "@gw/gateway";
 * const error = new OutcomeUnknownException("order-42", { recordId: "0b6f8a2e" });
 * console.log(error.idempotencyKey, error.recordId, error.inFlight, error.outcomeUnknown); // "order-42" "0b6f8a2e" false true
 * ```
 */
export class OutcomeUnknownException extends ConnectionException {
  /** The idempotency key of the send. */
  readonly idempotencyKey: string;
  /** The outbound record of the earlier send, when it was recorded. */
  readonly recordId?: string;
  /** True when the earlier send was still in flight (it may yet complete); false when its outcome is unknown. */
  readonly inFlight: boolean;

  /**
   * Build the error for `idempotencyKey`.
   *
   * @example
   * ```ts
   * import { OutcomeUnknownException } from "@gw/gateway";
   * throw new OutcomeUnknownException("order-42", { inFlight: true });
   * ```
   */
  constructor(
    idempotencyKey: string,
    options: GatewayErrorContext & { recordId?: string; inFlight?: boolean } = {},
  ) {
    const { recordId, inFlight = false, ...context } = options;
    const record = recordId === undefined ? "" : ` (record "${recordId}")`;
    super(
      inFlight
        ? `Cannot send with idempotency key "${idempotencyKey}": an earlier send with this key is still in flight${record}`
        : `Cannot send with idempotency key "${idempotencyKey}": an earlier send with this key has an unknown outcome${record}; reconcile it first`,
      { ...context, reason: "outcome_unknown", outcomeUnknown: true, timedOut: inFlight },
    );
    this.idempotencyKey = idempotencyKey;
    this.recordId = recordId;
    this.inFlight = inFlight;
  }

  /** A plain object for logs and `JSON.stringify`, with this class's own fields. */
  override toJSON(): Record<string, unknown> {
    return {
      ...super.toJSON(),
      idempotencyKey: this.idempotencyKey,
      recordId: this.recordId,
      inFlight: this.inFlight,
    };
  }
}

/** Why a {@link MessageException} happened. */
export type MessageFailureReason = "not_on_whatsapp" | "not_connected";

/**
 * A send was rejected: the recipient is not on the network, or the instance is not connected.
 *
 * @example
 * ```ts
 * import { MessageException } from "@gw/gateway";
 * const error = new MessageException("Cannot send: recipient is not on WhatsApp", { reason: "not_on_whatsapp" });
 * console.log(error.reason);
 * ```
 */
export class MessageException extends GatewayApiException {
  /** What went wrong. */
  readonly reason: MessageFailureReason;

  /**
   * Build a message error.
   *
   * @example
   * ```ts
   * import { MessageException } from "@gw/gateway";
   * throw new MessageException("Cannot send: instance is not connected", { reason: "not_connected" });
   * ```
   */
  constructor(message: string, context: GatewayErrorContext & { reason: MessageFailureReason }) {
    super(message, context);
    this.reason = context.reason;
  }

  /** A plain object for logs and `JSON.stringify`, with this class's own fields. */
  override toJSON(): Record<string, unknown> {
    return { ...super.toJSON(), reason: this.reason };
  }
}

/**
 * A send was refused because the instance has no live WhatsApp socket: the server answered "Connection
 * Closed" (or the `onWhatsApp` TypeError of a socket never started), or the library's breaker refused it
 * locally, without a request, while the instance is known to be down. The message was **not sent**
 * (`notSent` is always true), so sending it again later cannot deliver it twice. A `MessageException`
 * with reason `not_connected`.
 *
 * @example
 * ```ts
 * import { InstanceDisconnectedException } from "@gw/gateway";
 * const error = new InstanceDisconnectedException("Cannot send: instance \"sales\" is not connected", {
 *   instance: "sales",
 *   local: true,
 * });
 * console.log(error.notSent, error.local, error.reason); // true true "not_connected"
 * ```
 */
export class InstanceDisconnectedException extends MessageException {
  /** Always true: the message did not leave. */
  readonly notSent: true = true;
  /** True when the breaker refused the send without a request. */
  readonly local: boolean;
  /** The server's last disconnect reason, when known. */
  readonly disconnect?: DisconnectReason;
  /** When the breaker lets a probe through (epoch ms), when known; undefined when only a new pairing helps. */
  readonly retryAt?: number;

  /**
   * Build the error.
   *
   * @example
   * ```ts
   * import { disconnectReason, InstanceDisconnectedException } from "@gw/gateway";
   * throw new InstanceDisconnectedException("Cannot send: instance \"sales\" is banned", {
   *   instance: "sales",
   *   local: true,
   *   disconnect: disconnectReason(403),
   * });
   * ```
   */
  constructor(
    message: string,
    context: GatewayErrorContext & { local?: boolean; disconnect?: DisconnectReason; retryAt?: number } = {},
  ) {
    super(message, { ...context, reason: "not_connected" });
    this.local = context.local ?? false;
    if (context.disconnect) this.disconnect = context.disconnect;
    if (context.retryAt !== undefined) this.retryAt = context.retryAt;
  }

  /** A plain object for logs and `JSON.stringify`, with this class's own fields. */
  override toJSON(): Record<string, unknown> {
    return {
      ...super.toJSON(),
      notSent: true,
      local: this.local,
      ...(this.disconnect ? { disconnect: this.disconnect } : {}),
      ...(this.retryAt !== undefined ? { retryAt: this.retryAt } : {}),
    };
  }
}

/**
 * A message did not reach the status a caller waited for (`MessageStatusTracker.waitFor`): the wait timed
 * out (`deliveryStatus` is the last one seen, `null` when none was), or the server reported `ERROR`. `causes`
 * lists the likely reasons of a message still `PENDING`, most likely first.
 *
 * @example
 * ```ts
 * import { MessageStatusException } from "@gw/gateway";
 * const error = new MessageStatusException('Cannot confirm message "3EB0": still PENDING after 30000 ms', {
 *   messageId: "3EB0", deliveryStatus: "PENDING", causes: ["instance_not_open"],
 * });
 * console.log(error.deliveryStatus, error.causes);
 * ```
 */
export class MessageStatusException extends GatewayApiException {
  /** The message's `key.id`. */
  readonly messageId: string;
  /** The last delivery status seen (`PENDING`, `ERROR`, ...), or null. */
  readonly deliveryStatus: string | null;
  /** Likely causes of a message still pending, most likely first. */
  readonly causes: readonly string[];

  /**
   * Build the error.
   *
   * @example
   * ```ts
   * import { MessageStatusException } from "@gw/gateway";
   * new MessageStatusException('Cannot deliver message "3EB0": the server reported ERROR', { messageId: "3EB0", deliveryStatus: "ERROR" });
   * ```
   */
  constructor(
    message: string,
    context: GatewayErrorContext & {
      messageId: string;
      deliveryStatus: string | null;
      causes?: readonly string[];
    },
  ) {
    super(message, context);
    this.messageId = context.messageId;
    this.deliveryStatus = context.deliveryStatus;
    this.causes = context.causes ?? [];
  }

  /** A plain object for logs and `JSON.stringify`, with this class's own fields. */
  override toJSON(): Record<string, unknown> {
    return {
      ...super.toJSON(),
      messageId: this.messageId,
      deliveryStatus: this.deliveryStatus,
      causes: this.causes,
    };
  }
}

/**
 * An inbound webhook was rejected (bad signature, malformed body, misconfiguration).
 *
 * @example
 * ```ts
 * import { WebhookException } from "@gw/gateway";
 * const error = new WebhookException("Cannot verify webhook: signature does not match", { status: 401 });
 * console.log(error.status);
 * ```
 */
export class WebhookException extends GatewayApiException {}

/**
 * The library's configuration is wrong: an unknown key, a wrong type, a value out of range, or a setting
 * that is needed and missing. Thrown when the configuration is read (the service, a store, a limiter or a
 * receiver is built), never at the first request. `setting` names it, e.g. `rate_limiting.max_wait_ms`.
 *
 * @example
 * ```ts
 * import { ConfigurationException } from "@gw/gateway";
 * const error = new ConfigurationException('"serverUrl" is not a configuration key; did you mean "server_url"?', {
 *   setting: "serverUrl",
 * });
 * console.log(error.setting); // "serverUrl"
 * ```
 */
export class ConfigurationException extends GatewayApiException {
  /** Which setting is wrong (`connections.main.api_key`), when it is one setting. */
  readonly setting?: string;

  /**
   * Build a configuration error.
   *
   * @example
   * ```ts
   * import { ConfigurationException } from "@gw/gateway";
   * const error = new ConfigurationException('"timeout_ms" must be a positive integer', { setting: "timeout_ms" });
   * console.log(error.setting); // "timeout_ms"
   * ```
   */
  constructor(message: string, context: GatewayErrorContext & { setting?: string } = {}) {
    super(message, context);
    this.setting = context.setting;
  }
}
