/**
 * Checks of the option objects the bot's plugins take (`session`, `createConversation`, waits): an unknown
 * key is refused with the closest known one, so a misspelled option is never silently ignored.
 *
 * @module
 */

import { closestName } from "../config_schema.ts";
import { ConfigurationException } from "../errors.ts";

/**
 * Throws `ConfigurationException` (`Cannot <action>: "x" is not an option; did you mean "y"?`) when `options`
 * is not an object or has a key outside `known`.
 */
export function checkOptionKeys(action: string, options: unknown, known: readonly string[]): void {
  if (options === null || typeof options !== "object" || Array.isArray(options)) {
    throw new ConfigurationException(`Cannot ${action}: options must be an object`);
  }
  for (const key of Object.keys(options)) {
    if (known.includes(key)) continue;
    const guess = closestName(key, known);
    const hint = guess === undefined ? `; known options: ${known.join(", ")}` : `; did you mean "${guess}"?`;
    throw new ConfigurationException(`Cannot ${action}: "${key}" is not an option${hint}`, {
      setting: key,
    });
  }
}
