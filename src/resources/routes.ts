/**
 * The route table: every core route of the gateway server (contract §2), its verb, its success code, the
 * resource methods that call it, and whether repeating it is harmless. A test walks this table and calls
 * every method; the route table in docs/resources.md is generated from it.
 *
 * @module
 */

import type { HttpMethod } from "../client/client.ts";

/** One route of the gateway server. */
export interface RouteEntry {
  /** Route group as the contract counts them (`instance`, `message`, `chat`, ...). */
  group:
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
    | "s3";
  /** HTTP verb. */
  method: HttpMethod;
  /** Route template; `{instance}` is the instance name (always the last segment). */
  path: string;
  /** Success status the server answers. */
  status: 200 | 201;
  /** `GatewayService` accessor of the resource (`messages`, `chats`, ...). */
  resource: string;
  /**
   * Resource methods that call the route; the first is the direct one. A method of another resource is
   * written with its resource (`messages.resolveRecipient`).
   */
  methods: readonly string[];
  /** Whether the library retries it after an unclear failure (reads: yes; changes and sends: no). */
  idempotent: boolean;
}

function route(
  group: RouteEntry["group"],
  method: HttpMethod,
  path: string,
  status: 200 | 201,
  resource: string,
  methods: string[],
  idempotent = method === "GET",
): RouteEntry {
  return { group, method, path, status, resource, methods, idempotent };
}

/**
 * Every core route (75), in the contract's order.
 *
 * @example
 * ```ts
 * import { ROUTES } from "./routes.ts";
 * ROUTES.filter((route) => route.resource === "messages").length; // 13
 * ```
 */
export const ROUTES: readonly RouteEntry[] = Object.freeze([
  route("instance", "POST", "/instance/create", 201, "instances", ["create"]),
  route("instance", "POST", "/instance/restart/{instance}", 200, "instances", ["restart"]),
  route("instance", "GET", "/instance/connect/{instance}", 200, "instances", [
    "connect",
    "getQrCode",
    "connectFlow",
  ]),
  route("instance", "GET", "/instance/connectionState/{instance}", 200, "instances", [
    "connectionState",
    "isConnected",
    "waitForConnection",
  ]),
  route("instance", "GET", "/instance/fetchInstances", 200, "instances", ["fetchAll", "fetch"]),
  route("instance", "POST", "/instance/setPresence/{instance}", 201, "instances", ["setPresence"]),
  route("instance", "DELETE", "/instance/logout/{instance}", 200, "instances", ["logout"], false),
  route("instance", "DELETE", "/instance/delete/{instance}", 200, "instances", ["delete"], false),

  route("message", "POST", "/message/sendText/{instance}", 201, "messages", ["sendText", "text", "sendMany"]),
  route("message", "POST", "/message/sendMedia/{instance}", 201, "messages", [
    "sendMedia",
    "image",
    "video",
    "document",
    "sendFile",
  ]),
  route("message", "POST", "/message/sendPtv/{instance}", 201, "messages", ["sendPtv", "ptv"]),
  route("message", "POST", "/message/sendWhatsAppAudio/{instance}", 201, "messages", ["sendAudio", "audio"]),
  route("message", "POST", "/message/sendSticker/{instance}", 201, "messages", ["sendSticker", "sticker"]),
  route("message", "POST", "/message/sendLocation/{instance}", 201, "messages", ["sendLocation", "location"]),
  route("message", "POST", "/message/sendContact/{instance}", 201, "messages", ["sendContact", "contact"]),
  route("message", "POST", "/message/sendReaction/{instance}", 201, "messages", ["sendReaction", "reaction"]),
  route("message", "POST", "/message/sendPoll/{instance}", 201, "messages", ["sendPoll", "poll"]),
  route("message", "POST", "/message/sendList/{instance}", 201, "messages", ["sendList", "list"]),
  route("message", "POST", "/message/sendButtons/{instance}", 201, "messages", ["sendButtons", "buttons"]),
  route("message", "POST", "/message/sendStatus/{instance}", 201, "messages", ["sendStatus", "status"]),
  route("message", "POST", "/message/sendTemplate/{instance}", 201, "messages", ["sendTemplate", "template"]),

  route("call", "POST", "/call/offer/{instance}", 201, "calls", ["offer"]),

  route(
    "chat",
    "POST",
    "/chat/whatsappNumbers/{instance}",
    200,
    "chats",
    ["checkNumbers", "isOnWhatsApp", "messages.resolveRecipient"],
    true,
  ),
  route("chat", "POST", "/chat/markMessageAsRead/{instance}", 201, "chats", ["markAsRead"]),
  route("chat", "POST", "/chat/archiveChat/{instance}", 201, "chats", ["archive", "unarchive"]),
  route("chat", "POST", "/chat/markChatUnread/{instance}", 201, "chats", ["markUnread"]),
  route(
    "chat",
    "DELETE",
    "/chat/deleteMessageForEveryone/{instance}",
    201,
    "chats",
    ["deleteForEveryone"],
    false,
  ),
  route(
    "chat",
    "POST",
    "/chat/fetchProfilePictureUrl/{instance}",
    200,
    "chats",
    ["fetchProfilePictureUrl"],
    true,
  ),
  route(
    "chat",
    "POST",
    "/chat/getBase64FromMediaMessage/{instance}",
    201,
    "chats",
    ["getBase64FromMediaMessage"],
    true,
  ),
  route("chat", "POST", "/chat/updateMessage/{instance}", 200, "chats", ["updateMessage"]),
  route("chat", "POST", "/chat/sendPresence/{instance}", 201, "chats", ["sendPresence"]),
  route("chat", "POST", "/chat/updateBlockStatus/{instance}", 201, "chats", ["updateBlockStatus"]),
  route("chat", "POST", "/chat/findContacts/{instance}", 200, "chats", ["findContacts"], true),
  route("chat", "POST", "/chat/findMessages/{instance}", 200, "chats", [
    "findMessages",
    "iterateMessages",
    "findAllMessages",
  ], true),
  route("chat", "POST", "/chat/findStatusMessage/{instance}", 200, "chats", ["findStatusMessage"], true),
  route("chat", "POST", "/chat/findChats/{instance}", 200, "chats", ["fetchAll"], true),
  route("chat", "GET", "/chat/findChatByRemoteJid/{instance}", 200, "chats", ["findChatByRemoteJid"]),
  route(
    "chat",
    "POST",
    "/chat/fetchBusinessProfile/{instance}",
    200,
    "profile",
    ["fetchBusinessProfile"],
    true,
  ),
  route("chat", "POST", "/chat/fetchProfile/{instance}", 200, "profile", ["fetch", "fetchProfile"], true),
  route("chat", "POST", "/chat/updateProfileName/{instance}", 200, "profile", ["updateName"]),
  route("chat", "POST", "/chat/updateProfileStatus/{instance}", 200, "profile", ["updateStatus"]),
  route("chat", "POST", "/chat/updateProfilePicture/{instance}", 200, "profile", ["updatePicture"]),
  route("chat", "DELETE", "/chat/removeProfilePicture/{instance}", 200, "profile", ["removePicture"], false),
  route("chat", "GET", "/chat/fetchPrivacySettings/{instance}", 200, "profile", ["fetchPrivacySettings"]),
  route("chat", "POST", "/chat/updatePrivacySettings/{instance}", 201, "profile", ["updatePrivacySettings"]),

  route("business", "POST", "/business/getCatalog/{instance}", 200, "business", ["getCatalog"], true),
  route("business", "POST", "/business/getCollections/{instance}", 200, "business", ["getCollections"], true),

  route("group", "POST", "/group/create/{instance}", 201, "groups", ["create"]),
  route("group", "POST", "/group/updateGroupSubject/{instance}", 201, "groups", ["updateSubject"]),
  route("group", "POST", "/group/updateGroupPicture/{instance}", 201, "groups", ["updatePicture"]),
  route("group", "POST", "/group/updateGroupDescription/{instance}", 201, "groups", ["updateDescription"]),
  route("group", "GET", "/group/findGroupInfos/{instance}", 200, "groups", ["findInfo"]),
  route("group", "GET", "/group/fetchAllGroups/{instance}", 200, "groups", ["fetchAllGroups"]),
  route("group", "GET", "/group/participants/{instance}", 200, "groups", ["participants"]),
  route("group", "GET", "/group/inviteCode/{instance}", 200, "groups", ["inviteCode"]),
  route("group", "GET", "/group/inviteInfo/{instance}", 200, "groups", ["inviteInfo"]),
  route("group", "GET", "/group/acceptInviteCode/{instance}", 200, "groups", ["acceptInvite"], false),
  route("group", "POST", "/group/sendInvite/{instance}", 200, "groups", ["sendInvite"]),
  route("group", "POST", "/group/revokeInviteCode/{instance}", 201, "groups", ["revokeInviteCode"]),
  route("group", "POST", "/group/updateParticipant/{instance}", 201, "groups", [
    "updateParticipant",
    "addParticipants",
    "removeParticipants",
    "promoteParticipants",
    "demoteParticipants",
  ]),
  route("group", "POST", "/group/updateSetting/{instance}", 201, "groups", ["updateSettings"]),
  route("group", "POST", "/group/toggleEphemeral/{instance}", 201, "groups", ["toggleEphemeral"]),
  route("group", "DELETE", "/group/leaveGroup/{instance}", 200, "groups", ["leave"], false),

  route("template", "POST", "/template/create/{instance}", 201, "templates", ["create"]),
  route("template", "GET", "/template/find/{instance}", 200, "templates", ["find"]),

  route("settings", "POST", "/settings/set/{instance}", 201, "settings", ["update"]),
  route("settings", "GET", "/settings/find/{instance}", 200, "settings", ["get"]),

  route("proxy", "POST", "/proxy/set/{instance}", 201, "proxy", ["set"]),
  route("proxy", "GET", "/proxy/find/{instance}", 200, "proxy", ["find"]),

  route("label", "GET", "/label/findLabels/{instance}", 200, "labels", ["find"]),
  route("label", "POST", "/label/handleLabel/{instance}", 200, "labels", ["handle"]),

  route("webhook", "POST", "/webhook/set/{instance}", 201, "webhooks", [
    "set",
    "update",
    "enable",
    "disable",
    "secure",
  ]),
  route("webhook", "GET", "/webhook/find/{instance}", 200, "webhooks", ["find"]),

  route("s3", "POST", "/s3/getMedia/{instance}", 201, "s3", ["getMedia"], true),
  route("s3", "POST", "/s3/getMediaUrl/{instance}", 201, "s3", ["getMediaUrl"], true),
]);

/**
 * The route table as a Markdown table (what docs/resources.md shows).
 *
 * @example
 * ```ts
 * import { renderRoutesMarkdown, ROUTES } from "./routes.ts";
 * console.log(renderRoutesMarkdown(ROUTES));
 * ```
 */
export function renderRoutesMarkdown(routes: readonly RouteEntry[] = ROUTES): string {
  const lines = [
    "| # | Verb | Route | Code | Library methods | Retried when unclear |",
    "|---|---|---|---|---|---|",
  ];
  routes.forEach((entry, index) => {
    const methods = entry.methods.map((name) =>
      `\`${name.includes(".") ? name.replace(".", "().") : `${entry.resource}().${name}`}()\``
    ).join(", ");
    const path = entry.path.replace("{instance}", ":instance");
    lines.push(
      `| ${index + 1} | ${entry.method} | \`${path}\` | ${entry.status} | ${methods} | ${
        entry.idempotent ? "yes" : "no"
      } |`,
    );
  });
  return lines.join("\n") + "\n";
}
