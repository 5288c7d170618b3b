/**
 * The package's command line, spelt as it runs in any user's project (this repository's task names exist only
 * here); `-A` keeps the hint short, docs/cli.md has the narrow flags.
 */
export function cliCommand(command: string): string {
  return `deno run -A jsr:@gw/gateway/cli ${command}`;
}
