/**
 * `@gw/gateway/resources`: the resource classes behind `gw.messages()`, `gw.chats()` and the rest, and the
 * shapes of their requests and answers (`ChatRow`, `GroupInfo`, `SendManyReport`, ...), for code that names
 * those types. An application reaches the resources through `GatewayService`; this entry is for annotating
 * them, and for the paced sender used on its own.
 *
 * @example Naming an answer's type
 * ```ts
 * import { GatewayService } from "@gw/gateway";
 * import type { ChatRow } from "@gw/gateway/resources";
 * const gw = GatewayService.make({ server_url: "http://localhost:8080", api_key: "...", instance: "sales" });
 * async function chats(): Promise<ChatRow[]> {
 *   return (await gw.chats().fetchAll()).data;
 * }
 * ```
 *
 * @module
 */

export { Resource, type RouteRequest } from "./resource.ts";
export { type ChatbotGroup, type EventSinkGroup, type RouteEntry, type RouteGroup } from "./route_table.ts";
export { InstancesResource, type WaitForConnectionOptions } from "./instances.ts";
export {
  type ConnectFlowEvent,
  type ConnectFlowOptions,
  type ConnectRefusalReason,
} from "../instances/connect_flow.ts";
export { type MediaSendOptions, MessagesResource, type SendFileOptions } from "./messages.ts";
export { TextMessages } from "./messages_text.ts";
export { MediaMessages, type MediaRequest } from "./message_media.ts";
export { ChatsResource, type FindChatsQuery, type LastMessage, type PagedQuery } from "./chats.ts";
export { GroupsResource } from "./groups.ts";
export { ProfileResource } from "./profile.ts";
export { type SecureWebhookInput, type SecureWebhookSettings, WebhooksResource } from "./webhooks.ts";
export { SettingsResource } from "./settings.ts";
export { CallsResource } from "./calls.ts";
export { BusinessResource, type CatalogQuery } from "./business.ts";
export { TemplatesResource } from "./templates.ts";
export { ProxyResource } from "./proxy.ts";
export { LabelsResource } from "./labels.ts";
export { type S3MediaQuery, S3Resource } from "./s3.ts";
export { BotResource, type BotRoutes } from "./chatbot.ts";
export { type TypebotInput, TypebotResource, type TypebotStartInput } from "./typebot.ts";
export { type OpenaiCreds, type OpenaiInput, OpenaiResource, type OpenaiSettingsInput } from "./openai.ts";
export {
  type DifyInput,
  DifyResource,
  type EvoaiInput,
  EvoaiResource,
  type EvolutionBotInput,
  EvolutionBotResource,
  type FlowiseInput,
  FlowiseResource,
  type N8nInput,
  N8nResource,
} from "./bots.ts";
export { type ChatwootInput, ChatwootResource, type ChatwootRow } from "./chatwoot.ts";
export {
  type EventSinkInput,
  EventSinkResource,
  type EventSinkRow,
  type PusherInput,
  PusherResource,
} from "./event_sinks.ts";
export type { EventSink } from "../dto/integration_bodies.ts";
export type {
  BotInput,
  BotRow,
  BotSession,
  BotSessionSettings,
  BotSettingsInput,
  BotSettingsRow,
  ChangeStatusResponse,
  DeleteBotResponse,
  IgnoreJidsResponse,
  SessionStatus,
  TriggerOperator,
  TriggerType,
} from "./chatbot_types.ts";
export type {
  ActionResult,
  ChatRow,
  ConnectionState,
  ConnectionStateResponse,
  ContactRow,
  CreateInstanceResponse,
  FindMessagesQuery,
  FindMessagesResponse,
  GroupInfo,
  GroupSettingAction,
  InstanceRow,
  InviteCodeResponse,
  Label,
  MessageKey,
  MessageRecord,
  MessageRef,
  OnWhatsAppResult,
  ParticipantAction,
  Presence,
  ProfileInfo,
  QrCode,
  SendMessageResponse,
  SettingsSetResponse,
  UpdateResult,
  WebhookRow,
} from "./types.ts";

// --- request shapes the request objects take
export type { MessageKeyInput } from "../dto/validate.ts";
export type { QuotedInput } from "../dto/message_options.ts";
export type { ContactCard } from "../dto/structured_messages.ts";
export type { ButtonInput, ListRow, ListSection } from "../dto/interactive_messages.ts";
export type { WebhookConfigInput } from "../dto/webhook_config.ts";
export type { InstanceSettings } from "../dto/settings.ts";
export type { ProxyInput } from "../dto/proxy.ts";
export type { PrivacySettings } from "../dto/privacy_settings.ts";

// --- paced, resumable bulk sends (`messages().sendMany`)
export type { PacingOptions } from "../pacing/rules.ts";
export { type PacingPause, type PacingStatus, type PauseReason, SendPacer } from "../pacing/pacer.ts";
export type {
  SendManyItem,
  SendManyItemResult,
  SendManyItemStatus,
  SendManyOptions,
  SendManyProgress,
  SendManyReport,
} from "../pacing/send_many.ts";

// Moved from the root entry (what an application writes daily stays there).
export { type HttpMethod, type QueryValues, type RequestOptions } from "../client/client.ts";
export { type ResolvedConnection } from "../client/connection_manager.ts";
export { type PreparedRequest } from "../client/prepared_request.ts";
export { type RequestBody, RequestDto, type RequestInput } from "../dto/request_dto.ts";
export { normalizeNumber } from "../dto/validate.ts";
export { type MessageOptions } from "../dto/message_options.ts";
