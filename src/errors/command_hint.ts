/**
 * The command a library error suggests (create an instance, pair it, look at it), spelt as it runs in the
 * user's project: the package's command line (the task names of this repository exist only here).
 *
 * @module
 */

/**
 * `deno run -A jsr:@gw/gateway/cli <command>`: the package's command line, which runs in any project (the
 * narrow permission flags are in docs/cli.md; `-A` keeps the hint short).
 */
export function cliCommand(command: string): string {
  return `deno run -A jsr:@gw/gateway/cli ${command}`;
}
