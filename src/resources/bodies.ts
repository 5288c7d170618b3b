/**
 * Declarations of the bodies the resources build without a request object: the resource validates its
 * arguments with one (`readBody`), the simulator derives the server's schema of the route from it.
 *
 * @module
 */

import { type BodySpec, RECIPIENT_FIELD } from "../dto/body_spec.ts";
import type { Presence } from "./types.ts";

/**
 * Presence values of `setPresence` and `sendPresence`.
 *
 * @example
 * ```ts
 * import { PRESENCES } from "./bodies.ts";
 * PRESENCES.includes("composing"); // true
 * ```
 */
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
    delay: { type: "integer", required: true, min: 0, server: { type: "number" } },
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
