/**
 * `/group/*` routes (contract §2.6). Most run the server's `groupValidate`: `groupJid` from the body or
 * the query, `@g.us` appended, errors as `[{property, message}]`. `create` uses the plain validation.
 *
 * @module
 */

import { badRequest, type HttpError, internalArray, internalString, notFound } from "../errors.ts";
import { createJid, newGroupJid, newInviteCode } from "../jid.ts";
import { route, type RouteContext, type RouteDef } from "../route.ts";
import { ROUTE } from "../../../resources/routes.ts";
import { GROUP_SCHEMAS } from "../schemas.ts";
import type { GroupState, InstanceState } from "../state.ts";
import { checkBody, checkGroupBody } from "../validate.ts";
import { performSend } from "./send.ts";

type Failure = (...args: unknown[]) => HttpError;

/** `groupValidate`: take `groupJid`, append `@g.us`, validate; returns the JID. */
function groupJidOf(ctx: RouteContext, schema: string): string {
  let jid = ctx.body.groupJid ?? ctx.query.groupJid;
  if (!jid) {
    throw badRequest("The group id needs to be informed in the query", 'ex: "groupJid=120362@g.us"');
  }
  if (typeof jid !== "string") throw internalString("groupJid.endsWith is not a function");
  if (!jid.endsWith("@g.us")) jid = `${jid}@g.us`;
  ctx.body.groupJid = jid;
  checkGroupBody(ctx.body, GROUP_SCHEMAS[schema]);
  return jid as string;
}

/** Run a Baileys group call: socket errors and unknown groups become `fail(text, error.toString())`. */
function withGroup<T>(
  ctx: RouteContext,
  jid: string,
  fail: Failure,
  text: string,
  fn: (g: GroupState) => T,
): T {
  const socket = ctx.core.socketErrorText(ctx.instance, "groupMetadata");
  if (socket) throw fail(text, socket);
  const group = ctx.instance.groups.get(jid);
  if (!group) throw fail(text, "Error: item-not-found");
  return fn(group);
}

/** Baileys `GroupMetadata` plus the fields `findGroupInfos` adds. */
export function groupInfo(group: GroupState, withParticipants = true): Record<string, unknown> {
  const info: Record<string, unknown> = {
    id: group.id,
    subject: group.subject,
    subjectOwner: group.subjectOwner,
    subjectTime: group.subjectTime,
    pictureUrl: group.pictureUrl,
    size: group.participants.length,
    creation: group.creation,
    owner: group.owner,
    desc: group.desc,
    descId: group.descId,
    restrict: group.restrict,
    announce: group.announce,
    isCommunity: false,
    isCommunityAnnounce: false,
    linkedParent: null,
  };
  if (withParticipants) info.participants = group.participants.map((p) => ({ ...p }));
  return info;
}

function create(ctx: RouteContext): unknown {
  checkBody(ctx.body, GROUP_SCHEMAS.create);
  const { core, instance } = ctx;
  const socket = core.socketErrorText(instance, "groupCreate");
  if (socket) throw internalArray("Error creating group", socket);
  const now = core.seconds();
  const owner = instance.ownerJid ?? "";
  const members = (ctx.body.participants as string[]).map(createJid);
  const promote = ctx.body.promoteParticipants === true;
  const group: GroupState = {
    id: newGroupJid(),
    subject: String(ctx.body.subject),
    subjectOwner: owner,
    subjectTime: now,
    pictureUrl: null,
    creation: now,
    owner,
    desc: typeof ctx.body.description === "string" ? ctx.body.description : "",
    descId: crypto.randomUUID().replace(/-/g, "").slice(0, 20).toUpperCase(),
    restrict: false,
    announce: false,
    ephemeralDuration: 0,
    inviteCode: newInviteCode(),
    participants: [
      { id: owner, admin: "superadmin" },
      ...members.filter((m) => m !== owner).map((id) => ({ id, admin: promote ? "admin" as const : null })),
    ],
  };
  instance.groups.set(group.id, group);
  core.touchChat(instance, group.id).name = group.subject;
  core.emit(instance, "groups.upsert", [groupInfo(group)]);
  return groupInfo(group);
}

function emitUpdate(ctx: RouteContext, group: GroupState, change: Record<string, unknown>): void {
  // Sent as GROUPS_UPDATE, a name missing from the enum: it only reaches webhooks created with it.
  ctx.core.emit(ctx.instance, "groups.update", [{ id: group.id, ...change }]);
}

function update(schema: string, text: string, apply: (ctx: RouteContext, g: GroupState) => void) {
  return (ctx: RouteContext): unknown => {
    const jid = groupJidOf(ctx, schema);
    return withGroup(ctx, jid, internalArray, text, (group) => {
      apply(ctx, group);
      return { update: "success" };
    });
  };
}

function updateParticipant(ctx: RouteContext): unknown {
  const jid = groupJidOf(ctx, "updateParticipant");
  return withGroup(ctx, jid, badRequest, "Error updating participants", (group) => {
    const action = ctx.body.action as string;
    const jids = (ctx.body.participants as string[]).map(createJid);
    for (const id of jids) {
      const existing = group.participants.find((p) => p.id === id);
      if (action === "add" && !existing) group.participants.push({ id, admin: null });
      if (action === "remove") group.participants = group.participants.filter((p) => p.id !== id);
      if (action === "promote" && existing) existing.admin = "admin";
      if (action === "demote" && existing) existing.admin = null;
    }
    ctx.core.emit(ctx.instance, "group-participants.update", {
      id: group.id,
      author: ctx.instance.ownerJid,
      participants: jids,
      action,
    });
    return { updateParticipants: jids.map((id) => ({ status: "200", jid: id })) };
  });
}

function updateSetting(ctx: RouteContext): unknown {
  const jid = groupJidOf(ctx, "updateSetting");
  return withGroup(ctx, jid, badRequest, "Error updating setting", (group) => {
    const action = ctx.body.action;
    if (action === "announcement" || action === "not_announcement") {
      group.announce = action === "announcement";
    }
    if (action === "locked" || action === "unlocked") group.restrict = action === "locked";
    emitUpdate(ctx, group, { announce: group.announce, restrict: group.restrict });
    // Baileys' groupSettingUpdate resolves to undefined, so the body is `{}`.
    return { updateSetting: undefined };
  });
}

function toggleEphemeral(ctx: RouteContext): unknown {
  const jid = groupJidOf(ctx, "toggleEphemeral");
  return withGroup(ctx, jid, badRequest, "Error updating setting", (group) => {
    group.ephemeralDuration = Number(ctx.body.expiration);
    return { success: true };
  });
}

function findByInvite(instance: InstanceState, code: string): GroupState | undefined {
  return [...instance.groups.values()].find((g) => g.inviteCode === code);
}

/** `inviteCodeValidate`: the invite code comes from the query. */
function inviteCodeOf(ctx: RouteContext): string {
  const code = ctx.query.inviteCode;
  if (!code) {
    throw badRequest(
      "The group invite code id needs to be informed in the query",
      'ex: "inviteCode=F1EX5QZxO181L3TMVP31gY" (Obtained from group join link)',
    );
  }
  ctx.body.inviteCode = code;
  checkGroupBody(ctx.body, GROUP_SCHEMAS.inviteCode);
  const socket = ctx.core.socketErrorText(ctx.instance, "groupGetInviteInfo");
  if (socket) throw notFound("No invite info", socket);
  return code;
}

function fetchAllGroups(ctx: RouteContext): unknown {
  const flag = ctx.query.getParticipants;
  if (!flag) throw badRequest("The getParticipants needs to be informed in the query");
  ctx.body.getParticipants = flag;
  checkGroupBody(ctx.body, GROUP_SCHEMAS.getParticipants);
  const socket = ctx.core.socketErrorText(ctx.instance, "groupFetchAllParticipating");
  if (socket) throw notFound("Error fetching group", socket);
  return [...ctx.instance.groups.values()].map((g) => groupInfo(g, flag === "true"));
}

function sendInvite(ctx: RouteContext): unknown {
  // groupNoValidate: the body as is, no @g.us completion.
  checkGroupBody(ctx.body, GROUP_SCHEMAS.sendInvite);
  const jid = String(ctx.body.groupJid);
  return withGroup(ctx, jid, notFound, "No send invite", (group) => {
    const inviteUrl = `https://chat.whatsapp.com/${group.inviteCode}`;
    const text = `${ctx.body.description}\n\n${inviteUrl}`;
    for (const number of ctx.body.numbers as string[]) {
      performSend(ctx, "sendInvite", number, {
        message: { conversation: text },
        messageType: "conversation",
        text,
      });
    }
    return { send: true, inviteUrl };
  });
}

/** The 16 group routes. */
export const GROUP_ROUTES: readonly RouteDef[] = [
  route(ROUTE.group.create, create),
  route(
    ROUTE.group.updateGroupSubject,
    update("updateGroupSubject", "Error updating group subject", (ctx, g) => {
      g.subject = String(ctx.body.subject);
      g.subjectOwner = ctx.instance.ownerJid ?? "";
      g.subjectTime = ctx.core.seconds();
      emitUpdate(ctx, g, { subject: g.subject });
    }),
  ),
  route(
    ROUTE.group.updateGroupPicture,
    update("updateGroupPicture", "Error update group picture", (ctx, g) => {
      const image = String(ctx.body.image);
      g.pictureUrl = /^https?:\/\//.test(image)
        ? image
        : `https://pps.whatsapp.net/v/${crypto.randomUUID()}.jpg`;
    }),
  ),
  route(
    ROUTE.group.updateGroupDescription,
    update("updateGroupDescription", "Error updating group description", (ctx, g) => {
      g.desc = String(ctx.body.description);
      g.descId = crypto.randomUUID().replace(/-/g, "").slice(0, 20).toUpperCase();
      emitUpdate(ctx, g, { desc: g.desc });
    }),
  ),
  route(ROUTE.group.findGroupInfos, (ctx) => {
    const jid = groupJidOf(ctx, "groupJid");
    return withGroup(ctx, jid, notFound, "Error fetching group", (g) => groupInfo(g));
  }),
  route(ROUTE.group.fetchAllGroups, fetchAllGroups),
  route(ROUTE.group.participants, (ctx) => {
    const jid = groupJidOf(ctx, "groupJid");
    return withGroup(ctx, jid, notFound, "No participants", (g) => ({
      participants: g.participants.map((p) => {
        const contact = ctx.instance.contacts.get(p.id);
        return { ...p, name: contact?.pushName ?? undefined, imgUrl: contact?.profilePicUrl ?? undefined };
      }),
    }));
  }),
  route(ROUTE.group.inviteCode, (ctx) => {
    const jid = groupJidOf(ctx, "groupJid");
    return withGroup(ctx, jid, notFound, "No invite code", (g) => ({
      inviteUrl: `https://chat.whatsapp.com/${g.inviteCode}`,
      inviteCode: g.inviteCode,
    }));
  }),
  route(ROUTE.group.inviteInfo, (ctx) => {
    const code = inviteCodeOf(ctx);
    const group = findByInvite(ctx.instance, code);
    if (!group) throw notFound("No invite info", code);
    return groupInfo(group);
  }),
  route(ROUTE.group.acceptInviteCode, (ctx) => {
    const code = inviteCodeOf(ctx);
    const group = findByInvite(ctx.instance, code);
    if (!group) throw notFound("Accept invite error", "Error: item-not-found");
    const me = ctx.instance.ownerJid ?? "";
    if (!group.participants.some((p) => p.id === me)) group.participants.push({ id: me, admin: null });
    return { accepted: true, groupJid: group.id };
  }),
  route(ROUTE.group.sendInvite, sendInvite),
  route(ROUTE.group.revokeInviteCode, (ctx) => {
    const jid = groupJidOf(ctx, "groupJid");
    return withGroup(ctx, jid, notFound, "Revoke error", (g) => {
      g.inviteCode = newInviteCode();
      return { revoked: true, inviteCode: g.inviteCode };
    });
  }),
  route(ROUTE.group.updateParticipant, updateParticipant),
  route(ROUTE.group.updateSetting, updateSetting),
  route(ROUTE.group.toggleEphemeral, toggleEphemeral),
  route(ROUTE.group.leaveGroup, (ctx) => {
    const jid = groupJidOf(ctx, "leaveGroup");
    return withGroup(ctx, jid, badRequest, "Unable to leave the group", () => {
      ctx.instance.groups.delete(jid);
      return { groupJid: jid, leave: true };
    });
  }),
];
