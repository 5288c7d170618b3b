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

/** What one keyword's check gets: the value, its schema and path, and where failures go. */
interface KeywordCheck {
  value: unknown;
  schema: Schema;
  path: string;
  errors: SchemaError[];
  fail(message: string): void;
}

/** A failure when `broken` holds, else nothing. */
function when(broken: boolean, message: () => string): (check: KeywordCheck) => void {
  return broken ? (check) => check.fail(message()) : () => {};
}

/** One check per keyword, in `jsonschema`'s wording; the schema's key order is the order of the checks. */
const KEYWORDS: { [K in keyof Schema]-?: (check: KeywordCheck) => void } = {
  type: (c) => {
    const types = Array.isArray(c.schema.type) ? c.schema.type : [c.schema.type as string];
    when(
      c.value !== undefined && !types.some((t) => typeMatches(c.value, t)),
      () => `is not of a type(s) ${types.join(",")}`,
    )(c);
  },
  enum: (c) =>
    when(
      c.value !== undefined && !c.schema.enum!.some((e) => stableKey(e) === stableKey(c.value)),
      () => `is not one of enum values: ${c.schema.enum!.map(String).join(",")}`,
    )(c),
  properties: (c) => {
    if (!isRecord(c.value)) return;
    for (const [key, sub] of Object.entries(c.schema.properties!)) {
      if (c.value[key] !== undefined) {
        c.errors.push(...validateSchema(c.value[key], sub, childPath(c.path, key)));
      }
    }
  },
  required: (c) => {
    if (!isRecord(c.value)) return;
    for (const key of c.schema.required!) {
      if (c.value[key] === undefined) c.fail(`requires property ${JSON.stringify(key)}`);
    }
  },
  items: (c) => {
    if (!Array.isArray(c.value)) return;
    c.value.forEach((item, i) => c.errors.push(...validateSchema(item, c.schema.items!, `${c.path}[${i}]`)));
  },
  minItems: (c) =>
    when(
      Array.isArray(c.value) && c.value.length < c.schema.minItems!,
      () => `does not meet minimum length of ${c.schema.minItems}`,
    )(c),
  maxItems: (c) =>
    when(
      Array.isArray(c.value) && c.value.length > c.schema.maxItems!,
      () => `does not meet maximum length of ${c.schema.maxItems}`,
    )(c),
  uniqueItems: (c) =>
    when(
      c.schema.uniqueItems === true && Array.isArray(c.value) &&
        new Set(c.value.map(stableKey)).size !== c.value.length,
      () => "contains duplicate item",
    )(c),
  minLength: (c) =>
    when(
      typeof c.value === "string" && [...c.value].length < c.schema.minLength!,
      () => `does not meet minimum length of ${c.schema.minLength}`,
    )(c),
  maxLength: (c) =>
    when(
      typeof c.value === "string" && [...c.value].length > c.schema.maxLength!,
      () => `does not meet maximum length of ${c.schema.maxLength}`,
    )(c),
  minimum: (c) =>
    when(
      typeof c.value === "number" && c.value < c.schema.minimum!,
      () => `must be greater than or equal to ${c.schema.minimum}`,
    )(c),
  maximum: (c) =>
    when(
      typeof c.value === "number" && c.value > c.schema.maximum!,
      () => `must be less than or equal to ${c.schema.maximum}`,
    )(c),
  pattern: (c) =>
    when(
      typeof c.value === "string" && !new RegExp(c.schema.pattern!).test(c.value),
      () => `does not match pattern ${JSON.stringify(c.schema.pattern)}`,
    )(c),
  notEmpty: (c) => {
    const value = c.value;
    if (!isRecord(value) || !Object.keys(value).every((k) => c.schema.notEmpty!.includes(k))) return;
    for (const key of c.schema.notEmpty!) {
      const sub: Schema = { minLength: 1, description: `The "${key}" cannot be empty` };
      if (value[key] !== undefined) c.errors.push(...validateSchema(value[key], sub, childPath(c.path, key)));
    }
  },
  description: () => {},
};

/** Check `value` against `schema`; returns every failure in `jsonschema`'s order and wording. */
export function validateSchema(value: unknown, schema: Schema, path = "instance"): SchemaError[] {
  const errors: SchemaError[] = [];
  const check: KeywordCheck = {
    value,
    schema,
    path,
    errors,
    fail: (message) => errors.push({ property: path, message, stack: `${path} ${message}`, schema }),
  };
  for (const keyword of Object.keys(schema) as (keyof Schema)[]) KEYWORDS[keyword]?.(check);
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
