// Which answer becomes which exception: client/from_response.ts; what it means for a resend: send/outcome.ts.

export * from "./errors/base.ts";
export * from "./errors/api.ts";
export * from "./errors/connection.ts";
export * from "./errors/message.ts";
export * from "./errors/setup.ts";
