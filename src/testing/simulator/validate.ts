/**
 * A small JSON-schema checker that words its errors exactly like the `jsonschema` npm package the
 * reference server uses, and the two ways the server turns them into 400 bodies:
 * `dataValidate` (a nested array of strings) and `groupValidate` (an array of `{property, message}`).
 *
 * Keywords are checked in the order they appear in each schema object, as `jsonschema` does.
 *
 * @module
 */

import type { ServerSchema } from "../../dto/body_spec.ts";
import { badRequest, type HttpError } from "./errors.ts";
import { isRecord } from "../../util/json_shape.ts";

/** The subset of JSON schema the server's schemas use (declared beside the request bodies). */
export type Schema = ServerSchema;

/** One failure, as `jsonschema` reports it. */
export interface SchemaError {
  /** `instance`, `instance.text`, `instance.contact[0]` ... */
  property: string;
  /** The message without the property. */
  message: string;
  /** `property + " " + message`. */
  stack: string;
  /** The schema whose keyword failed. */
  schema: Schema;
}

function typeMatches(value: unknown, type: string): boolean {
  switch (type) {
    case "string":
      return typeof value === "string";
    case "number":
      return typeof value === "number" && Number.isFinite(value);
    case "integer":
      return typeof value === "number" && Number.isInteger(value);
    case "boolean":
      return typeof value === "boolean";
    case "array":
      return Array.isArray(value);
    case "object":
      return isRecord(value);
    case "null":
      return value === null;
    default:
      return true;
  }
}

function childPath(path: string, key: string): string {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
}

function stableKey(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableKey).join(",")}]`;
  if (isRecord(value)) {
    return `{${
      Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${stableKey(value[k])}`).join(",")
    }}`;
  }
  return JSON.stringify(value) ?? "undefined";
}

/** Check `value` against `schema`; returns every failure in `jsonschema`'s order and wording. */
export function validateSchema(value: unknown, schema: Schema, path = "instance"): SchemaError[] {
  const errors: SchemaError[] = [];
  const fail = (message: string, at = path, where: Schema = schema) =>
    errors.push({ property: at, message, stack: `${at} ${message}`, schema: where });

  for (const keyword of Object.keys(schema) as (keyof Schema)[]) {
    switch (keyword) {
      case "type": {
        const types = Array.isArray(schema.type) ? schema.type : [schema.type as string];
        if (value !== undefined && !types.some((t) => typeMatches(value, t))) {
          fail(`is not of a type(s) ${types.join(",")}`);
        }
        break;
      }
      case "enum":
        if (value !== undefined && !schema.enum!.some((e) => stableKey(e) === stableKey(value))) {
          fail(`is not one of enum values: ${schema.enum!.map(String).join(",")}`);
        }
        break;
      case "properties":
        if (isRecord(value)) {
          for (const [key, sub] of Object.entries(schema.properties!)) {
            if (value[key] !== undefined) {
              errors.push(...validateSchema(value[key], sub, childPath(path, key)));
            }
          }
        }
        break;
      case "required":
        if (isRecord(value)) {
          for (const key of schema.required!) {
            if (value[key] === undefined) fail(`requires property ${JSON.stringify(key)}`);
          }
        }
        break;
      case "items":
        if (Array.isArray(value)) {
          value.forEach((item, i) => errors.push(...validateSchema(item, schema.items!, `${path}[${i}]`)));
        }
        break;
      case "minItems":
        if (Array.isArray(value) && value.length < schema.minItems!) {
          fail(`does not meet minimum length of ${schema.minItems}`);
        }
        break;
      case "maxItems":
        if (Array.isArray(value) && value.length > schema.maxItems!) {
          fail(`does not meet maximum length of ${schema.maxItems}`);
        }
        break;
      case "uniqueItems":
        if (
          schema.uniqueItems && Array.isArray(value) && new Set(value.map(stableKey)).size !== value.length
        ) {
          fail("contains duplicate item");
        }
        break;
      case "minLength":
        if (typeof value === "string" && [...value].length < schema.minLength!) {
          fail(`does not meet minimum length of ${schema.minLength}`);
        }
        break;
      case "maxLength":
        if (typeof value === "string" && [...value].length > schema.maxLength!) {
          fail(`does not meet maximum length of ${schema.maxLength}`);
        }
        break;
      case "minimum":
        if (typeof value === "number" && value < schema.minimum!) {
          fail(`must be greater than or equal to ${schema.minimum}`);
        }
        break;
      case "maximum":
        if (typeof value === "number" && value > schema.maximum!) {
          fail(`must be less than or equal to ${schema.maximum}`);
        }
        break;
      case "pattern":
        if (typeof value === "string" && !new RegExp(schema.pattern!).test(value)) {
          fail(`does not match pattern ${JSON.stringify(schema.pattern)}`);
        }
        break;
      case "notEmpty":
        if (isRecord(value) && Object.keys(value).every((k) => schema.notEmpty!.includes(k))) {
          for (const key of schema.notEmpty!) {
            const sub: Schema = { minLength: 1, description: `The "${key}" cannot be empty` };
            if (value[key] !== undefined) {
              errors.push(...validateSchema(value[key], sub, childPath(path, key)));
            }
          }
        }
        break;
    }
  }
  return errors;
}

/** The text the server reports for one failure: the schema description, or the stack without `instance.`. */
function reportedMessage(error: SchemaError): string {
  return error.schema.description ?? error.stack.replace("instance.", "");
}

/** `dataValidate`: throws 400 with `[[...messages]]` when `body` fails `schema`. */
export function checkBody(body: unknown, schema: Schema): void {
  const errors = validateSchema(body, schema);
  if (errors.length > 0) throw badRequest(errors.map(reportedMessage));
}

/** `groupValidate`: throws 400 with `[{property, message}, ...]` when `body` fails `schema`. */
export function checkGroupBody(body: unknown, schema: Schema): void {
  const errors = validateSchema(body, schema);
  if (errors.length > 0) {
    const items = errors.map((e) => ({
      property: e.property.replace("instance.", ""),
      message: reportedMessage(e),
    }));
    throw badRequest(...items) satisfies HttpError;
  }
}
