/**
 * The names a call's options may have, and the message that refuses any other one with the name most likely
 * meant: a send method takes its body's fields and the per-call options in one object, so a misspelt key of
 * either is told apart from both.
 *
 * @module
 */

import { ValidationException } from "../errors.ts";
import { type OptionKeys, suggestKey } from "../option_keys.ts";

/** The per-call options every resource method takes (`CallOptions`), beside its body's fields. */
export const CALL_OPTION_KEYS: readonly string[] = [
  "signal",
  "timeoutMs",
  "maxRetries",
  "idempotencyKey",
  "instance",
  "resolve",
];

/** Options of `client.request` that no resource call takes, and the call option that comes closest. */
const REQUEST_ONLY: Readonly<Record<string, string>> = { deadlineMs: "timeoutMs" };

/** `names` as the `OptionKeys` that `suggestKey` reads. */
function keysOf(names: Iterable<string>): OptionKeys {
  const keys: Record<string, true> = {};
  for (const name of names) keys[name] = true;
  return keys;
}

/**
 * The problem of an option `key` that is none of `fields` (a body's fields; empty for a call that takes no
 * body): `"<key>" is not an option`, with the field or call option most likely meant.
 */
export function unknownOption(key: string, fields: Iterable<string>): string {
  if (CALL_OPTION_KEYS.includes(key)) {
    return `"${key}" is a call option, not a field of the request: pass it in the call's options`;
  }
  const requestOnly = Object.hasOwn(REQUEST_ONLY, key) ? REQUEST_ONLY[key] : undefined;
  if (requestOnly !== undefined) {
    return `"${key}" is not an option (only client.request takes it); did you mean "${requestOnly}"?`;
  }
  const guess = suggestKey(key, keysOf([...fields, ...CALL_OPTION_KEYS]));
  return guess === undefined
    ? `"${key}" is not an option`
    : `"${key}" is not an option; did you mean "${guess}"?`;
}

/**
 * Refuse a per-call options object (`CallOptions`) with a key no resource call takes (`deadlineMs`, a
 * misspelling), with the key most likely meant, and a `resolve` that is not a boolean, before any request: an
 * option the call would ignore is never dropped without a word. Keys set to `undefined` are no options.
 */
export function checkCallOptions(options: object | undefined): void {
  if (options === undefined) return;
  const record = options as Record<string, unknown>;
  for (const key in record) {
    if (CALL_OPTION_KEYS.includes(key) || record[key] === undefined) continue;
    const problem = unknownOption(key, []);
    throw new ValidationException(`Invalid call options: ${problem}`, { messages: [problem] });
  }
  if (record.resolve !== undefined && typeof record.resolve !== "boolean") {
    throw new ValidationException('Invalid call options: "resolve" must be true or false', {
      messages: ["resolve must be true or false"],
    });
  }
}
