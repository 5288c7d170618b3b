/**
 * One declaration per request body: the fields, their types and rules, in the server's order. A request
 * object validates its input with {@link readBody}; the simulator (`src/testing/simulator/schemas.ts`)
 * derives the server's JSON schema from the same declaration, so the two cannot drift apart.
 *
 * @module
 */

import { requireObject } from "./message_options.ts";
import { compact, Problems } from "./validate.ts";

/** One field of a request body. */
export interface FieldSpec {
  /** JSON type the server's schema gives the field. */
  readonly type: "string" | "boolean" | "integer" | "number" | "array";
  /** Required by the server, and refused by the request object when missing (unless it has a `default`). */
  readonly required?: boolean;
  /** Allowed values (checked by the request object; by the server too unless `serverEnum` is false). */
  readonly values?: readonly string[];
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
  /** Booleans: the server's schema also lists `[true, false]` (a non-boolean gets two errors). */
  readonly strictBoolean?: boolean;
  /** Strings: the request object trims the value. */
  readonly trim?: boolean;
  /** What the request object fills in when the field is missing. */
  readonly default?: unknown;
  /** A reader of its own, for a field with a rule the others do not cover (a port given as a number). */
  readonly read?: (problems: Problems, field: string, value: unknown) => unknown;
}

/** A request body: what it is called in errors, its fields in the server's order, and its empty-string rule. */
export interface BodySpec {
  /** Name in error messages: `Invalid proxy: host is required`. */
  readonly what: string;
  /** The fields, in the order the server's schema lists them (errors come out in this order). */
  readonly fields: Readonly<Record<string, FieldSpec>>;
  /** Whether the server also refuses an empty string in its required fields (`isNotEmpty`). */
  readonly requiredNotEmpty?: boolean;
}

function readField(problems: Problems, name: string, field: FieldSpec, value: unknown): unknown {
  if (field.read) return field.read(problems, name, value);
  if ((value === undefined || value === null) && field.default !== undefined) return field.default;
  const required = field.required === true;
  if (field.recipient) return problems.recipient(name, value, { required });
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
 *
 * @example
 * ```ts
 * import { readBody } from "./body_spec.ts";
 * const spec = { what: "label", fields: { labelId: { type: "string", required: true } } } as const;
 * readBody(spec, { labelId: "3" }); // { labelId: "3" }
 * ```
 */
export function readBody(spec: BodySpec, input: unknown): Record<string, unknown> {
  const record = requireObject(input, spec.what);
  const problems = new Problems();
  const body: Record<string, unknown> = {};
  for (const [name, field] of Object.entries(spec.fields)) {
    body[name] = readField(problems, name, field, record[name]);
  }
  problems.throwIfAny(spec.what);
  return compact(body);
}
