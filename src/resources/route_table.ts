/**
 * The type of the route table: each group's operations (written out because the table's inferred type is
 * not allowed in a published module's API).
 *
 * @module
 */

import type { RouteEntry } from "./routes.ts";

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

/** Every group's rows by operation: the type of `ROUTE` (`src/resources/routes.ts`). */
export interface RouteTable {
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
  readonly websocket: Rows<"set" | "find">;
  readonly rabbitmq: Rows<"set" | "find">;
  readonly nats: Rows<"set" | "find">;
  readonly pusher: Rows<"set" | "find">;
  readonly sqs: Rows<"set" | "find">;
  readonly kafka: Rows<"set" | "find">;
  readonly evolutionBot: Rows<BotOp>;
  readonly chatwoot: Rows<"set" | "find" | "webhook">;
  readonly typebot: Rows<BotOp | "start">;
  readonly openai: Rows<BotOp | "createCreds" | "findCreds" | "deleteCreds" | "getModels">;
  readonly dify: Rows<BotOp>;
  readonly flowise: Rows<BotOp>;
  readonly n8n: Rows<BotOp>;
  readonly evoai: Rows<BotOp>;
}
