/**
 * The route table's types, written out: a published module's API may not use the inferred type.
 *
 * @module
 */

import type { HttpMethod } from "../client/prepared_request.ts";
import type { RateLimitBucket } from "../ratelimit/limiter.ts";

/** Route groups as the contract counts them (the first path segment). */
export type RouteGroup =
  | "instance"
  | "message"
  | "call"
  | "chat"
  | "business"
  | "group"
  | "template"
  | "settings"
  | "proxy"
  | "label"
  | "webhook"
  | "s3"
  | ChatbotGroup
  | EventSinkGroup;

/** The chatbot integrations' route groups (`/typebot/create/{instance}`, ...). */
export type ChatbotGroup =
  | "evolutionBot"
  | "chatwoot"
  | "typebot"
  | "openai"
  | "dify"
  | "flowise"
  | "n8n"
  | "evoai";

/** The event sinks' route groups besides the webhook (`/rabbitmq/set/{instance}`, ...). */
export type EventSinkGroup = "websocket" | "rabbitmq" | "nats" | "pusher" | "sqs" | "kafka";

/** One route of the gateway server. */
export interface RouteEntry {
  /** Route group as the contract counts them (`instance`, `message`, `chat`, ...): the first path segment. */
  readonly group: RouteGroup;
  /** HTTP verb. */
  readonly method: HttpMethod;
  /**
   * Route template; `{instance}` is the instance name (always the last segment), `{id}` the id of the
   * integration's record (a bot, a credential) where the route has one.
   */
  readonly path: string;
  /** Success status the server answers. */
  readonly status: 200 | 201;
  /** `GatewayService` accessor of the resource (`messages`, `chats`, ...). */
  readonly resource: string;
  /** Methods calling the route, the direct one first; another resource's as `messages.resolveRecipient`. */
  readonly methods: readonly string[];
  /** Whether the library retries it after an unclear failure (reads: yes; changes and sends: no). */
  readonly idempotent: boolean;
  /** Message sends: the kind metrics, the store and `MessageSent` name (`text`, `media`, ...). */
  readonly kind?: string;
  /** Rate-limit bucket: `messages` or `media` for sends, `default` for the rest. */
  readonly bucket: RateLimitBucket;
}

/** The operations every bot integration has (contract §2.9). */
export type BotOp =
  | "create"
  | "find"
  | "fetch"
  | "update"
  | "delete"
  | "settings"
  | "fetchSettings"
  | "changeStatus"
  | "fetchSessions"
  | "ignoreJid";

/** A group's rows by operation. */
export type Rows<K extends string> = { readonly [P in K]: RouteEntry };

/**
 * Every group's rows by operation: the type of `ROUTE` (`src/resources/routes.ts`). The event sinks have
 * `set` and `find`; the chatbot integrations the bot operations, plus their own.
 */
export interface RouteTable
  extends
    Readonly<Record<EventSinkGroup, Rows<"set" | "find">>>,
    Readonly<Record<Exclude<ChatbotGroup, "chatwoot" | "typebot" | "openai">, Rows<BotOp>>> {
  readonly instance: Rows<
    | "create"
    | "restart"
    | "connect"
    | "connectionState"
    | "fetchInstances"
    | "setPresence"
    | "logout"
    | "delete"
  >;
  readonly message: Rows<
    | "sendText"
    | "sendMedia"
    | "sendPtv"
    | "sendWhatsAppAudio"
    | "sendSticker"
    | "sendLocation"
    | "sendContact"
    | "sendReaction"
    | "sendPoll"
    | "sendList"
    | "sendButtons"
    | "sendStatus"
    | "sendTemplate"
  >;
  readonly call: Rows<"offer">;
  readonly chat: Rows<
    | "whatsappNumbers"
    | "markMessageAsRead"
    | "archiveChat"
    | "markChatUnread"
    | "deleteMessageForEveryone"
    | "fetchProfilePictureUrl"
    | "getBase64FromMediaMessage"
    | "updateMessage"
    | "sendPresence"
    | "updateBlockStatus"
    | "findContacts"
    | "findMessages"
    | "findStatusMessage"
    | "findChats"
    | "findChatByRemoteJid"
    | "fetchBusinessProfile"
    | "fetchProfile"
    | "updateProfileName"
    | "updateProfileStatus"
    | "updateProfilePicture"
    | "removeProfilePicture"
    | "fetchPrivacySettings"
    | "updatePrivacySettings"
  >;
  readonly business: Rows<"getCatalog" | "getCollections">;
  readonly group: Rows<
    | "create"
    | "updateGroupSubject"
    | "updateGroupPicture"
    | "updateGroupDescription"
    | "findGroupInfos"
    | "fetchAllGroups"
    | "participants"
    | "inviteCode"
    | "inviteInfo"
    | "acceptInviteCode"
    | "sendInvite"
    | "revokeInviteCode"
    | "updateParticipant"
    | "updateSetting"
    | "toggleEphemeral"
    | "leaveGroup"
  >;
  readonly template: Rows<"create" | "find">;
  readonly settings: Rows<"set" | "find">;
  readonly proxy: Rows<"set" | "find">;
  readonly label: Rows<"findLabels" | "handleLabel">;
  readonly webhook: Rows<"set" | "find">;
  readonly s3: Rows<"getMedia" | "getMediaUrl">;
  readonly chatwoot: Rows<"set" | "find" | "webhook">;
  readonly typebot: Rows<BotOp | "start">;
  readonly openai: Rows<BotOp | "createCreds" | "findCreds" | "deleteCreds" | "getModels">;
}
