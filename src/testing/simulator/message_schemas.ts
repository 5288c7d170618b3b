/**
 * The reference server's `/message/*` request schemas (`src/validate/message.schema.ts`), each derived from the
 * body's declaration in `src/dto/` (the one its request object validates with), keyword order kept so that
 * errors come out in the same order.
 *
 * @module
 */

import { SEND_BUTTONS_BODY, SEND_LIST_BODY } from "../../dto/interactive_messages.ts";
import {
  SEND_AUDIO_BODY,
  SEND_MEDIA_BODY,
  SEND_PTV_BODY,
  SEND_STATUS_BODY,
  SEND_STICKER_BODY,
} from "../../dto/media_messages.ts";
import {
  SEND_CONTACT_BODY,
  SEND_LOCATION_BODY,
  SEND_POLL_BODY,
  SEND_REACTION_BODY,
  SEND_TEMPLATE_BODY,
} from "../../dto/structured_messages.ts";
import { SEND_TEXT_BODY } from "../../dto/text_message.ts";
import { schemaOf } from "./body_schema.ts";
import type { Schema } from "./validate.ts";

/** `/message/*` schemas, by operation. */
export const MESSAGE_SCHEMAS: Readonly<Record<string, Schema>> = {
  sendText: schemaOf(SEND_TEXT_BODY),
  sendMedia: schemaOf(SEND_MEDIA_BODY),
  sendPtv: schemaOf(SEND_PTV_BODY),
  sendWhatsAppAudio: schemaOf(SEND_AUDIO_BODY),
  sendSticker: schemaOf(SEND_STICKER_BODY),
  sendLocation: schemaOf(SEND_LOCATION_BODY),
  sendContact: schemaOf(SEND_CONTACT_BODY),
  sendReaction: schemaOf(SEND_REACTION_BODY),
  sendPoll: schemaOf(SEND_POLL_BODY),
  sendList: schemaOf(SEND_LIST_BODY),
  sendButtons: schemaOf(SEND_BUTTONS_BODY),
  sendStatus: schemaOf(SEND_STATUS_BODY),
  sendTemplate: schemaOf(SEND_TEMPLATE_BODY),
};
