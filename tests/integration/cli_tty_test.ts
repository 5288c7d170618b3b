// On a terminal Deno asks before granting a permission a task lacks; docs/cli.md promises exit code 2
// instead. These runs put the command on a pseudo-terminal (util-linux `script`) to check exactly that, and
// check that the demo's colours follow NO_COLOR and a terminal standard output.
import { ok, strictEqual } from "node:assert/strict";
import { INHERITED, MAIN, taskFlags, tempDir } from "./cli_helpers.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
const CONFIG = `${ROOT}deno.json`;
const ESC = "\x1b[";

function hasScript(): boolean {
  try {
    return new Deno.Command("script", { args: ["--version"], stdout: "null", stderr: "null" }).outputSync()
      .success;
  } catch {
    return false;
  }
}
const NO_PTY = !hasScript();

function quote(word: string): string {
  return `'${word.replaceAll("'", "'\\''")}'`;
}

/** The environment of the test run without NO_COLOR, plus `extra`. */
function envWith(extra: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of INHERITED) {
    const value = Deno.env.get(name);
    if (value !== undefined) env[name] = value;
  }
  return { ...env, ...extra };
}

/**
 * Run `argv` on a pseudo-terminal with nothing to read on standard input. A prompt would wait forever, so
 * the run is bounded: killed after 30 s, which makes the test fail instead of hang.
 */
async function onTerminal(argv: string[], cwd: string, env: Record<string, string>) {
  const controller = new AbortController();
  const bound = setTimeout(() => controller.abort(), 30_000);
  try {
    const output = await new Deno.Command("script", {
      args: ["-qec", argv.map(quote).join(" "), "/dev/null"],
      cwd,
      env,
      clearEnv: true,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
      signal: controller.signal,
    }).output();
    const text = new TextDecoder().decode(output.stdout) + new TextDecoder().decode(output.stderr);
    return { code: output.code, text, killed: controller.signal.aborted };
  } finally {
    clearTimeout(bound);
  }
}

Deno.test({
  name: "cli on a terminal: a permission the task lacks is exit 2, never a prompt",
  ignore: NO_PTY,
  fn: async () => {
    await using dir = await tempDir();
    // health may read the project directory only; --config points outside it.
    const run = await onTerminal(
      [
        Deno.execPath(),
        "run",
        "--config",
        CONFIG,
        ...taskFlags("health"),
        MAIN,
        "health",
        "--config",
        "../other.json",
      ],
      dir.path,
      envWith({ NO_COLOR: "1" }),
    );
    strictEqual(run.killed, false, `the command waited (a permission prompt?):\n${run.text}`);
    strictEqual(run.code, 2, run.text);
    ok(
      run.text.includes('error: Cannot read configuration "../other.json": not allowed by --allow-read'),
      run.text,
    );
    ok(!run.text.includes("Allow?"), run.text);
  },
});

function demoArgs(): string[] {
  const config = JSON.parse(Deno.readTextFileSync(CONFIG));
  return (config.tasks.demo.command as string).split(" ").slice(1);
}

Deno.test("demo: no colour codes when standard output is not a terminal, even without NO_COLOR", async () => {
  const output = await new Deno.Command(Deno.execPath(), {
    args: demoArgs(),
    cwd: ROOT,
    env: envWith({}),
    clearEnv: true,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stdout = new TextDecoder().decode(output.stdout);
  strictEqual(output.code, 0, stdout);
  ok(stdout.includes("Demo complete."), stdout);
  strictEqual(stdout.includes(ESC), false, "escape codes in piped output");
});

Deno.test({
  name: "demo on a terminal: colours unless NO_COLOR is set",
  ignore: NO_PTY,
  fn: async () => {
    const argv = [Deno.execPath(), ...demoArgs()];
    const plain = await onTerminal(argv, ROOT, envWith({ NO_COLOR: "1" }));
    strictEqual(plain.code, 0, plain.text);
    ok(plain.text.includes("Demo complete."), plain.text);
    strictEqual(plain.text.includes(ESC), false, "escape codes with NO_COLOR set");
    const coloured = await onTerminal(argv, ROOT, envWith({}));
    strictEqual(coloured.code, 0, coloured.text);
    ok(coloured.text.includes(`${ESC}30;107m`), "the QR code is drawn in colour on a terminal");
  },
});
