/**
 * Exceptions for the library's own setup: a webhook that cannot be verified, a configuration that is refused.
 *
 * @module
 */

import { GatewayApiException, type GatewayErrorContext } from "./base.ts";

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
