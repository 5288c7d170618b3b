/**
 * What the test suite costs, file by file: runs every test file alone (`deno test --no-check`, the flags of
 * `deno task test`) under `/usr/bin/time`, and prints a Markdown table sorted by CPU time (user + system,
 * children included), with each file's wall time, its test count and its slowest tests, then the type-check
 * step's cost and the totals. Files run one at a time, so a file's figures are its own; the machine's load
 * average is printed before and after, since wall times on a shared machine are the load's.
 *
 * Run: `deno run --allow-read --allow-run --allow-write --allow-env --allow-sys tools/test_costs.ts
 * [--no-check-step] [--task test|test:slow] [--out <file.md>] [file or folder ...]` (default: every
 * `*_test.ts` under tests/; `--task` keeps the files that deno.json's task runs). The table of docs/testing.md
 * "What the suite costs" comes from it.
 *
 * @module
 */

const LOCK = "tests/npm/deno.lock";
const TEST_FLAGS = [
  "test",
  "--no-check",
  "--no-prompt",
  `--lock=${LOCK}`,
  "--allow-net=127.0.0.1,localhost",
  "--allow-read",
  "--allow-write",
  "--allow-env",
  "--allow-run",
  "--allow-sys",
];
const CHECK_ARGS = [
  "check",
  `--lock=${LOCK}`,
  ...["examples/", "bench/", "tests/unit", "tests/integration", "tests/chaos", "tests/fixtures"],
  ...["tests/helpers", "tests/npm"],
];
const decoder = new TextDecoder();

/** One measured command: wall and CPU seconds, its exit code and output. */
interface Cost {
  wall: number;
  user: number;
  sys: number;
  code: number;
  output: string;
}

/** A file's figures: its cost, its counts and its slowest tests. */
interface FileCost extends Cost {
  file: string;
  passed: number;
  failed: number;
  ignored: number;
  slowest: { name: string; ms: number }[];
}

async function measure(args: string[]): Promise<Cost> {
  const timeFile = await Deno.makeTempFile({ prefix: "test_costs_" });
  try {
    const out = await new Deno.Command("/usr/bin/time", {
      args: ["-o", timeFile, "-f", "%e %U %S", Deno.execPath(), ...args],
      stdout: "piped",
      stderr: "piped",
      env: { NO_COLOR: "1" },
    }).output();
    const [wall, user, sys] = (await Deno.readTextFile(timeFile)).trim().split("\n").at(-1)!.split(" ")
      .map(Number);
    const output = decoder.decode(out.stdout) + decoder.decode(out.stderr);
    return { wall, user, sys, code: out.code, output };
  } finally {
    await Deno.remove(timeFile);
  }
}

function durationMs(text: string): number {
  // Deno prints "(12ms)", "(1s)" or "(1m 2s)".
  let ms = 0;
  for (const [, value, unit] of text.matchAll(/(\d+)(ms|s|m)\b/g)) {
    ms += Number(value) * (unit === "ms" ? 1 : unit === "s" ? 1000 : 60_000);
  }
  return ms;
}

function parseRun(file: string, cost: Cost): FileCost {
  const summary = cost.output.match(/(\d+) passed.*?\| (\d+) failed/);
  const ignored = cost.output.match(/(\d+) ignored/);
  const tests: { name: string; ms: number }[] = [];
  for (const [, name, time] of cost.output.matchAll(/^(\S.*?) \.\.\. (?:ok|FAILED|ignored) \(([^)]+)\)$/gm)) {
    tests.push({ name, ms: durationMs(time) });
  }
  tests.sort((a, b) => b.ms - a.ms);
  return {
    ...cost,
    file,
    passed: Number(summary?.[1] ?? 0),
    failed: Number(summary?.[2] ?? (cost.code === 0 ? 0 : 1)),
    ignored: Number(ignored?.[1] ?? 0),
    slowest: tests.slice(0, 2),
  };
}

async function testFiles(roots: string[]): Promise<string[]> {
  const files: string[] = [];
  async function walk(path: string): Promise<void> {
    const info = await Deno.stat(path);
    if (info.isFile) {
      files.push(path);
      return;
    }
    for await (const entry of Deno.readDir(path)) {
      const child = `${path.replace(/\/$/, "")}/${entry.name}`;
      if (entry.isDirectory) await walk(child);
      else if (/_test\.ts$/.test(entry.name)) files.push(child);
    }
  }
  for (const root of roots) await walk(root);
  return files.sort();
}

function loadAverage(): string {
  try {
    return Deno.loadavg().map((value) => value.toFixed(2)).join(" ");
  } catch {
    return "unknown (run with --allow-sys)";
  }
}

/** deno.json's tasks, each as its command line. */
export async function taskCommands(root: URL): Promise<Record<string, string>> {
  const config = JSON.parse(await Deno.readTextFile(new URL("deno.json", root))) as {
    tasks: Record<string, { command: string } | string>;
  };
  return Object.fromEntries(
    Object.entries(config.tasks).map((
      [name, task],
    ) => [name, typeof task === "string" ? task : task.command]),
  );
}

/** The paths of each `deno test` of a task's command, and each run's `--ignore` list. */
export function testRuns(command: string): { paths: string[]; ignore: string[] }[] {
  return command.split("&&").map((part) => part.trim().split(/\s+/)).filter((words) =>
    words[0] === "deno" && words[1] === "test"
  ).map((words) => ({
    paths: words.slice(2).filter((word) => !word.startsWith("-")),
    ignore: words.flatMap((word) =>
      word.startsWith("--ignore=") ? word.slice("--ignore=".length).split(",") : []
    ),
  }));
}

/** Whether a path of a `deno test` line (a file, or a folder ending in "/") names `file`. */
export function covers(path: string, file: string): boolean {
  return path.endsWith("/") ? file.startsWith(path) : file === path;
}

/** The test tasks of deno.json that run `file`: "test", "test:slow", both or neither. */
function tasksRunning(tasks: Record<string, string>, file: string): string {
  const names = ["test", "test:slow"].filter((name) =>
    testRuns(tasks[name] ?? "").some((run) =>
      run.paths.some((path) => covers(path, file)) && !run.ignore.some((path) => covers(path, file))
    )
  );
  return names.length === 0 ? "none" : names.join(", ");
}

const seconds = (value: number) => value.toFixed(1);

function table(rows: FileCost[], tasks: Record<string, string>): string[] {
  const lines = [
    "| file | task | wall s | cpu s (user+sys) | tests | slowest tests |",
    "| ---- | ---- | -----: | ---------------: | ----: | ------------- |",
  ];
  for (const row of rows) {
    const slow = row.slowest.filter((t) => t.ms >= 500).map((t) => `${t.name} (${seconds(t.ms / 1000)} s)`);
    const status = row.failed > 0 ? ` (${row.failed} failed)` : "";
    lines.push(
      `| ${row.file} | ${tasksRunning(tasks, row.file)} | ${seconds(row.wall)} | ${
        seconds(row.user + row.sys)
      } | ${row.passed}${status} | ${slow.join("; ").replaceAll("|", "\\|")} |`,
    );
  }
  return lines;
}

async function main(args: string[]): Promise<void> {
  const option = (name: string) => {
    const at = args.indexOf(name);
    return at >= 0 ? args[at + 1] : undefined;
  };
  const out = option("--out"), task = option("--task");
  const checkStep = !args.includes("--no-check-step");
  const roots = args.filter((arg, i) => !arg.startsWith("--") && !["--out", "--task"].includes(args[i - 1]));
  const tasks = await taskCommands(new URL(`file://${Deno.cwd()}/`));
  const files = (await testFiles(roots.length > 0 ? roots : ["tests/"])).filter((file) =>
    task === undefined || tasksRunning(tasks, file).split(", ").includes(task)
  );
  const lines = [`load average before: ${loadAverage()}`];
  if (checkStep) {
    const check = await measure(CHECK_ARGS);
    lines.push(
      `type-check (deno ${CHECK_ARGS.join(" ")}): ${seconds(check.wall)} s wall, ${
        seconds(check.user + check.sys)
      } s cpu, exit ${check.code}`,
    );
    console.error(lines.at(-1));
  }
  const rows: FileCost[] = [];
  for (const file of files) {
    const row = parseRun(file, await measure([...TEST_FLAGS, file]));
    console.error(
      `${file}: ${seconds(row.wall)} s wall, ${seconds(row.user + row.sys)} s cpu, ${row.passed} ok`,
    );
    rows.push(row);
  }
  rows.sort((a, b) => (b.user + b.sys) - (a.user + a.sys));
  const sum = (pick: (row: FileCost) => number, task?: string) =>
    rows.filter((row) => task === undefined || tasksRunning(tasks, row.file) === task)
      .reduce((total, row) => total + pick(row), 0);
  lines.push(
    `load average after: ${loadAverage()}`,
    `${rows.length} files, ${sum((r) => r.passed)} passed, ${sum((r) => r.failed)} failed: ${
      seconds(sum((r) => r.wall))
    } s wall one at a time, ${seconds(sum((r) => r.user + r.sys))} s cpu`,
    ...["test", "test:slow"].map((task) =>
      `of which deno task ${task}: ${seconds(sum((r) => r.wall, task))} s wall one at a time, ${
        seconds(sum((r) => r.user + r.sys, task))
      } s cpu, ${sum((r) => r.passed, task)} passed`
    ),
    "",
    ...table(rows, tasks),
  );
  const text = lines.join("\n") + "\n";
  if (out !== undefined) await Deno.writeTextFile(out, text);
  console.log(text);
}

if (import.meta.main) await main(Deno.args);
