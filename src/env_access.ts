import { denoEnvAccess } from "./webhooks/env.ts";

/** What {@link envReader} gives: the lookup, and the variables it could not read. */
export interface EnvReader {
  /** The variable's value; undefined when unset or not readable. */
  get(name: string): string | undefined;
  /** The variables that could not be read so far, in the order asked. */
  readonly denied: readonly string[];
}

/** Seams for tests: how a variable is read, and where the one line goes. */
export interface EnvReaderOptions {
  /** Read one variable: its value, and whether the permissions refused it (default `Deno.env`, never prompting). */
  access?: (name: string) => { value: string | undefined; denied: boolean };
  /** Write one line (default `console.error`). */
  warn?: (line: string) => void;
  /** The variables already named (default: this reader's own, so a reader names each once). */
  named?: Set<string>;
}

/**
 * A lookup over `Deno.env` that treats a variable `--allow-env` does not list as unset, and says so on
 * standard error once per variable per reader (one `fromEnv()`, one CLI run), instead of Deno's `NotCapable`.
 */
export function envReader(options: EnvReaderOptions = {}): EnvReader {
  const access = options.access ?? denoEnvAccess;
  const warn = options.warn ?? ((line: string) => console.error(line));
  const seen = options.named ?? new Set<string>();
  const denied: string[] = [];
  return {
    get(name) {
      const result = access(name);
      if (!result.denied) return result.value;
      if (!denied.includes(name)) denied.push(name);
      if (!seen.has(name)) {
        seen.add(name);
        warn(
          `[gateway] Cannot read ${name}: not allowed by --allow-env; treated as unset ` +
            `(add it to --allow-env to use it)`,
        );
      }
      return undefined;
    },
    denied,
  };
}
