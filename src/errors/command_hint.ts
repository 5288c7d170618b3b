/** The package's command line as it runs in a user's project (docs/cli.md has the narrow flags). */
export function cliCommand(command: string): string {
  return `deno run -A jsr:@gw/gateway/cli ${command}`;
}
