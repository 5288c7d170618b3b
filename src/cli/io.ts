/**
 * What the CLI needs from the outside, behind one interface tests can fake; shared exit codes and errors.
 *
 * @module
 */

import { envReader } from "../env_access.ts";

/** Exit code: the command did what it was asked and every check passed. */
export const EXIT_OK = 0;
/** Exit code: a check failed (unreachable server, refused key, timeout, failed retries). */
export const EXIT_FAILED = 1;
/** Exit code: bad usage (unknown flag, bad value) or bad or missing configuration. */
export const EXIT_USAGE = 2;

/** Input, output and environment of one CLI run. */
export interface CliIo {
  /** Write text to standard output as is (no newline added). */
  stdout(text: string): void;
  /** Write text to standard error as is (no newline added). */
  stderr(text: string): void;
  /** Whether standard output is a terminal (spinners and progress bars animate only then). */
  stdoutIsTerminal: boolean;
  /** Whether standard error is a terminal. */
  stderrIsTerminal: boolean;
  /** Whether standard input is a terminal (commands prompt only then). */
  stdinIsTerminal: boolean;
  /** Ask a question on the terminal; null when there is no answer (end of input). */
  prompt(question: string): Promise<string | null>;
  /** Read an environment variable; undefined when unset or not permitted. */
  env(name: string): string | undefined;
  /** Whether colours are allowed (`NO_COLOR` unset and a terminal). */
  color: boolean;
  /** Aborted when the process receives SIGINT or SIGTERM (only `serve` and `connect` listen). */
  signal?: AbortSignal;
  /** Directory relative paths (config, KV file, `install`/`send` files) resolve against; default: cwd. */
  cwd?: string;
}

/** `path` resolved against `io.cwd` (unchanged when it is absolute or `io.cwd` is not set). */
export function resolvePath(io: CliIo, path: string): string {
  if (io.cwd === undefined || /^([a-zA-Z]:)?[\\/]/.test(path)) return path;
  return `${io.cwd.replace(/[\\/]+$/, "")}/${path}`;
}

/** An error that ends a command with a given exit code and a one-line message. */
export class CliError extends Error {
  /** The process exit code to use. */
  readonly exitCode: number;

  /** Build the error. */
  constructor(message: string, exitCode: number = EXIT_FAILED, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "CliError";
    this.exitCode = exitCode;
  }
}

/** Bad usage: exit code 2. */
export class UsageError extends CliError {
  /** Build the error. */
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, EXIT_USAGE, options);
    this.name = "UsageError";
  }
}

/** Whether `error` is Deno's permission error (`NotCapable` on Deno 2, `PermissionDenied` before). */
export function isPermissionError(error: unknown): boolean {
  const errors = Deno.errors as unknown as Record<string, (new () => Error) | undefined>;
  return [errors.NotCapable, errors.PermissionDenied].some((type) =>
    type !== undefined && error instanceof type
  );
}

function isTerminal(stream: { isTerminal(): boolean }): boolean {
  try {
    return stream.isTerminal();
  } catch {
    return false;
  }
}

/** The real process: Deno's standard streams, environment and `prompt()`. */
export function denoIo(signal?: AbortSignal): CliIo {
  const encoder = new TextEncoder();
  const stdoutIsTerminal = isTerminal(Deno.stdout);
  return {
    stdout: (text) => void Deno.stdout.writeSync(encoder.encode(text)),
    stderr: (text) => void Deno.stderr.writeSync(encoder.encode(text)),
    stdoutIsTerminal,
    stderrIsTerminal: isTerminal(Deno.stderr),
    stdinIsTerminal: isTerminal(Deno.stdin),
    prompt: (question) => Promise.resolve(prompt(question)),
    // Not in --allow-env: treated as unset (named once on stderr), so narrow permissions never crash a command.
    env: envReader().get,
    color: stdoutIsTerminal && !Deno.noColor,
    signal,
  };
}

/**
 * An in-memory io for tests: captured output, fixed environment, scripted answers, and the directory files
 * are read from and written to (`cwd`; give a temporary one so that a test never reads the files of the
 * directory it runs in).
 *
 * @example
 * ```ts
 * import { main, memoryIo } from "@gw/gateway/cli";
 * const io = memoryIo({ env: { GATEWAY_API_URL: "http://127.0.0.1:8080", GATEWAY_API_KEY: "k" } });
 * const code = await main(["health", "--json"], io);
 * console.log(code, JSON.parse(io.out()).ok);
 * ```
 */
export function memoryIo(
  options: {
    env?: Record<string, string>;
    answers?: string[];
    terminal?: boolean;
    signal?: AbortSignal;
    cwd?: string;
  } = {},
): CliIo & { out(): string; err(): string } {
  let out = "";
  let err = "";
  const answers = [...(options.answers ?? [])];
  const terminal = options.terminal ?? false;
  return {
    stdout: (text) => void (out += text),
    stderr: (text) => void (err += text),
    stdoutIsTerminal: terminal,
    stderrIsTerminal: terminal,
    stdinIsTerminal: terminal,
    prompt: (question) => {
      out += `${question} `;
      return Promise.resolve(answers.length > 0 ? answers.shift()! : null);
    },
    env: (name) => options.env?.[name],
    color: false,
    signal: options.signal,
    cwd: options.cwd,
    out: () => out,
    err: () => err,
  };
}

/**
 * One line for an error. A bare `fetch failed` gets the innermost cause's last clause appended
 * (`Connection refused (os error 111)`), because that is the part an operator can act on.
 */
export function errorText(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  let text = error.message.split("\n")[0];
  if (/fetch failed$/i.test(text)) {
    let inner: unknown = error.cause;
    let deepest: string | undefined;
    for (let depth = 0; inner instanceof Error && depth < 5; depth++) {
      if (!/^fetch failed$/i.test(inner.message)) deepest = inner.message;
      inner = inner.cause;
    }
    const detail = deepest?.split(": ").at(-1);
    if (detail) text += ` (${detail})`;
  }
  return text;
}
