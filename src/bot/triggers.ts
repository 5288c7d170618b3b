/**
 * What `hears` and `command` are given, checked once when they are registered: a trigger becomes a
 * matcher, a command name its bare lower-case form.
 *
 * @module
 */

import { ConfigurationException } from "../errors.ts";

/** A `hears` trigger as a matcher: the text (exact) or the expression's match, undefined when it does not match. */
export function triggerOf(trigger: string | RegExp): (text: string) => string | RegExpMatchArray | undefined {
  if (typeof trigger === "string") return (text) => text === trigger ? text : undefined;
  if (trigger instanceof RegExp) {
    return (text) => {
      trigger.lastIndex = 0; // a global or sticky expression keeps state between calls
      return trigger.exec(text) ?? undefined;
    };
  }
  throw new ConfigurationException("Cannot use hears: a trigger must be a string or a RegExp", {
    setting: "trigger",
  });
}

const COMMAND_NAME = /^[a-z0-9_-]{1,64}$/i;

/** A command's name without its `/` or `!`, lower-cased; refused unless 1 to 64 letters, digits, _ or -. */
export function commandName(name: unknown): string {
  const bare = typeof name === "string" ? name.replace(/^[/!]/, "") : "";
  if (!COMMAND_NAME.test(bare)) {
    throw new ConfigurationException(
      `Cannot use command "${String(name)}": a command is 1 to 64 letters, digits, _ or -`,
      { setting: "command" },
    );
  }
  return bare.toLowerCase();
}
