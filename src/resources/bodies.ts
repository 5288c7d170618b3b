/**
 * Body declarations of the resources without a request object (also the simulator's schema source).
 *
 * @module
 */

import { type BodySpec, type FieldSpec, RECIPIENT_FIELD } from "../dto/body_spec.ts";
import { PARTICIPANTS_SCHEMA, readParticipants } from "../dto/create_group.ts";
import { readGroupJid } from "./args.ts";
import type { GroupSettingAction, ParticipantAction, Presence } from "./types.ts";
import { MAX_SERVER_DELAY_MS } from "../timing.ts";

/** Presence values of `setPresence` and `sendPresence`. */
export const PRESENCES: readonly Presence[] = [
  "unavailable",
  "available",
  "composing",
  "recording",
  "paused",
];

/** The body of `/instance/setPresence`. */
export const SET_PRESENCE_BODY: BodySpec = {
  what: "presence",
  fields: { presence: { type: "string", required: true, values: PRESENCES } },
};

/** The body of `/chat/sendPresence`: `delay` is how long the presence shows, in ms. */
export const SEND_PRESENCE_BODY: BodySpec = {
  what: "presence",
  serverRequiredOrder: ["number", "presence", "delay"],
  fields: {
    number: RECIPIENT_FIELD,
    delay: { type: "integer", required: true, min: 0, max: MAX_SERVER_DELAY_MS, server: { type: "number" } },
    presence: SET_PRESENCE_BODY.fields.presence,
  },
};

/** The body of `/chat/updateBlockStatus` (the server's schema gives `number` no format message). */
export const BLOCK_STATUS_BODY: BodySpec = {
  what: "block status",
  requiredNotEmpty: true,
  fields: {
    number: { ...RECIPIENT_FIELD, server: { type: "string" } },
    status: { type: "string", required: true, values: ["block", "unblock"] },
  },
};

/** The body of `/label/handleLabel`. */
export const HANDLE_LABEL_BODY: BodySpec = {
  what: "label change",
  requiredNotEmpty: true,
  fields: {
    number: RECIPIENT_FIELD,
    labelId: { type: "string", required: true },
    action: { type: "string", required: true, values: ["add", "remove"] },
  },
};

/** Participant actions of `updateParticipant`. */
export const PARTICIPANT_ACTIONS: readonly ParticipantAction[] = ["add", "remove", "promote", "demote"];
/** Setting actions of `updateSetting`. */
export const GROUP_SETTING_ACTIONS: readonly GroupSettingAction[] = [
  "announcement",
  "not_announcement",
  "locked",
  "unlocked",
];
/** Disappearing-message timers `toggleEphemeral` accepts (seconds; 0 turns it off). */
export const EPHEMERAL_EXPIRATIONS: readonly number[] = [0, 86400, 604800, 7776000];

/** A group id, `@g.us` appended when missing; the resources send it in the query, the server reads it with the body. */
const GROUP_JID: FieldSpec = {
  type: "string",
  required: true,
  read: (problems, field, value) => readGroupJid(problems, value, field),
};

/** A group route's `groupJid` alone (the server's pattern is checked by the simulator). */
export const GROUP_JID_BODY: BodySpec = {
  what: "group id",
  requiredNotEmpty: true,
  fields: { groupJid: { ...GROUP_JID, server: { type: "string", pattern: "^[\\d-]+@g.us$" } } },
};

/** The body of `/group/updateGroupSubject` (with its `groupJid`). */
export const GROUP_SUBJECT_BODY: BodySpec = {
  what: "group subject",
  requiredNotEmpty: true,
  fields: { groupJid: GROUP_JID, subject: { type: "string", required: true } },
};

/** The body of `/group/updateGroupPicture` (with its `groupJid`): an http(s) URL or raw base64 image. */
export const GROUP_PICTURE_BODY: BodySpec = {
  what: "group picture",
  requiredNotEmpty: true,
  fields: { groupJid: GROUP_JID, image: { type: "string", required: true, media: true } },
};

/** The body of `/group/updateGroupDescription` (with its `groupJid`). */
export const GROUP_DESCRIPTION_BODY: BodySpec = {
  what: "group description",
  requiredNotEmpty: true,
  fields: { groupJid: GROUP_JID, description: { type: "string", required: true } },
};

/** The body of `/group/sendInvite`: the group, a text and the numbers to invite. */
export const GROUP_INVITE_BODY: BodySpec = {
  what: "group invite",
  requiredNotEmpty: true,
  fields: {
    groupJid: GROUP_JID,
    description: { type: "string", required: true },
    numbers: {
      type: "array",
      required: true,
      read: readParticipants,
      server: {
        ...PARTICIPANTS_SCHEMA,
        items: { ...PARTICIPANTS_SCHEMA.items, description: '"numbers" must be an array of numeric strings' },
      },
    },
  },
};

/** The body of `/group/updateParticipant` (with its `groupJid`). */
export const GROUP_PARTICIPANTS_BODY: BodySpec = {
  what: "participant update",
  fields: {
    groupJid: { ...GROUP_JID, serverNotEmpty: true },
    action: { type: "string", required: true, values: PARTICIPANT_ACTIONS, serverNotEmpty: true },
    participants: { type: "array", required: true, read: readParticipants, server: PARTICIPANTS_SCHEMA },
  },
};

/** The body of `/group/updateSetting` (with its `groupJid`). */
export const GROUP_SETTING_BODY: BodySpec = {
  what: "group setting",
  requiredNotEmpty: true,
  fields: { groupJid: GROUP_JID, action: { type: "string", required: true, values: GROUP_SETTING_ACTIONS } },
};

/** The body of `/group/toggleEphemeral` (with its `groupJid`): the timer in seconds. */
export const GROUP_EPHEMERAL_BODY: BodySpec = {
  what: "group ephemeral",
  requiredNotEmpty: true,
  fields: {
    groupJid: GROUP_JID,
    expiration: { type: "number", required: true, values: EPHEMERAL_EXPIRATIONS },
  },
};

const OPTIONAL_NUMBER: FieldSpec = { type: "string", recipient: true, server: { type: "string" } };

/** The body of `/chat/fetchProfile`: whose profile (default: the instance's own). */
export const PROFILE_LOOKUP_BODY: BodySpec = { what: "profile lookup", fields: { number: OPTIONAL_NUMBER } };

/** The body of `/chat/fetchBusinessProfile`: whose business profile (required by the library). */
export const BUSINESS_PROFILE_BODY: BodySpec = {
  what: "business profile lookup",
  fields: { number: { ...OPTIONAL_NUMBER, required: true, serverRequired: false } },
};

/** The body of `/chat/updateProfileName`. */
export const PROFILE_NAME_BODY: BodySpec = {
  what: "profile name",
  fields: { name: { type: "string", required: true, serverRequired: false, serverNotEmpty: true } },
};

/** The body of `/chat/updateProfileStatus`. */
export const PROFILE_STATUS_BODY: BodySpec = {
  what: "profile status",
  fields: { status: { type: "string", required: true, serverRequired: false, serverNotEmpty: true } },
};

/** The body of `/business/getCatalog` and `/business/getCollections`: whose catalog, and how many items. */
export const CATALOG_BODY: BodySpec = {
  what: "catalog query",
  fields: { number: OPTIONAL_NUMBER, limit: { type: "integer", min: 1, server: { type: "number" } } },
};
