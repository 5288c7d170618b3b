/**
 * Request schemas of the reference server (`src/validate/*.schema.ts`) other than `/message/*` (see
 * `message_schemas.ts`), keyword order kept so that errors come out in the same order. A body declared in
 * `src/dto/` or `src/resources/bodies.ts` (the `BodySpec` its request object or resource validates with) has
 * its schema derived from that declaration; the others are written here.
 *
 * @module
 */

import { CALL_OFFER_BODY } from "../../dto/call_offer.ts";
import { CREATE_GROUP_BODY } from "../../dto/create_group.ts";
import { CREATE_INSTANCE_BODY } from "../../dto/create_instance.ts";
import { CREATE_TEMPLATE_BODY } from "../../dto/create_template.ts";
import { PRIVACY_SETTINGS_BODY } from "../../dto/privacy_settings.ts";
import { PROXY_BODY } from "../../dto/proxy.ts";
import { SETTINGS_BODY } from "../../dto/settings.ts";
import { WEBHOOK_CONFIG_BODY } from "../../dto/webhook_config.ts";
import * as BODIES from "../../resources/bodies.ts";
import { schemaOf } from "./body_schema.ts";
import { bool, key, object, whereQuery } from "./schema_parts.ts";
import type { Schema } from "./validate.ts";

/** `/instance/create`: nothing required (the controller checks the rest). */
export const CREATE_INSTANCE_SCHEMA: Schema = schemaOf(CREATE_INSTANCE_BODY);

/** `/instance/setPresence`. */
export const SET_PRESENCE_SCHEMA: Schema = schemaOf(BODIES.SET_PRESENCE_BODY);

/** `/call/offer`. */
export const OFFER_CALL_SCHEMA: Schema = schemaOf(CALL_OFFER_BODY);

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
  sendPresence: schemaOf(BODIES.SEND_PRESENCE_BODY),
  updateBlockStatus: schemaOf(BODIES.BLOCK_STATUS_BODY),
  findContacts: whereQuery(
    {
      _id: { type: "string", minLength: 1 },
      pushName: { type: "string", minLength: 1 },
      id: { type: "string", minLength: 1 },
      remoteJid: { type: "string", minLength: 1 },
    },
    ["_id", "id", "pushName", "remoteJid"],
    false,
  ),
  findMessages: whereQuery({
    _id: { type: "string", minLength: 1 },
    key: { type: "object" },
    message: { type: "object" },
  }, ["_id"]),
  findStatusMessage: whereQuery({
    _id: { type: "string" },
    remoteJid: { type: "string" },
    id: { type: "string" },
    fromMe: bool,
    participant: { type: "string" },
    status: {
      type: "string",
      enum: ["ERROR", "PENDING", "SERVER_ACK", "DELIVERY_ACK", "READ", "PLAYED"],
    },
  }, ["_id", "remoteJid", "id", "status"]),
  fetchProfile: schemaOf(BODIES.PROFILE_LOOKUP_BODY),
  fetchBusinessProfile: schemaOf(BODIES.BUSINESS_PROFILE_BODY),
  updateProfileName: schemaOf(BODIES.PROFILE_NAME_BODY),
  updateProfileStatus: schemaOf(BODIES.PROFILE_STATUS_BODY),
  updateProfilePicture: {
    type: "object",
    properties: { number: { type: "string" }, picture: { type: "string" } },
  },
  updatePrivacySettings: schemaOf(PRIVACY_SETTINGS_BODY),
};

/** `/group/*` schemas, by operation. */
export const GROUP_SCHEMAS: Readonly<Record<string, Schema>> = {
  create: schemaOf(CREATE_GROUP_BODY),
  groupJid: schemaOf(BODIES.GROUP_JID_BODY),
  getParticipants: object({ getParticipants: { type: "string", enum: ["true", "false"] } }, [
    "getParticipants",
  ]),
  sendInvite: schemaOf(BODIES.GROUP_INVITE_BODY),
  inviteCode: object({ inviteCode: { type: "string", pattern: "^[a-zA-Z0-9]{22}$" } }, ["inviteCode"]),
  updateParticipant: schemaOf(BODIES.GROUP_PARTICIPANTS_BODY),
  updateSetting: schemaOf(BODIES.GROUP_SETTING_BODY),
  toggleEphemeral: schemaOf(BODIES.GROUP_EPHEMERAL_BODY),
  updateGroupPicture: schemaOf(BODIES.GROUP_PICTURE_BODY),
  updateGroupSubject: schemaOf(BODIES.GROUP_SUBJECT_BODY),
  updateGroupDescription: schemaOf(BODIES.GROUP_DESCRIPTION_BODY),
  leaveGroup: {},
};

/** `/webhook/set`: the body is wrapped in `webhook`. */
export const WEBHOOK_SCHEMA: Schema = schemaOf(WEBHOOK_CONFIG_BODY);

/** `/settings/set`. */
export const SETTINGS_SCHEMA: Schema = schemaOf(SETTINGS_BODY);

/** `/proxy/set`. */
export const PROXY_SCHEMA: Schema = schemaOf(PROXY_BODY);

/** `/label/handleLabel`. */
export const HANDLE_LABEL_SCHEMA: Schema = schemaOf(BODIES.HANDLE_LABEL_BODY);

/** `/template/create`. */
export const TEMPLATE_SCHEMA: Schema = schemaOf(CREATE_TEMPLATE_BODY);

/** `/business/getCatalog` and `/business/getCollections`. */
export const CATALOG_SCHEMA: Schema = schemaOf(BODIES.CATALOG_BODY);

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
