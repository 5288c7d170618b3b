/**
 * `@gw/gateway/bot`: a bot framework for WhatsApp gateways. Middleware composed with typed filter queries,
 * behind the verified webhook receiver, with exactly-once handling per inbound message, per-chat order
 * across processes, echo safety and replies that are never sent twice.
 *
 * @example The ten-line bot (in a Worker: `export default { fetch: bot.fetch }`)
 * ```ts
 * import { Bot } from "@gw/gateway/bot";
 * const bot = new Bot(); // service, secret and scheme from the environment
 * bot.on("message:text", (ctx) => ctx.reply(ctx.text));
 * Deno.serve(bot.fetch);
 * ```
 *
 * @module
 */

// The types the bot's options and context refer to, so that users need no second import for them.
export type { GatewayService } from "../service.ts";
export type { GatewayStore } from "../store/store.ts";
export type { StateStore } from "../store/state.ts";
export type { WebhookPayloadDto } from "../webhooks/payload.ts";
export type { WebhookProcessor } from "../webhooks/processor.ts";
export type { WebhookHandlerOptions, WebhookHandlerQueueOptions } from "../webhooks/handler.ts";
export type { WebhookSignatureOptions } from "../webhooks/signature.ts";
export type { PacingOptions } from "../pacing/rules.ts";
export type { MediaKind, MediaSource } from "../media/media_input.ts";
export type { SendResponse } from "../resources/messages.ts";

export { Bot, type BotGroups, type BotOptions } from "./bot.ts";
export type { ActionTarget, BotActions } from "./actions.ts";
export { BotError } from "./bot_error.ts";
export {
  type CommandContext,
  Composer,
  type HearsContext,
  type HearsTrigger,
  type MaybePromise,
} from "./composer.ts";
export { Context, type ContextInit } from "./context.ts";
export type {
  ActionOptions,
  ReplyOptions,
  ReplyWithLocationOptions,
  ReplyWithMediaOptions,
  ReplyWithPollOptions,
} from "./action_options.ts";
export type { ButtonInput, ListSection } from "../dto/interactive_messages.ts";
export type { ContactCard } from "../dto/structured_messages.ts";
export {
  type Filter,
  type FilterNarrowing,
  type FilterQuery,
  type HasQueries,
  matchFilter,
  type MessageFields,
  type WithMedia,
} from "./filter.ts";
export { FILTER_QUERIES, type FilterQueryInfo } from "./filter_table.ts";
export type { Middleware, MiddlewareFn, MiddlewareObj, NextFunction } from "./middleware.ts";
export type * from "./update_types.ts";

// --- sessions and conversations (durable per-chat state and dialogues)
export {
  defaultSessionKey,
  lazySession,
  type LazySessionFlavor,
  session,
  type SessionFlavor,
  type SessionOptions,
} from "./session.ts";
export { StateConflictException } from "./state_conflict.ts";
export { Conversation, type WaitOptions } from "./conversation/conversation.ts";
export {
  ConversationControl,
  type ConversationFlavor,
  type ConversationFn,
  type ConversationOptions,
  conversations,
  createConversation,
} from "./conversation/create.ts";
export type { GatewayApiException } from "../errors.ts";
