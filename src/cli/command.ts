/**
 * The shape of a CLI command, its base class {@link FlagCommand} (`--help`, flags) and its help text.
 *
 * @module
 */

import { booleanFlag, COMMON_FLAGS, type FlagSpec, type ParsedFlags, parseFlags } from "./args.ts";
import { type CliIo, EXIT_OK, UsageError } from "./io.ts";

/**
 * How to run the CLI from the package, outside this repository (no deno.json tasks): the permissions every
 * command needs (the working directory is the project: the configuration, the KV file and `send`'s file
 * are read there) and the unstable APIs (Deno KV, Deno.cron) the store and `serve` use.
 *
 * @example
 * ```ts
 * import { PACKAGE_COMMAND } from "@gw/gateway/cli";
 * console.log(`${PACKAGE_COMMAND} health`);
 * ```
 */
export const PACKAGE_COMMAND: string = 'deno run --allow-net "--allow-env=GATEWAY_*" --allow-read=. ' +
  "--allow-write=. --unstable-kv --unstable-cron jsr:@gw/gateway/cli";

/**
 * How the user runs the command line where they are: `deno task` in a checkout of this repository (its
 * deno.json has a task per command), {@link PACKAGE_COMMAND} when it runs from the package, in a project
 * that added `jsr:@gw/gateway` and has no such tasks. `from` is the URL of the running module.
 */
export function runPrefix(from: string = import.meta.url): string {
  return inCheckout(from) ? "deno task" : PACKAGE_COMMAND;
}

/** Whether the command line runs from a checkout (where the deno.json tasks are). */
export function inCheckout(from: string = import.meta.url): boolean {
  return from.startsWith("file:");
}

/** The command line that runs `command` where the user is (see {@link runPrefix}). */
export function runCommand(command: string, from: string = import.meta.url): string {
  return `${runPrefix(from)} ${command}`;
}

/** One command of the command line (`deno task <name>` in this repository). */
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
   * True when the command stops gracefully on `io.signal`: the CLI catches SIGINT/SIGTERM (a second
   * exits at once with 130). Otherwise a signal ends the command.
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

/** The usage line of a command: its arguments, then every flag it accepts (its own, then the common ones). */
export function usageLine(command: string, args: string, flags: Readonly<Record<string, FlagSpec>>): string {
  const words = Object.entries({ ...flags, ...COMMON_FLAGS }).map(([name, spec]) => {
    const word = spec.short !== undefined && spec.type === "boolean"
      ? `-${spec.short}`
      : flagName(name, spec);
    return `[${word}]${spec.multiple ? "..." : ""}`;
  });
  return [runPrefix(), command, args, ...words].filter((part) => part !== "").join(" ");
}

/** A help text whose usage line and flag list come from `flags`. */
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

/** What a {@link FlagCommand} is made of: everything its `--help` text and its parsing come from. */
export interface CommandSpec {
  /** Name on the command line. */
  name: string;
  /** One line for the command list. */
  summary: string;
  /** Positional argument as usage shows it: `"<file>"` (required), `"[instance]"` (optional), or none. */
  argument?: string;
  /** The paragraph of `--help` under the usage line. */
  description: string;
  /** The flags it accepts besides {@link COMMON_FLAGS}. */
  flags: Readonly<Record<string, FlagSpec>>;
  /** Whether it watches `io.signal` to stop gracefully (see {@link CliCommand.handlesSignals}). */
  handlesSignals?: boolean;
}

/**
 * A command whose `run` parses the arguments against its flags, answers `--help`, checks its positional
 * argument, then calls {@link FlagCommand.execute}: a command only says what it is and what it does.
 */
export abstract class FlagCommand implements CliCommand {
  /** Name on the command line. */
  readonly name: string;
  /** One line for the command list. */
  readonly summary: string;
  /** Full `--help` text, built from the spec's flags (so it lists exactly what is accepted). */
  readonly help: string;
  /** Its own flags (the common ones come with every command). */
  readonly flags: Readonly<Record<string, FlagSpec>>;
  /** Whether it stops gracefully on SIGINT/SIGTERM. */
  readonly handlesSignals: boolean;
  readonly #argument: string;

  /** Describe the command. */
  constructor(spec: CommandSpec) {
    this.name = spec.name;
    this.summary = spec.summary;
    this.flags = spec.flags;
    this.handlesSignals = spec.handlesSignals ?? false;
    this.#argument = spec.argument ?? "";
    this.help = helpText(spec.name, this.#argument, spec.description, spec.flags);
  }

  /**
   * Run with the arguments after the command name: `--help` prints {@link FlagCommand.help}; a bad flag or
   * argument is a {@link UsageError}; the rest goes to `execute`.
   */
  async run(args: string[], io: CliIo): Promise<number> {
    const parsed = parseFlags(args, this.flags, this.#argument === "" ? 0 : 1);
    if (booleanFlag(parsed.values, "help")) {
      io.stdout(this.help);
      return EXIT_OK;
    }
    const given = parsed.positionals[0];
    if (this.#argument.startsWith("<") && (given === undefined || given.trim() === "")) {
      throw new UsageError(`Missing argument: ${this.#argument}`);
    }
    return await this.execute(parsed, io);
  }

  /** What the command does, with its parsed flags (and argument); resolves to the exit code. */
  protected abstract execute(parsed: ParsedFlags, io: CliIo): Promise<number>;
}
