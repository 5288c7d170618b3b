/**
 * The suite also runs with the date moved ahead under Debian's `faketime` (docs/testing.md), which preloads
 * libfaketime into this process and every child. Two children cannot run under it and keep the real clock:
 * redis-server (its allocator recurses into clock_gettime at start) and workerd (deadlocks at start, even
 * `workerd --version`). These helpers start them on the real clock and read that clock when a test must
 * agree with them.
 */

/** Whether libfaketime is preloaded into this process. */
export function underFaketime(): boolean {
  return (Deno.env.get("LD_PRELOAD") ?? "").includes("faketime");
}

/** This process's environment without libfaketime's variables: for a child that keeps the real clock. */
export function realClockEnv(): Record<string, string> {
  const env = Deno.env.toObject();
  for (const name of Object.keys(env)) {
    if (name === "LD_PRELOAD" || name.startsWith("FAKETIME") || name === "DONT_FAKE_MONOTONIC") {
      delete env[name];
    }
  }
  return env;
}

/**
 * The real clock in epoch seconds: `Date.now()`, or under `faketime` what `date` run without libfaketime
 * says. A sender signs with it so that its timestamps agree with a receiver in workerd, as a gateway
 * server's clock agrees with the receiver's.
 */
export async function realNowSeconds(): Promise<number> {
  if (!underFaketime()) return Math.floor(Date.now() / 1000);
  const { stdout } = await new Deno.Command("date", { args: ["+%s"], env: realClockEnv(), clearEnv: true })
    .output();
  return Number(new TextDecoder().decode(stdout).trim());
}
