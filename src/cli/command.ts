/**
 * The shape of a CLI command and the help text every command prints for `--help`.
 *
 * @module
 */

import { COMMON_FLAGS, type FlagSpec } from "./args.ts";
import type { CliIo } from "./io.ts";

/** One `deno task <name>` command. */
export interface CliCommand {
  /** Name on the command line. */
  readonly name: string;
  /** One line for the command list. */
  readonly summary: string;
  /** Full `--help` text. */
  readonly help: string;
  /** The flags it accepts besides {@link COMMON_FLAGS}; its usage line and `--help` list every one. */
  readonly flags: Readonly<Record<string, FlagSpec>>;
  /**
   * True when the command watches `io.signal` to stop gracefully: the CLI then catches SIGINT/SIGTERM
   * (a second signal exits at once with code 130). Other commands keep the default: a signal ends them.
   */
  readonly handlesSignals?: boolean;
  /** Run with the arguments after the command name; resolves to the exit code. */
  run(args: string[], io: CliIo): Promise<number>;
}

function flagName(name: string, spec: FlagSpec): string {
  const long = `--${name}${spec.value === undefined ? "" : ` ${spec.value}`}`;
  return spec.short === undefined ? long : `-${spec.short}, ${long}`;
}

function flagLines(flags: Readonly<Record<string, FlagSpec>>): string {
  const names = Object.entries(flags).map(([name, spec]) => [flagName(name, spec), spec.help] as const);
  const width = Math.max(...names.map(([name]) => name.length));
  return names.map(([name, help]) => `  ${name.padEnd(width)}  ${help}`).join("\n");
}

/**
 * The usage line of a command: its arguments, then every flag it accepts (its own, then the common ones).
 *
 * @example
 * ```ts
 * import { usageLine } from "./command.ts";
 * usageLine("prune", "", { days: { type: "string", value: "<n>", help: "age limit in days" } });
 * // "deno task prune [--days <n>] [--config <path>] [--verbose] [-h]"
 * ```
 */
export function usageLine(command: string, args: string, flags: Readonly<Record<string, FlagSpec>>): string {
  const words = Object.entries({ ...flags, ...COMMON_FLAGS }).map(([name, spec]) => {
    const word = spec.short !== undefined && spec.type === "boolean"
      ? `-${spec.short}`
      : flagName(name, spec);
    return `[${word}]${spec.multiple ? "..." : ""}`;
  });
  return ["deno task", command, args, ...words].filter((part) => part !== "").join(" ");
}

/**
 * Build a help text: the usage line and the flag list come from `flags`, so they always match what the
 * command accepts.
 *
 * @example
 * ```ts
 * import { helpText } from "./command.ts";
 * helpText("health", "", "Check every connection.", { json: { type: "boolean", help: "print JSON" } });
 * ```
 */
export function helpText(
  command: string,
  args: string,
  description: string,
  flags: Readonly<Record<string, FlagSpec>>,
): string {
  return `Usage: ${usageLine(command, args, flags)}

${description}

Flags:
${flagLines(flags)}

Common flags:
${flagLines(COMMON_FLAGS)}

Exit codes: 0 ok, 1 a check failed, 2 bad usage or configuration.
`;
}
