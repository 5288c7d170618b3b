/**
 * The pieces the hand-written request schemas share: booleans, message keys (declared in `src/dto/`) and the
 * object-with-required-keys shape.
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
