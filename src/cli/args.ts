/**
 * Flag parsing for every command: strict `parseArgs` plus the shared flags; errors are exit code 2.
 *
 * @module
 */

import { parseArgs } from "node:util";
import { UsageError } from "./io.ts";

/**
 * A flag definition: what `parseArgs` takes, plus what `--help` shows. The usage line and the flag list of
 * every command are built from these, so a flag cannot be accepted without being documented.
 */
export interface FlagSpec {
  /** `string` takes a value, `boolean` does not. */
  type: "string" | "boolean";
  /** The value's placeholder in help, e.g. `<ms>` (string flags). */
  value?: string;
  /** One line for `--help`. */
  help: string;
  /** One-letter alias. */
  short?: string;
  /** Whether the flag may be given several times. */
  multiple?: boolean;
}

/** Flags every command accepts. */
export const COMMON_FLAGS: Record<string, FlagSpec> = {
  config: {
    type: "string",
    value: "<path>",
    help: "configuration file in the project directory (default: gateway-api.json there)",
  },
  verbose: { type: "boolean", help: "show stack traces and debug logs on standard error" },
  help: { type: "boolean", short: "h", help: "show this help" },
};

/** `--connection <name>`, for the commands that work on one connection. */
export const CONNECTION_FLAG: FlagSpec = {
  type: "string",
  value: "<name>",
  help: "connection to use (default: the configured default)",
};

/** `--timeout <ms>`, for the commands that ask a server: each request's timeout (read with a 10 000 fallback). */
export const TIMEOUT_MS_FLAG: FlagSpec = {
  type: "string",
  value: "<ms>",
  help: "per-request timeout (default 10000)",
};

/** The result of {@link parseFlags}. */
export interface ParsedFlags {
  /** Flag values by name. */
  values: Record<string, string | boolean | string[] | boolean[] | undefined>;
  /** Positional arguments. */
  positionals: string[];
}

/** Parse `args` against `flags` and {@link COMMON_FLAGS}; a bad flag is a {@link UsageError}. */
export function parseFlags(
  args: string[],
  flags: Readonly<Record<string, FlagSpec>>,
  maxPositionals: number,
): ParsedFlags {
  const options = Object.fromEntries(
    Object.entries({ ...COMMON_FLAGS, ...flags }).map(([name, { type, short, multiple }]) => [
      name,
      { type, multiple: multiple === true, ...(short === undefined ? {} : { short }) },
    ]),
  );
  let parsed;
  try {
    parsed = parseArgs({
      args,
      options,
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    throw new UsageError(`Cannot parse arguments: ${usageMessage(error)}`, { cause: error });
  }
  if (parsed.values.help !== true && parsed.positionals.length > maxPositionals) {
    const extra = parsed.positionals.slice(maxPositionals).map((value) => `"${value}"`).join(", ");
    throw new UsageError(`Cannot parse arguments: unexpected argument ${extra}`);
  }
  return { values: parsed.values as ParsedFlags["values"], positionals: parsed.positionals };
}

function usageMessage(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  // parseArgs messages are long and mention `--` tricks; keep the first sentence, quoted like ours.
  const first = message.split(/\.\s/)[0].replace(/\.$/, "").replace(/'([^']*)'/g, '"$1"');
  const dash = /use '(--[\w-]+=-XYZ)'/.exec(message);
  return dash ? `${first} (write "${dash[1]}" for a value that starts with a dash)` : first;
}

/** A string flag's value, or undefined. */
export function stringFlag(values: ParsedFlags["values"], name: string): string | undefined {
  const value = values[name];
  if (typeof value !== "string") return undefined;
  if (value.trim() === "") throw new UsageError(`Cannot parse arguments: "--${name}" must not be empty`);
  return value;
}

/** A number flag: positive (or >= `min`), optionally an integer; else a {@link UsageError}. */
export function numberFlag(
  values: ParsedFlags["values"],
  name: string,
  options: { fallback: number; min?: number; integer?: boolean },
): number {
  const raw = values[name];
  if (raw === undefined) return options.fallback;
  const min = options.min ?? Number.MIN_VALUE;
  const value = typeof raw === "string" && raw.trim() !== "" ? Number(raw) : NaN;
  const kind = options.integer ? "integer" : "number";
  const expected = min === Number.MIN_VALUE
    ? `a positive ${kind}`
    : `${kind === "integer" ? "an" : "a"} ${kind} >= ${min}`;
  if (!Number.isFinite(value) || value < min || (options.integer && !Number.isInteger(value))) {
    throw new UsageError(`Cannot parse arguments: "--${name}" must be ${expected}, got "${raw}"`);
  }
  return value;
}

/** Whether a boolean flag is set. */
export function booleanFlag(values: ParsedFlags["values"], name: string): boolean {
  return values[name] === true;
}
