/**
 * Pieces the hand-written request schemas share: booleans, message keys, required-keys objects.
 *
 * @module
 */

import { MESSAGE_KEY_SCHEMA } from "../../dto/structured_messages.ts";
import type { Schema } from "./validate.ts";

export const bool: Schema = { type: "boolean", enum: [true, false] };
export const key: Schema = MESSAGE_KEY_SCHEMA;

/** An object with `required` keys, of which `notEmpty` (default: all of them) may not be empty. */
export function object(
  properties: Record<string, Schema>,
  required: string[],
  notEmpty: string[] = required,
): Schema {
  return { type: "object", properties, required, notEmpty };
}

/**
 * A `find*` body of the server: `{ where: { ... }, limit? }`, where `where` is an object whose fields in
 * `notEmpty` may not be empty strings; `limit` (an integer) is accepted unless `withLimit` is false.
 */
export function whereQuery(where: Record<string, Schema>, notEmpty: string[], withLimit = true): Schema {
  const properties: Record<string, Schema> = { where: { type: "object", properties: where, notEmpty } };
  if (withLimit) properties.limit = { type: "integer" };
  return { type: "object", properties };
}
