// deno.json's test tasks: `deno task test` (the fast loop) and `deno task test:slow` together run every test
// file exactly once, `deno task ci` runs both after `deno task check`, and that check type-checks every
// folder that holds tests (the test tasks run with --no-check). docs/testing.md "What each task runs".
import { deepStrictEqual, ok, strictEqual } from "node:assert/strict";

import { covers, taskCommands, testRuns } from "../../tools/test_costs.ts";

const ROOT = new URL("../../", import.meta.url);
const tasks = () => taskCommands(ROOT);

async function testFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for await (const entry of Deno.readDir(new URL(dir, ROOT))) {
    const path = `${dir}${entry.name}`;
    if (entry.isDirectory) out.push(...await testFiles(`${path}/`));
    else if (entry.name.endsWith("_test.ts")) out.push(path);
  }
  return out;
}

Deno.test("deno task test and deno task test:slow run every test file exactly once, none twice", async () => {
  const all = await tasks();
  const runs = [...testRuns(all["test"]), ...testRuns(all["test:slow"])];
  strictEqual(runs.length, 3); // the fast files; the slow ones; the chaos suite on its own
  const files = (await testFiles("tests/")).sort();
  ok(files.length > 150, `${files.length} test files`);
  const missing: string[] = [], twice: string[] = [];
  for (const file of files) {
    const count = runs.filter((run) =>
      run.paths.some((path) =>
        covers(path, file)
      ) && !run.ignore.some((path) => covers(path, file))
    ).length;
    if (count === 0) missing.push(file);
    if (count > 1) twice.push(file);
  }
  deepStrictEqual({ missing, twice }, { missing: [], twice: [] });
  // Every slow file named exists (a renamed file would otherwise drop out of both tasks silently).
  for (const path of runs.flatMap((run) => [...run.paths, ...run.ignore])) {
    ok(files.some((file) => covers(path, file)), `${path} names no test file`);
  }
});

Deno.test("deno task ci runs the check, then the fast tests, then the slow ones; the check covers every test folder", async () => {
  const all = await tasks();
  const ci = all["ci"].split("&&").map((part) => part.trim());
  const at = (step: string) => ci.indexOf(step);
  ok(at("deno task check") >= 0 && at("deno task check") < at("deno task test"), all["ci"]);
  strictEqual(at("deno task test:slow"), at("deno task test") + 1);
  for (const run of [...testRuns(all["test"]), ...testRuns(all["test:slow"])]) {
    ok(all["test"].includes("--no-check") && all["test:slow"].includes("--no-check"));
    ok(run.paths.length > 0);
  }
  const checked = all["check"].split("&&").at(-1)!.trim().split(/\s+/);
  for (const dir of ["tests/unit", "tests/integration", "tests/chaos", "tests/fixtures", "tests/helpers"]) {
    ok(checked.includes(dir), `deno task check does not type-check ${dir}`);
  }
});
