/**
 * The `@gw/gateway` command line: `deno task <command>` in this repository, or from the package in any
 * project: `deno run --allow-net "--allow-env=GATEWAY_*" --allow-read=. --allow-write=. --unstable-kv
 * --unstable-cron jsr:@gw/gateway/cli <command>` (see {@link PACKAGE_COMMAND}).
 *
 * Commands: `install`, `create`, `health`, `status`, `connect`, `send`, `prune`, `retry-failed`, `reconcile-sends`,
 * `reconcile`, `serve`. Each has
 * `--help`; exit codes are 0 (ok), 1 (a check failed) and 2 (bad usage or configuration). Errors are one
 * line on standard error; `--verbose` adds the stack trace.
 *
 * This module is the CLI only: `mod.ts` never loads it, so its Node built-ins and its QR encoder never
 * reach Workers.
 *
 * @example Run a command in-process
 * ```ts
 * import { main } from "@gw/gateway/cli";
 * const code = await main(["health", "--json"]);
 * ```
 *
 * @module
 */

import { VERSION } from "../client/client.ts";
import { ConfigurationException, ValidationException } from "../errors.ts";
import { type CliCommand, PACKAGE_COMMAND, runCommand } from "./command.ts";
import {
  CliError,
  type CliIo,
  denoIo,
  errorText,
  EXIT_FAILED,
  EXIT_OK,
  EXIT_USAGE,
  isPermissionError,
  UsageError,
} from "./io.ts";

export { type CliIo, EXIT_FAILED, EXIT_OK, EXIT_USAGE, memoryIo } from "./io.ts";
export { PACKAGE_COMMAND } from "./command.ts";

/** A command known by name, loaded only when it runs (so `install` never loads the HTTP client). */
interface CommandEntry {
  summary: string;
  load(): Promise<CliCommand>;
}

const COMMANDS: Record<string, CommandEntry> = {
  install: {
    summary: "write a starter gateway-api.json and print the next steps",
    load: async () => new (await import("./install.ts")).InstallCommand(),
  },
  create: {
    summary: "create an instance on the gateway server (then pair it with connect)",
    load: async () => new (await import("./create.ts")).CreateCommand(),
  },
  health: {
    summary: "check that every connection is reachable and its key accepted",
    load: async () => new (await import("./health.ts")).HealthCommand(),
  },
  status: {
    summary: "list instances with their state, owner and profile name",
    load: async () => new (await import("./status.ts")).InstanceStatusCommand(),
  },
  connect: {
    summary: "show an instance's QR code and wait until it is paired",
    load: async () => new (await import("./connect.ts")).ConnectCommand(),
  },
  send: {
    summary: "send many messages from a file, paced and resumable",
    load: async () => new (await import("./send.ts")).SendCommand(),
  },
  prune: {
    summary: "delete stored records older than N days",
    load: async () => new (await import("./prune.ts")).PruneCommand(),
  },
  "retry-failed": {
    summary: "resend failed messages recorded in the store",
    load: async () => new (await import("./retry_failed.ts")).RetryFailedCommand(),
  },
  "reconcile-sends": {
    summary: "settle sends whose outcome is unknown by looking for them on the server",
    load: async () => new (await import("./reconcile_sends.ts")).ReconcileSendsCommand(),
  },
  reconcile: {
    summary: "recover inbound messages whose webhooks were dropped",
    load: async () => new (await import("./reconcile.ts")).ReconcileCommand(),
  },
  serve: {
    summary: "run the webhook receiver, queue worker and scheduled tasks",
    load: async () => new (await import("./serve.ts")).ServeCommand(),
  },
};

/** The names of every command, in help order. */
export const COMMAND_NAMES: readonly string[] = Object.keys(COMMANDS);

function usage(): string {
  const width = Math.max(...COMMAND_NAMES.map((name) => name.length));
  const lines = COMMAND_NAMES.map((name) => `  ${name.padEnd(width)}  ${COMMANDS[name].summary}`);
  // In a checkout both forms work; from the package only the package command does.
  const forms = [...new Set([runCommand("<command> [flags]"), `${PACKAGE_COMMAND} <command> [flags]`])];
  return `@gw/gateway ${VERSION}

Usage: ${forms.join("\n       ")}

Commands:
${lines.join("\n")}

Run "<command> --help" for a command's flags. Configuration: gateway-api.json in the working directory
(or --config <path>, a file in the project directory) and the GATEWAY_* environment variables.

Exit codes: 0 ok, 1 a check failed, 2 bad usage or configuration.
`;
}

function exitCodeOf(error: unknown): number {
  if (error instanceof CliError) return error.exitCode;
  // A permission the task does not grant is a configuration problem, not a failed check.
  if (isPermissionError(error)) return EXIT_USAGE;
  // Refused by the library before any request: the user's input (a flag or argument) is invalid.
  if (error instanceof ValidationException && error.status === undefined) return EXIT_USAGE;
  // A wrong configuration is bad usage too (docs/cli.md: exit 2), whichever command found it.
  if (error instanceof ConfigurationException) return EXIT_USAGE;
  return EXIT_FAILED;
}

/** The one line that says what went wrong, with where to look next. */
function errorLine(error: unknown, command: string): string {
  if (!(error instanceof Error)) return String(error);
  const line = errorText(error);
  if (isPermissionError(error)) return `${line} (the task's permissions do not allow it; see docs/cli.md)`;
  if (error instanceof UsageError) return `${line} (see "${command} --help")`;
  return line;
}

function describe(error: unknown, verbose: boolean, command: string): string {
  if (!(error instanceof Error)) return `error: ${String(error)}\n`;
  if (!verbose) return `error: ${errorLine(error, command)}\n`;
  let text = `error: ${error.stack ?? errorText(error)}\n`;
  let cause = error.cause;
  for (let depth = 0; cause !== undefined && depth < 5; depth++) {
    text += `caused by: ${cause instanceof Error ? cause.stack ?? cause.message : String(cause)}\n`;
    cause = cause instanceof Error ? cause.cause : undefined;
  }
  return text;
}

/**
 * Run the CLI with `args` (the command and its flags) and resolve to the process exit code. Never
 * throws and never exits the process, so tests can call it in-process.
 *
 * @example
 * ```ts
 * import { main } from "@gw/gateway/cli";
 * Deno.exitCode = await main(["status", "sales"]);
 * ```
 */
export async function main(args: string[], io?: CliIo): Promise<number> {
  const given = io;
  io ??= denoIo();
  const [name, ...rest] = args;
  if (name === undefined) {
    io.stderr(usage());
    return EXIT_USAGE;
  }
  if (name === "--help" || name === "-h" || name === "help") {
    io.stdout(usage());
    return EXIT_OK;
  }
  if (name === "--version" || name === "-V") {
    io.stdout(`${VERSION}\n`);
    return EXIT_OK;
  }
  const entry = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (entry === undefined) {
    const known = COMMAND_NAMES.map((item) => `"${item}"`).join(", ");
    io.stderr(`error: Unknown command "${name}" (commands: ${known})\n`);
    return EXIT_USAGE;
  }
  const verbose = rest.includes("--verbose");
  let command: CliCommand | undefined;
  let reported = false;
  // Notes whether the command printed its own report, so a failure after it adds no second document.
  const watched = (target: CliIo): CliIo =>
    Object.assign(Object.create(target) as CliIo, {
      stdout: (text: string) => {
        reported = true;
        target.stdout(text);
      },
    });
  try {
    if (verbose) await enableDebugLogs(io);
    command = await entry.load();
    if (given !== undefined || command.handlesSignals !== true) return await command.run(rest, watched(io));
    const signals = listenForSignals();
    try {
      return await command.run(rest, watched(denoIo(signals.signal)));
    } finally {
      signals.dispose();
    }
  } catch (error) {
    const exitCode = exitCodeOf(error);
    // `--json` promises one JSON document on standard output, failures included.
    if (rest.includes("--json") && command?.flags.json !== undefined && !reported) {
      io.stdout(`${JSON.stringify({ error: { message: errorLine(error, name), exitCode } }, null, 2)}\n`);
    }
    io.stderr(describe(error, verbose, name));
    return exitCode;
  }
}

/** SIGINT/SIGTERM abort the signal once; a second one exits at once (130, as a shell reports SIGINT). */
function listenForSignals(): { signal: AbortSignal; dispose(): void } {
  const controller = new AbortController();
  const onSignal = () => {
    if (controller.signal.aborted) Deno.exit(130);
    controller.abort(new Error("Interrupted"));
  };
  const names: Deno.Signal[] = Deno.build.os === "windows" ? ["SIGINT"] : ["SIGINT", "SIGTERM"];
  for (const name of names) Deno.addSignalListener(name, onSignal);
  return {
    signal: controller.signal,
    dispose: () => names.forEach((name) => Deno.removeSignalListener(name, onSignal)),
  };
}

/** With `--verbose`, the library's LogTape records go to standard error (never stdout: `--json` stays clean). */
async function enableDebugLogs(io: CliIo): Promise<void> {
  const { configure } = await import("@logtape/logtape");
  await configure({
    reset: true,
    sinks: {
      stderr: (record) => {
        const text = record.message.map((part) => typeof part === "string" ? part : JSON.stringify(part))
          .join("");
        io.stderr(`${record.level.toUpperCase()} ${record.category.join(".")}: ${text}\n`);
      },
    },
    loggers: [
      { category: ["gateway"], lowestLevel: "debug", sinks: ["stderr"] },
      { category: ["logtape", "meta"], lowestLevel: "warning", sinks: ["stderr"] },
    ],
  });
}

if (import.meta.main) {
  Deno.exit(await main(Deno.args));
}
