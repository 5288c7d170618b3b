/**
 * The exceptions the library throws. Which answer of the server becomes which exception is decided in
 * `client/from_response.ts`; what a failed send's exception means for a resend in `send/outcome.ts`.
 *
 * @module
 */

export { GatewayApiException } from "./errors/base.ts";
export type { GatewayErrorContext } from "./errors/base.ts";
export {
  AuthenticationException,
  InstanceAlreadyExistsException,
  InstanceNotFoundException,
  RateLimitException,
  ResponseTooLargeException,
  ValidationException,
} from "./errors/api.ts";
export { ConnectionException, OutcomeUnknownException } from "./errors/connection.ts";
export type { ConnectionFailureReason } from "./errors/connection.ts";
export { InstanceDisconnectedException, MessageException, MessageStatusException } from "./errors/message.ts";
export type { MessageFailureReason } from "./errors/message.ts";
export { ConfigurationException, WebhookException } from "./errors/setup.ts";
