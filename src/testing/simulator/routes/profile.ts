/**
 * The simulated profile routes under `/chat/*`: profiles, name, status, picture, privacy settings.
 *
 * @module
 */

import { badRequest, internalArray, internalString } from "../errors.ts";
import { createJid } from "../jid.ts";
import { route, type RouteContext, type RouteDef, socketOr500 } from "../route.ts";
import { ROUTE } from "../../../resources/routes.ts";
import { CHAT_SCHEMAS } from "../schemas.ts";
import { checkBody } from "../validate.ts";

function fetchProfilePictureUrl(ctx: RouteContext): unknown {
  checkBody(ctx.body, CHAT_SCHEMAS.fetchProfilePictureUrl);
  const number = ctx.body.number;
  if (typeof number !== "string") {
    throw internalString("Cannot read properties of undefined (reading 'replace')");
  }
  const jid = createJid(number);
  const picture = jid === ctx.instance.ownerJid
    ? ctx.instance.profilePicUrl
    : ctx.instance.contacts.get(jid)?.profilePicUrl ?? null;
  // The server swallows socket errors here and answers null.
  return { wuid: jid, profilePictureUrl: ctx.instance.state === "open" ? picture : null };
}

function fetchBusinessProfile(ctx: RouteContext): unknown {
  checkBody(ctx.body, CHAT_SCHEMAS.fetchBusinessProfile);
  socketOr500(ctx, "Error updating profile name", "getBusinessProfile");
  const number = typeof ctx.body.number === "string" ? ctx.body.number : String(ctx.instance.ownerJid);
  const check = ctx.core.onWhatsApp(ctx.instance, number);
  return { isBusiness: false, message: "Not is business profile", ...check };
}

function fetchProfile(ctx: RouteContext): unknown {
  checkBody(ctx.body, CHAT_SCHEMAS.fetchProfile);
  const { core, instance } = ctx;
  core.requireSocket(instance, "onWhatsApp");
  const number = ctx.body.number;
  if (typeof number !== "string" || number === "") {
    return {
      wuid: instance.ownerJid,
      name: instance.profileName,
      numberExists: true,
      picture: instance.profilePicUrl,
      status: instance.state,
      isBusiness: false,
    };
  }
  const check = core.onWhatsApp(instance, number);
  if (!check.exists) throw badRequest(check);
  const contact = instance.contacts.get(check.jid);
  return {
    wuid: check.jid,
    name: contact?.pushName ?? undefined,
    numberExists: true,
    picture: contact?.profilePicUrl ?? null,
    status: "Hey there! I am using WhatsApp.",
    isBusiness: false,
  };
}

/** `/chat/<operation>`: the body checked against the operation's schema (when it has one), then the socket. */
function profileUpdate(
  operation: "updateProfileName" | "updateProfileStatus" | "updateProfilePicture" | "removeProfilePicture",
  text: string,
  apply: (ctx: RouteContext) => void,
): RouteDef {
  return route(ROUTE.chat[operation], (ctx) => {
    if (Object.hasOwn(CHAT_SCHEMAS, operation)) checkBody(ctx.body, CHAT_SCHEMAS[operation]);
    socketOr500(ctx, text);
    apply(ctx);
    return { update: "success" };
  });
}

function updatePrivacySettings(ctx: RouteContext): unknown {
  checkBody(ctx.body, CHAT_SCHEMAS.updatePrivacySettings);
  socketOr500(ctx, "Error updating privacy settings", "updateReadReceiptsPrivacy");
  const data: Record<string, string> = {};
  for (const name of ["readreceipts", "profile", "status", "online", "last", "groupadd"]) {
    data[name] = String(ctx.body[name]);
  }
  Object.assign(ctx.instance.privacy, data);
  return { update: "success", data };
}

function fetchPrivacySettings(ctx: RouteContext): unknown {
  ctx.core.requireSocket(ctx.instance, "fetchPrivacySettings");
  return { ...ctx.instance.privacy };
}

/** The 9 profile routes. */
export const PROFILE_ROUTES: readonly RouteDef[] = [
  route(ROUTE.chat.fetchProfilePictureUrl, fetchProfilePictureUrl),
  route(ROUTE.chat.fetchBusinessProfile, fetchBusinessProfile),
  route(ROUTE.chat.fetchProfile, fetchProfile),
  profileUpdate("updateProfileName", "Error updating profile name", (ctx) => {
    if (typeof ctx.body.name === "string") ctx.instance.profileName = ctx.body.name;
  }),
  profileUpdate("updateProfileStatus", "Error updating profile status", (ctx) => {
    if (typeof ctx.body.status === "string") ctx.instance.profileStatus = ctx.body.status;
  }),
  profileUpdate("updateProfilePicture", "Error updating profile picture", (ctx) => {
    const picture = ctx.body.picture;
    if (typeof picture !== "string" || picture === "") {
      throw internalArray("Error updating profile picture", 'TypeError: The "picture" cannot be empty');
    }
    ctx.instance.profilePicUrl = /^https?:\/\//.test(picture)
      ? picture
      : `https://pps.whatsapp.net/v/t61.24694-24/${crypto.randomUUID()}.jpg`;
  }),
  profileUpdate("removeProfilePicture", "Error removing profile picture", (ctx) => {
    ctx.instance.profilePicUrl = null;
  }),
  route(ROUTE.chat.fetchPrivacySettings, fetchPrivacySettings),
  route(ROUTE.chat.updatePrivacySettings, updatePrivacySettings),
];
