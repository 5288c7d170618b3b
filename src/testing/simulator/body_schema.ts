/**
 * The server's JSON schema of a body, derived from its declaration in `src/dto/` (the server's order).
 *
 * @module
 */

import type { BodySpec, FieldSpec } from "../../dto/body_spec.ts";
import type { Schema } from "./validate.ts";

function fieldSchema(field: FieldSpec): Schema {
  if (field.server) return field.server;
  const schema: Schema = { type: field.type };
  if (field.strictBoolean) schema.enum = [true, false];
  if (field.values && field.serverEnum !== false) schema.enum = [...field.values];
  if (field.min !== undefined) schema.minimum = field.min;
  if (field.max !== undefined) schema.maximum = field.max;
  if (field.recipient) schema.description = "Invalid format";
  return schema;
}

/** The schema the server checks a body against: its fields' types, enums, ranges and required names. */
export function schemaOf(spec: BodySpec): Schema {
  const entries = Object.entries(spec.fields).filter(([, field]) => field.server !== false);
  const schema: Schema = {
    type: "object",
    properties: Object.fromEntries(entries.map(([name, field]) => [name, fieldSchema(field)])),
  };
  const required = spec.serverRequiredOrder ? [...spec.serverRequiredOrder] : entries
    .filter(([, field]) => field.serverRequired ?? field.required)
    .map(([name]) => name);
  if (required.length > 0) schema.required = required;
  const notEmpty = entries
    .filter(([name, field]) => field.serverNotEmpty || (spec.requiredNotEmpty && required.includes(name)))
    .map(([name]) => name);
  if (notEmpty.length > 0) schema.notEmpty = spec.requiredNotEmpty ? required : notEmpty;
  return spec.wrap ? { type: "object", properties: { [spec.wrap]: schema }, required: [spec.wrap] } : schema;
}
