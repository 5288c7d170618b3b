import { ConfigurationException } from "../errors.ts";

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
