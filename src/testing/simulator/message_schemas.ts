/**
 * The reference server's `/message/*` request schemas (`src/validate/message.schema.ts`), keyword order kept
 * so that errors come out in the same order.
 *
 * @module
 */

import { bool, common, key, number, object } from "./schema_parts.ts";
import type { Schema } from "./validate.ts";

function send(properties: Record<string, Schema>, required: string[]): Schema {
  return { type: "object", properties: { number, ...properties, ...common }, required };
}

/** `/message/*` schemas, by operation. */
export const MESSAGE_SCHEMAS: Readonly<Record<string, Schema>> = {
  sendText: send({ text: { type: "string" }, linkPreview: { type: "boolean" } }, ["number", "text"]),
  sendMedia: send({
    mediatype: { type: "string", enum: ["image", "document", "video", "audio"] },
    mimetype: { type: "string" },
    media: { type: "string" },
    fileName: { type: "string" },
    caption: { type: "string" },
  }, ["number", "mediatype"]),
  sendPtv: send({ video: { type: "string" } }, ["number"]),
  sendWhatsAppAudio: send({ audio: { type: "string" } }, ["number"]),
  sendSticker: send({ sticker: { type: "string" } }, ["number"]),
  sendLocation: send({
    latitude: { type: "number" },
    longitude: { type: "number" },
    name: { type: "string" },
    address: { type: "string" },
  }, ["number", "latitude", "longitude", "name", "address"]),
  sendContact: {
    type: "object",
    properties: {
      number,
      contact: {
        type: "array",
        items: object(
          {
            fullName: { type: "string" },
            wuid: {
              type: "string",
              minLength: 10,
              pattern: "\\d+",
              description: '"wuid" must be a numeric string',
            },
            phoneNumber: { type: "string", minLength: 10 },
            organization: { type: "string" },
            email: { type: "string" },
            url: { type: "string" },
          },
          ["fullName", "phoneNumber"],
          ["fullName"],
        ),
        minItems: 1,
        uniqueItems: true,
      },
    },
    required: ["number", "contact"],
  },
  sendReaction: {
    type: "object",
    properties: { key, reaction: { type: "string" } },
    required: ["key", "reaction"],
  },
  sendPoll: send({
    name: { type: "string" },
    selectableCount: { type: "integer", minimum: 0, maximum: 10 },
    values: { type: "array", minItems: 2, maxItems: 10, uniqueItems: true, items: { type: "string" } },
  }, ["number", "name", "selectableCount", "values"]),
  sendList: send({
    title: { type: "string" },
    description: { type: "string" },
    footerText: { type: "string" },
    buttonText: { type: "string" },
    sections: {
      type: "array",
      minItems: 1,
      uniqueItems: true,
      items: object(
        {
          title: { type: "string" },
          rows: {
            type: "array",
            minItems: 1,
            uniqueItems: true,
            items: object(
              {
                title: { type: "string" },
                description: { type: "string" },
                rowId: { type: "string" },
              },
              ["title", "rowId"],
              ["title", "description", "rowId"],
            ),
          },
        },
        ["title", "rows"],
        ["title"],
      ),
    },
  }, ["number", "title", "footerText", "buttonText", "sections"]),
  sendButtons: send({
    thumbnailUrl: { type: "string" },
    title: { type: "string" },
    description: { type: "string" },
    footer: { type: "string" },
    buttons: {
      type: "array",
      items: object(
        {
          type: { type: "string", enum: ["reply", "copy", "url", "call", "pix"] },
          displayText: { type: "string" },
          id: { type: "string" },
          url: { type: "string" },
          phoneNumber: { type: "string" },
          currency: { type: "string" },
          name: { type: "string" },
          keyType: { type: "string", enum: ["phone", "email", "cpf", "cnpj", "random"] },
          key: { type: "string" },
        },
        ["type"],
        ["id", "url", "phoneNumber"],
      ),
    },
  }, ["number"]),
  sendStatus: {
    type: "object",
    properties: {
      type: { type: "string", enum: ["text", "image", "audio", "video"] },
      content: { type: "string" },
      caption: { type: "string" },
      backgroundColor: { type: "string" },
      font: { type: "integer", minimum: 0, maximum: 5 },
      statusJidList: {
        type: "array",
        minItems: 1,
        uniqueItems: true,
        items: {
          type: "string",
          pattern: "^\\d+",
          description: '"statusJidList" must be an array of numeric strings',
        },
      },
      allContacts: bool,
    },
    required: ["type"],
  },
  sendTemplate: {
    type: "object",
    properties: {
      number,
      name: { type: "string" },
      language: { type: "string" },
      components: { type: "array" },
      webhookUrl: { type: "string" },
    },
    required: ["name", "language"],
  },
};
