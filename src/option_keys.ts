/**
 * Option keys and the key a user most likely meant: the one check behind every "did you mean ...?".
 *
 * @module
 */

import { ConfigurationException } from "./errors.ts";

/**
 * The option keys an API accepts, for {@link checkOptionKeys}: for each key, the keys of its nested options
 * object, or `true` for a value whose keys are not checked here.
 */
export type OptionKeys = { readonly [key: string]: true | OptionKeys };

function snake(key: string): string {
  return key.replace(/([a-z0-9])([A-Z])/g, "$1_$2").replace(/[-\s]/g, "_").toLowerCase();
}

function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = row[0];
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = row[j];
      row[j] = Math.min(row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1));
      diagonal = above;
    }
  }
  return row[b.length];
}

/**
 * The key the user most likely meant (other case, one level down, close spelling, a key it begins),
 * compared in snake_case so it serves the file and the camelCase options alike.
 */
export function suggestKey(key: string, keys: OptionKeys): string | undefined {
  const wanted = snake(key);
  const names = Object.keys(keys);
  const same = names.find((name) => snake(name) === wanted);
  if (same !== undefined) return same;
  const inner = (match: (field: string) => boolean): string | undefined => {
    for (const [name, nested] of Object.entries(keys)) {
      if (nested === true) continue;
      const field = Object.keys(nested).find((field) => match(snake(field)));
      if (field !== undefined) return `${name}.${field}`;
    }
    return undefined;
  };
  const below = inner((field) => field === wanted);
  if (below !== undefined) return below;
  // A word more or less: `attempts` → `maxAttempts`, `keyPrefix` → `prefix`, `name` → `objectName`.
  const word = names.find((name) => {
    const candidate = snake(name);
    return candidate.endsWith(`_${wanted}`) || wanted.endsWith(`_${candidate}`);
  });
  if (word !== undefined) return word;
  // Edit distance, with a shared beginning counting for more than a shared ending (`retries` → `retry`).
  let best: string | undefined;
  let bestScore = Math.max(2, Math.floor(wanted.length / 3)) + 1;
  for (const name of names) {
    const candidate = snake(name);
    let shared = 0;
    while (shared < 4 && shared < candidate.length && candidate[shared] === wanted[shared]) shared++;
    const score = distance(wanted, candidate) - shared / 2;
    if (score < bestScore) [best, bestScore] = [name, score];
  }
  if (best !== undefined) return best;
  const prefixed = names.find((name) => snake(name).startsWith(`${wanted}_`));
  if (prefixed !== undefined) return prefixed;
  // `timeout` inside `retry` most likely means `http.timeout_ms`: look one level down.
  return inner((field) => field.startsWith(`${wanted}_`));
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * Refuse a key the options object `value` does not accept, with a suggestion (`where`: the API named in the
 * message); nested plain objects are checked against their own keys, anything else is left to type checks.
 */
export function checkOptionKeys(value: unknown, keys: OptionKeys, where: string, path = ""): void {
  if (!isPlainObject(value)) return;
  for (const key of Object.keys(value)) {
    const nested = Object.hasOwn(keys, key) ? keys[key] : undefined;
    const setting = joinKey(path, key);
    if (nested === undefined) {
      const guess = suggestKey(key, keys);
      const hint = guess === undefined ? "" : `; did you mean "${joinKey(path, guess)}"?`;
      const named = nameOf(path, key);
      throw new ConfigurationException(`${where}: ${named.shown} is not an option${hint}`, {
        setting: named.setting,
      });
    }
    if (nested !== true) checkOptionKeys(value[key], nested, where, setting);
  }
}

/**
 * An unknown key as an error names it: quoted when it looks like a setting's name, else by its place only (a
 * secret pasted where a key goes must not be printed). Internal.
 */
export function nameOf(path: string, key: string): { shown: string; setting: string } {
  if (/^[A-Za-z][A-Za-z0-9_]{0,39}$/.test(key)) {
    const setting = joinKey(path, key);
    return { shown: `"${setting}"`, setting };
  }
  const shown = path === ""
    ? "a key that is not a setting name"
    : `a key of "${path}" that is not a setting name`;
  return { shown, setting: joinKey(path, "?") };
}

/** `path.key`, or `key` at the top. Internal. */
export function joinKey(path: string, key: string): string {
  return path === "" ? key : `${path}.${key}`;
}
