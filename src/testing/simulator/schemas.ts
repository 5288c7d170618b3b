/**
 * Request schemas of the reference server (`src/validate/*.schema.ts`) other than `/message/*` (see
 * `message_schemas.ts`), keyword order kept so that errors come out in the same order.
 *
 * @module
 */

import { INSTANCE_EVENTS } from "./events.ts";
import { bool, key, number, object } from "./schema_parts.ts";
import type { Schema } from "./validate.ts";

/** `/instance/create`: nothing required (the controller checks the rest). */
export const CREATE_INSTANCE_SCHEMA: Schema = {
  type: "object",
  properties: {
    instanceName: { type: "string" },
    token: { type: "string" },
    number: { type: "string" },
    businessId: { type: "string" },
    qrcode: bool,
    rejectCall: { type: "boolean" },
    msgCall: { type: "string" },
    groupsIgnore: { type: "boolean" },
    alwaysOnline: { type: "boolean" },
    readMessages: { type: "boolean" },
    readStatus: { type: "boolean" },
    syncFullHistory: { type: "boolean" },
  },
  notEmpty: ["instanceName"],
};

const presence: Schema = {
  type: "string",
  enum: ["unavailable", "available", "composing", "recording", "paused"],
};

/** `/instance/setPresence`. */
export const SET_PRESENCE_SCHEMA: Schema = {
  type: "object",
  properties: { presence },
  required: ["presence"],
};

/** `/call/offer`. */
export const OFFER_CALL_SCHEMA: Schema = {
  type: "object",
  properties: { number, isVideo: bool, callDuration: { type: "integer", minimum: 1, maximum: 15 } },
  required: ["number", "callDuration"],
};

const lastMessage: Schema = object({ key, messageTimestamp: { type: "integer", minLength: 1 } }, ["key"], [
  "messageTimestamp",
]);

/** `/chat/*` schemas, by operation. */
export const CHAT_SCHEMAS: Readonly<Record<string, Schema>> = {
  whatsappNumbers: {
    type: "object",
    properties: {
      numbers: {
        type: "array",
        minItems: 1,
        uniqueItems: true,
        items: { type: "string", description: '"numbers" must be an array of numeric strings' },
      },
    },
  },
  markMessageAsRead: {
    type: "object",
    properties: {
      readMessages: {
        type: "array",
        minItems: 1,
        uniqueItems: true,
        items: {
          properties: { id: { type: "string" }, fromMe: bool, remoteJid: { type: "string" } },
          required: ["id", "fromMe", "remoteJid"],
          notEmpty: ["id", "remoteJid"],
        },
      },
    },
    required: ["readMessages"],
  },
  archiveChat: {
    type: "object",
    properties: { chat: { type: "string" }, lastMessage, archive: bool },
    required: ["archive"],
  },
  markChatUnread: {
    type: "object",
    properties: { chat: { type: "string" }, lastMessage },
    required: ["lastMessage"],
  },
  deleteMessageForEveryone: object(
    {
      id: { type: "string" },
      fromMe: bool,
      remoteJid: { type: "string" },
      participant: { type: "string" },
    },
    ["id", "fromMe", "remoteJid"],
    ["id", "remoteJid", "participant"],
  ),
  fetchProfilePictureUrl: {
    type: "object",
    properties: { number: { type: "string" }, picture: { type: "string" } },
  },
  getBase64FromMediaMessage: {
    type: "object",
    properties: { message: { type: "object" }, convertToMp4: { type: "boolean" } },
  },
  updateMessage: {
    type: "object",
    properties: { number: { type: "string" }, text: { type: "string" }, key },
    notEmpty: ["number", "text", "key"],
  },
  sendPresence: {
    type: "object",
    properties: { number, delay: { type: "number" }, presence },
    required: ["number", "presence", "delay"],
  },
  updateBlockStatus: object({
    number: { type: "string" },
    status: { type: "string", enum: ["block", "unblock"] },
  }, ["number", "status"]),
  findContacts: {
    type: "object",
    properties: {
      where: {
        type: "object",
        properties: {
          _id: { type: "string", minLength: 1 },
          pushName: { type: "string", minLength: 1 },
          id: { type: "string", minLength: 1 },
          remoteJid: { type: "string", minLength: 1 },
        },
        notEmpty: ["_id", "id", "pushName", "remoteJid"],
      },
    },
  },
  findMessages: {
    type: "object",
    properties: {
      where: {
        type: "object",
        properties: {
          _id: { type: "string", minLength: 1 },
          key: { type: "object" },
          message: { type: "object" },
        },
        notEmpty: ["_id"],
      },
      limit: { type: "integer" },
    },
  },
  findStatusMessage: {
    type: "object",
    properties: {
      where: {
        type: "object",
        properties: {
          _id: { type: "string" },
          remoteJid: { type: "string" },
          id: { type: "string" },
          fromMe: bool,
          participant: { type: "string" },
          status: {
            type: "string",
            enum: ["ERROR", "PENDING", "SERVER_ACK", "DELIVERY_ACK", "READ", "PLAYED"],
          },
        },
        notEmpty: ["_id", "remoteJid", "id", "status"],
      },
      limit: { type: "integer" },
    },
  },
  fetchProfile: { type: "object", properties: { number: { type: "string" } } },
  fetchBusinessProfile: { type: "object", properties: { number: { type: "string" } } },
  updateProfileName: { type: "object", properties: { name: { type: "string" } }, notEmpty: ["name"] },
  updateProfileStatus: { type: "object", properties: { status: { type: "string" } }, notEmpty: ["status"] },
  updateProfilePicture: {
    type: "object",
    properties: { number: { type: "string" }, picture: { type: "string" } },
  },
  updatePrivacySettings: (() => {
    const who = { type: "string", enum: ["all", "contacts", "contact_blacklist", "none"] };
    const names = ["readreceipts", "profile", "status", "online", "last", "groupadd"];
    return object({
      readreceipts: { type: "string", enum: ["all", "none"] },
      profile: who,
      status: who,
      online: { type: "string", enum: ["all", "match_last_seen"] },
      last: who,
      groupadd: who,
    }, names) satisfies Schema;
  })(),
};

const participants: Schema = {
  type: "array",
  minItems: 1,
  uniqueItems: true,
  items: {
    type: "string",
    minLength: 10,
    pattern: "\\d+",
    description: '"participants" must be an array of numeric strings',
  },
};

/** `/group/*` schemas, by operation. */
export const GROUP_SCHEMAS: Readonly<Record<string, Schema>> = {
  create: object(
    {
      subject: { type: "string" },
      description: { type: "string" },
      profilePicture: { type: "string" },
      promoteParticipants: bool,
      participants,
    },
    ["subject", "participants"],
    ["subject", "description", "profilePicture"],
  ),
  groupJid: object({ groupJid: { type: "string", pattern: "^[\\d-]+@g.us$" } }, ["groupJid"]),
  getParticipants: object({ getParticipants: { type: "string", enum: ["true", "false"] } }, [
    "getParticipants",
  ]),
  sendInvite: object({
    groupJid: { type: "string" },
    description: { type: "string" },
    numbers: {
      type: "array",
      minItems: 1,
      uniqueItems: true,
      items: {
        type: "string",
        minLength: 10,
        pattern: "\\d+",
        description: '"numbers" must be an array of numeric strings',
      },
    },
  }, ["groupJid", "description", "numbers"]),
  inviteCode: object({ inviteCode: { type: "string", pattern: "^[a-zA-Z0-9]{22}$" } }, ["inviteCode"]),
  updateParticipant: object(
    {
      groupJid: { type: "string" },
      action: { type: "string", enum: ["add", "remove", "promote", "demote"] },
      participants,
    },
    ["groupJid", "action", "participants"],
    ["groupJid", "action"],
  ),
  updateSetting: object({
    groupJid: { type: "string" },
    action: { type: "string", enum: ["announcement", "not_announcement", "locked", "unlocked"] },
  }, ["groupJid", "action"]),
  toggleEphemeral: object({
    groupJid: { type: "string" },
    expiration: { type: "number", enum: [0, 86400, 604800, 7776000] },
  }, ["groupJid", "expiration"]),
  updateGroupPicture: object({ groupJid: { type: "string" }, image: { type: "string" } }, [
    "groupJid",
    "image",
  ]),
  updateGroupSubject: object({ groupJid: { type: "string" }, subject: { type: "string" } }, [
    "groupJid",
    "subject",
  ]),
  updateGroupDescription: object({ groupJid: { type: "string" }, description: { type: "string" } }, [
    "groupJid",
    "description",
  ]),
  leaveGroup: {},
};

/** `/webhook/set`: the body is wrapped in `webhook`. */
export const WEBHOOK_SCHEMA: Schema = {
  type: "object",
  properties: {
    webhook: object({
      enabled: { type: "boolean" },
      url: { type: "string" },
      headers: { type: "object" },
      byEvents: { type: "boolean" },
      base64: { type: "boolean" },
      events: { type: "array", minItems: 0, items: { type: "string", enum: [...INSTANCE_EVENTS] } },
    }, ["enabled", "url"]),
  },
  required: ["webhook"],
};

const SETTINGS_REQUIRED = [
  "rejectCall",
  "groupsIgnore",
  "alwaysOnline",
  "readMessages",
  "readStatus",
  "syncFullHistory",
];

/** `/settings/set`. */
export const SETTINGS_SCHEMA: Schema = object({
  rejectCall: { type: "boolean" },
  msgCall: { type: "string" },
  groupsIgnore: { type: "boolean" },
  alwaysOnline: { type: "boolean" },
  readMessages: { type: "boolean" },
  readStatus: { type: "boolean" },
  syncFullHistory: { type: "boolean" },
  wavoipToken: { type: "string" },
}, SETTINGS_REQUIRED);

/** `/proxy/set`. */
export const PROXY_SCHEMA: Schema = object({
  enabled: bool,
  host: { type: "string" },
  port: { type: "string" },
  protocol: { type: "string" },
  username: { type: "string" },
  password: { type: "string" },
}, ["enabled", "host", "port", "protocol"]);

/** `/label/handleLabel`. */
export const HANDLE_LABEL_SCHEMA: Schema = object({
  number,
  labelId: { type: "string" },
  action: { type: "string", enum: ["add", "remove"] },
}, ["number", "labelId", "action"]);

/** `/template/create`. */
export const TEMPLATE_SCHEMA: Schema = {
  type: "object",
  properties: {
    name: { type: "string" },
    category: { type: "string", enum: ["AUTHENTICATION", "MARKETING", "UTILITY"] },
    allowCategoryChange: { type: "boolean" },
    language: { type: "string" },
    components: { type: "array" },
    webhookUrl: { type: "string" },
  },
  required: ["name", "category", "language", "components"],
};

/** `/business/getCatalog` and `/business/getCollections`. */
export const CATALOG_SCHEMA: Schema = {
  type: "object",
  properties: { number: { type: "string" }, limit: { type: "number" } },
};

/** `/s3/getMedia`. */
export const S3_MEDIA_SCHEMA: Schema = {
  type: "object",
  properties: { id: { type: "string" }, type: { type: "string" }, messageId: { type: "integer" } },
};

/** `/s3/getMediaUrl`. */
export const S3_URL_SCHEMA: Schema = {
  type: "object",
  properties: { id: { type: "string" }, expiry: { type: "string" } },
  required: ["id"],
};
