/**
 * The pieces the reference server's request schemas share: phone numbers, booleans, delays, message keys,
 * the quoted message and mentions, and the object-with-required-keys shape.
 *
 * @module
 */

import type { Schema } from "./validate.ts";

export const number: Schema = { type: "string", description: "Invalid format" };
export const bool: Schema = { type: "boolean", enum: [true, false] };
const delay: Schema = { type: "integer", description: "Enter a value in milliseconds" };
export const key: Schema = object(
  { id: { type: "string" }, remoteJid: { type: "string" }, fromMe: bool },
  ["id", "remoteJid", "fromMe"],
  ["id", "remoteJid"],
);
const quoted: Schema = {
  properties: {
    key: object({ id: { type: "string" }, remoteJid: { type: "string" }, fromMe: bool }, ["id"]),
    message: { type: "object" },
  },
};
const mentioned: Schema = {
  type: "array",
  minItems: 1,
  uniqueItems: true,
  items: { type: "string", pattern: "^\\d+", description: '"mentioned" must be an array of numeric strings' },
};
export const common: Record<string, Schema> = {
  delay,
  quoted,
  mentionsEveryOne: bool,
  everyOne: bool,
  mentioned,
};

/** An object with `required` keys, of which `notEmpty` (default: all of them) may not be empty. */
export function object(
  properties: Record<string, Schema>,
  required: string[],
  notEmpty: string[] = required,
): Schema {
  return { type: "object", properties, required, notEmpty };
}
