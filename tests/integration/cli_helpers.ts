/**
 * Helpers for the CLI integration tests. {@link runCli} runs a command in-process through the CLI's I/O
 * seam (`main(args, memoryIo)`) in a temporary working directory; {@link spawnCli} and {@link cliCommand}
 * run it as a subprocess with exactly the permission flags of its deno.json task, which proves those
 * permissions are enough (one such smoke run per command, in cli_smoke_test.ts).
 *
 * In-process runs change the process's working directory while they run, so the files that use
 * {@link runCli} run in the suite's serial group, never beside another file (docs/testing.md).
 */

import { main, memoryIo } from "../../src/cli/main.ts";
import { NO_NODE_MODULES } from "../helpers/processes.ts";

const ROOT = new URL("../../", import.meta.url);
export const MAIN = new URL("src/cli/main.ts", ROOT).pathname;
const CONFIG = new URL("deno.json", ROOT).pathname;

/** A deno.json task: a command line, or an object with `command` (and `description`). */
type Task = string | { command?: string; description?: string };

let tasks: Record<string, Task> | undefined;

/** The permission flags of a deno.json task: the words between `deno run` and `src/cli/main.ts`. */
export function taskFlags(task: string): string[] {
  tasks ??= JSON.parse(Deno.readTextFileSync(CONFIG)).tasks as Record<string, Task>;
  const entry = tasks[task];
  if (entry === undefined) throw new Error(`No deno.json task "${task}"`);
  const line = typeof entry === "string" ? entry : entry.command;
  if (typeof line !== "string") throw new Error(`Task "${task}" has no command`);
  const words = line.split(/\s+/);
  const start = words.indexOf("run") + 1;
  const end = words.indexOf("src/cli/main.ts");
  if (start === 0 || end === -1) throw new Error(`Task "${task}" does not run src/cli/main.ts`);
  return words.slice(start, end);
}

/** The outcome of one CLI run. */
export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Options of {@link cliCommand}. */
export interface CliOptions {
  /** Working directory (a temporary one). */
  cwd: string;
  /** Extra environment; nothing else from the test's environment leaks in but PATH and HOME. */
  env?: Record<string, string>;
  /** Permission flags to use instead of the task's (e.g. to show what a narrower set does). */
  flags?: string[];
}

/**
 * What a child inherits: PATH, HOME, Deno's cache, and libfaketime's variables (a suite run under
 * `faketime` moves the children's clocks too, see docs/testing.md).
 */
export const INHERITED = [
  "PATH",
  "HOME",
  "DENO_DIR",
  "XDG_CACHE_HOME",
  "LD_PRELOAD",
  "FAKETIME",
  "DONT_FAKE_MONOTONIC",
];

function baseEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = { NO_COLOR: "1" };
  for (const name of INHERITED) {
    const value = Deno.env.get(name);
    if (value !== undefined) env[name] = value;
  }
  return { ...env, ...extra };
}

/** A `Deno.Command` running `task` (its permission flags) with `args` after the command name. */
export function cliCommand(task: string, args: string[], options: CliOptions, piped = true): Deno.Command {
  const flags = options.flags ?? taskFlags(task);
  return new Deno.Command(Deno.execPath(), {
    args: ["run", "--config", CONFIG, NO_NODE_MODULES, ...flags, MAIN, task, ...args],
    cwd: options.cwd,
    env: baseEnv(options.env),
    clearEnv: true,
    stdin: "null",
    stdout: piped ? "piped" : "null",
    stderr: piped ? "piped" : "null",
  });
}

/** Run a command to the end as a subprocess with its task's permission flags. */
export async function spawnCli(task: string, args: string[], options: CliOptions): Promise<CliRun> {
  const output = await cliCommand(task, args, options).output();
  const decoder = new TextDecoder();
  return { code: output.code, stdout: decoder.decode(output.stdout), stderr: decoder.decode(output.stderr) };
}

/**
 * Run a command to the end in-process: `main([task, ...args], memoryIo({ env }))` with `cwd` as the
 * working directory. The environment is `env` only, as for a spawned run; the permissions are the test
 * run's (a permission the task lacks shows only in {@link spawnCli}).
 */
export async function runCli(task: string, args: string[], options: CliOptions): Promise<CliRun> {
  if (options.flags !== undefined) throw new Error("runCli runs in-process: use spawnCli to narrow flags");
  const io = memoryIo({ env: { NO_COLOR: "1", ...options.env } });
  const previous = Deno.cwd();
  Deno.chdir(options.cwd);
  try {
    const code = await main([task, ...args], io);
    return { code, stdout: io.out(), stderr: io.err() };
  } finally {
    Deno.chdir(previous);
    // `--verbose` sends the library's logs to this run's io; a later run must not write there.
    if (args.includes("--verbose")) (await import("@logtape/logtape")).resetSync();
  }
}

// In-process runs that need no files run in this empty directory: a gateway-api.json or gateway.kv in the
// directory the tests run in (a developer's own, written by `deno task install` or `serve`) is never read.
let empty: string | undefined;

/** `memoryIo(options)` whose working directory is an empty temporary one (removed when the process ends). */
export function isolatedIo(options: Parameters<typeof memoryIo>[0] = {}): ReturnType<typeof memoryIo> {
  if (empty === undefined) {
    const dir = Deno.makeTempDirSync({ prefix: "gw_cli_empty_" });
    globalThis.addEventListener("unload", () => Deno.removeSync(dir, { recursive: true }));
    empty = dir;
  }
  return memoryIo({ cwd: empty, ...options });
}

/** A temporary working directory, removed by `Symbol.asyncDispose`. */
export async function tempDir(): Promise<{ path: string } & AsyncDisposable> {
  const path = await Deno.makeTempDir({ prefix: "gw_cli_" });
  return {
    path,
    [Symbol.asyncDispose]: () => Deno.remove(path, { recursive: true }),
  };
}

/** Write `gateway-api.json` (or `name`) in `dir`. */
export async function writeConfig(dir: string, config: unknown, name = "gateway-api.json"): Promise<void> {
  await Deno.writeTextFile(`${dir}/${name}`, JSON.stringify(config, null, 2));
}

/** A port nothing listens on: bound, then released. */
export function closedPort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

/**
 * Read a child's stdout line by line until `match` returns a value; the rest of the stream keeps being
 * collected into `rest()`.
 */
export function lineReader(stream: ReadableStream<Uint8Array>): {
  until<T>(match: (line: string) => T | undefined): Promise<T>;
  rest(): Promise<string>;
} {
  const reader = stream.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  let seen = "";
  let done = false;
  return {
    async until(match) {
      while (true) {
        const newline = buffer.indexOf("\n");
        if (newline !== -1) {
          const line = buffer.slice(0, newline);
          buffer = buffer.slice(newline + 1);
          seen += line + "\n";
          const found = match(line);
          if (found !== undefined) return found;
          continue;
        }
        if (done) throw new Error(`Stream ended before the expected line; output was:\n${seen}${buffer}`);
        const chunk = await reader.read();
        if (chunk.done) done = true;
        else buffer += chunk.value;
      }
    },
    async rest() {
      let text = buffer;
      buffer = "";
      while (!done) {
        const chunk = await reader.read();
        if (chunk.done) done = true;
        else text += chunk.value;
      }
      return text;
    },
  };
}
