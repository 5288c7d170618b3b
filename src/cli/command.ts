/**
 * The shape of a CLI command and the help text every command prints for `--help`.
 *
 * @module
 */

import type { CliIo } from "./io.ts";

/** One `deno task <name>` command. */
export interface CliCommand {
  /** Name on the command line. */
  readonly name: string;
  /** One line for the command list. */
  readonly summary: string;
  /** Full `--help` text. */
  readonly help: string;
  /**
   * True when the command watches `io.signal` to stop gracefully: the CLI then catches SIGINT/SIGTERM
   * (a second signal exits at once with code 130). Other commands keep the default: a signal ends them.
   */
  readonly handlesSignals?: boolean;
  /** Run with the arguments after the command name; resolves to the exit code. */
  run(args: string[], io: CliIo): Promise<number>;
}

/** Lines about the flags every command takes, appended to each help text. */
export const COMMON_HELP = `Common flags:
  --config <path>   configuration file (default: gateway-api.json in the working directory)
  --verbose         show stack traces and debug logs on standard error
  -h, --help        show this help

Exit codes: 0 ok, 1 a check failed, 2 bad usage or configuration.`;

/**
 * Build a help text from its parts.
 *
 * @example
 * ```ts
 * import { helpText } from "./command.ts";
 * helpText("health [--connection <name>]", "Check every connection.", "  --json  print JSON");
 * ```
 */
export function helpText(usage: string, description: string, flags: string): string {
  return `Usage: deno task ${usage}\n\n${description}\n\nFlags:\n${flags}\n\n${COMMON_HELP}\n`;
}
