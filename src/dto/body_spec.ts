/**
 * One declaration per request body: the fields, their types and rules, in the server's order. A request
 * object validates its input with {@link readBody}; the simulator (`src/testing/simulator/schemas.ts`)
 * derives the server's JSON schema from the same declaration, so the two cannot drift apart.
 *
 * @module
 */

import { ValidationException } from "../errors.ts";
import { Problems } from "./validate.ts";
import { isRecord } from "../util/json_shape.ts";
import { unknownOption } from "./option_names.ts";

/** The subset of JSON schema the server's schemas (`src/validate/*.schema.ts`) use. */
export interface ServerSchema {
  type?: string | string[];
  properties?: Record<string, ServerSchema>;
  required?: string[];
  items?: ServerSchema;
  enum?: unknown[];
  minItems?: number;
  maxItems?: number;
  uniqueItems?: boolean;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  pattern?: string;
  /** When set, the server reports this text instead of the error. */
  description?: string;
  /**
   * The server's `isNotEmpty(...names)` helper: an `if: {propertyNames: {enum: names}}` /
   * `then: {properties: {<name>: {minLength: 1}}}` pair. It only applies when every key of the
   * object is one of `names` (a quirk of `propertyNames`), which this reproduces.
   */
  notEmpty?: string[];
}

/** One field of a request body. */
export interface FieldSpec {
  /** JSON type the server's schema gives the field. */
  readonly type: "string" | "boolean" | "integer" | "number" | "array" | "object";
  /** Required by the server, and refused by the request object when missing (unless it has a `default`). */
  readonly required?: boolean;
  /** Whether the server requires it (default: `required`); a recipient the server lets the body omit. */
  readonly serverRequired?: boolean;
  /** Allowed values (checked by the request object; by the server too unless `serverEnum` is false). */
  readonly values?: readonly (string | number)[];
  /** Whether the server's schema lists `values` (default true). */
  readonly serverEnum?: boolean;
  /** Integer range, checked by both. */
  readonly min?: number;
  /** Integer range, checked by both. */
  readonly max?: number;
  /** Arrays: the request object wants at least this many items. */
  readonly minItems?: number;
  /** Arrays: every item must be an object (request object only). */
  readonly objectItems?: boolean;
  /** A phone number or JID the request object normalizes (the server answers "Invalid format"). */
  readonly recipient?: boolean;
  /** An http(s) URL or raw base64 the request object checks and normalizes (data URIs are refused). */
  readonly media?: boolean;
  /** The server refuses an empty string here (`isNotEmpty`) although the field is not required. */
  readonly serverNotEmpty?: boolean;
  /** Booleans: the server's schema also lists `[true, false]` (a non-boolean gets two errors). */
  readonly strictBoolean?: boolean;
  /** Strings: the request object trims the value. */
  readonly trim?: boolean;
  /** What the request object fills in when the field is missing. */
  readonly default?: unknown;
  /**
   * The server's schema of the field when it is not the one the rules above give (a nested shape, a
   * description), or false when the server's schema does not list the field.
   */
  readonly server?: ServerSchema | false;
  /** A reader of its own, for a field with a rule the others do not cover (a port given as a number). */
  readonly read?: (problems: Problems, field: string, value: unknown) => unknown;
}

/** A request body: what it is called in errors, its fields in the server's order, and its empty-string rule. */
export interface BodySpec {
  /** Name in error messages: `Invalid proxy: host is required`. */
  readonly what: string;
  /** The fields, in the order the server's schema lists them (errors come out in this order). */
  readonly fields: Readonly<Record<string, FieldSpec>>;
  /** The server's list of required names when its order is not the fields' (errors follow this order). */
  readonly serverRequiredOrder?: readonly string[];
  /** Whether the server also refuses an empty string in its required fields (`isNotEmpty`). */
  readonly requiredNotEmpty?: boolean;
  /** A rule across fields, run by the request object on the fields read (a base64 document needs a name). */
  readonly check?: (
    problems: Problems,
    body: Record<string, unknown>,
    input: Record<string, unknown>,
  ) => void;
  /** The body is these fields wrapped in one object under this key (`{ webhook: {...} }`). */
  readonly wrap?: string;
  /** Keys the declaration does not list are sent as given (the server reads more than its schema lists). */
  readonly passThrough?: boolean;
  /** Keys the server's schema lists but its code ignores, each with the field to use instead. */
  readonly renamed?: Readonly<Record<string, string>>;
}

/** The server's list-of-numbers shape (`mentioned`, `statusJidList`): 1+ distinct strings led by a digit. */
export function numberListSchema(name: string): ServerSchema {
  return {
    type: "array",
    minItems: 1,
    uniqueItems: true,
    items: { type: "string", pattern: "^\\d+", description: `"${name}" must be an array of numeric strings` },
  };
}

/** The recipient of a send: a phone number (formatting stripped) or a JID, required. */
export const RECIPIENT_FIELD: FieldSpec = { type: "string", required: true, recipient: true };

/** The same fields, marked as absent from the server's schema (which still reads them). */
export function unlisted(fields: Readonly<Record<string, FieldSpec>>): Record<string, FieldSpec> {
  return Object.fromEntries(
    Object.entries(fields).map(([name, field]) => [name, { ...field, server: false }]),
  );
}

/** Throws at once when the input is not an object: there are no fields to name. */
export function requireObject(input: unknown, what: string): Record<string, unknown> {
  if (!isRecord(input)) {
    throw new ValidationException(`Invalid ${what}: expected an object`, {
      messages: ["request must be an object"],
    });
  }
  return input;
}

function readField(problems: Problems, name: string, field: FieldSpec, value: unknown): unknown {
  // A copy, so that no two bodies share a default `{}` or `[]`.
  if ((value === undefined || value === null) && field.default !== undefined) {
    return structuredClone(field.default);
  }
  if (field.read) return field.read(problems, name, value);
  const required = field.required === true;
  if (field.recipient) return problems.recipient(name, value, { required });
  if (field.media) return problems.media(name, value, { required });
  if (field.values) return problems.oneOf(name, value, field.values, { required });
  switch (field.type) {
    case "string": {
      const text = problems.text(name, value, { required });
      return field.trim ? text?.trim() : text;
    }
    case "boolean":
      return problems.bool(name, value, { required });
    case "integer":
    case "number":
      return problems.number(name, value, {
        required,
        integer: field.type === "integer",
        min: field.min,
        max: field.max,
      });
    case "object":
      return problems.object(name, value, { required });
    case "array": {
      const items = problems.array(name, value, { required, minItems: field.minItems });
      if (field.objectItems) {
        items?.forEach((item, index) => problems.object(`${name}[${index}]`, item, { required: true }));
      }
      return items;
    }
  }
}

/**
 * Validate `input` against a body declaration: every problem is collected, then thrown together as a
 * `ValidationException`; the answer holds the declared fields only, in declared order, without the unset ones.
 * A key the declaration does not name is refused with the key most likely meant (`passThrough`: passed on).
 */
export function readBody(spec: BodySpec, input: unknown): Record<string, unknown> {
  const record = requireObject(input, spec.what);
  const problems = new Problems();
  const body = readFields(problems, spec.fields, record);
  spec.check?.(problems, body, record);
  // A key the declaration does not name is passed on as it is, or refused: never dropped without a word.
  for (const [name, value] of Object.entries(record)) {
    if (Object.hasOwn(spec.fields, name) || value === undefined) continue;
    if (spec.passThrough) body[name] = value;
    else if (spec.renamed && Object.hasOwn(spec.renamed, name)) {
      problems.add(`${name} is ignored by the server; use ${spec.renamed[name]}`);
    } else problems.add(unknownOption(name, Object.keys(spec.fields)));
  }
  problems.throwIfAny(spec.what);
  return spec.wrap ? { [spec.wrap]: body } : body;
}

/** Read the declared fields of `record` into `problems`: checked values, declared order, unset left out. */
export function readFields(
  problems: Problems,
  fields: Readonly<Record<string, FieldSpec>>,
  record: Record<string, unknown>,
): Record<string, unknown> {
  let list = fieldLists.get(fields);
  if (list === undefined) fieldLists.set(fields, list = Object.entries(fields));
  // Unset values are left out as they come (no second, compacted copy): every send reads its body here.
  const body: Record<string, unknown> = {};
  for (const [name, field] of list) {
    const value = readField(problems, name, field, record[name]);
    if (value !== undefined) body[name] = value;
  }
  return body;
}

/** The declared fields of each body declaration as a list, made once per declaration. */
const fieldLists = new WeakMap<Readonly<Record<string, FieldSpec>>, [string, FieldSpec][]>();
