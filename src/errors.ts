/**
 * The exceptions the library throws. Which answer of the server becomes which exception is decided in
 * `client/from_response.ts`; what a failed send's exception means for a resend in `send/outcome.ts`.
 *
 * @module
 */

export * from "./errors/base.ts";
export * from "./errors/api.ts";
export * from "./errors/connection.ts";
export * from "./errors/message.ts";
export * from "./errors/setup.ts";
