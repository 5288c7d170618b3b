// `deno task` is the list a user reads first: every task says what it does, the user tasks come first and the
// development tasks after them (their descriptions say so), every CLI command has its task, and --config
// works under every CLI task for a file in the project directory.
import { deepStrictEqual, ok, strictEqual } from "node:assert/strict";
import { COMMAND_NAMES } from "../../src/cli/main.ts";

const config = JSON.parse(Deno.readTextFileSync(new URL("../../deno.json", import.meta.url))) as {
  tasks: Record<string, { description?: unknown; command?: unknown } | string>;
};

const DEVELOPMENT = ["test", "test:slow", "check", "lint", "fmt", "doc", "bench", "ci", "publish-check"];

Deno.test("deno.json tasks: every one has a description; user tasks first, then the development ones", () => {
  const names = Object.keys(config.tasks);
  for (const name of names) {
    const task = config.tasks[name];
    ok(typeof task === "object", `task "${name}" has no description`);
    ok(typeof task.description === "string" && task.description.length >= 10, name);
    ok(typeof task.command === "string" && task.command !== "", name);
  }
  const development = names.filter((name) =>
    (config.tasks[name] as { description: string }).description.startsWith("Development: ")
  );
  deepStrictEqual(development, DEVELOPMENT);
  // Apart: every user task is listed before the first development task.
  deepStrictEqual(names.slice(names.length - DEVELOPMENT.length), DEVELOPMENT);
  deepStrictEqual(
    names.slice(0, names.length - DEVELOPMENT.length).sort(),
    ["demo", ...COMMAND_NAMES].sort(),
  );
});

Deno.test("deno.json tasks: one per CLI command, running that command, with --config readable in the project", () => {
  const commands = Object.keys(config.tasks).filter((name) => COMMAND_NAMES.includes(name));
  deepStrictEqual([...commands].sort(), [...COMMAND_NAMES].sort());
  for (const name of commands) {
    const command = (config.tasks[name] as { command: string }).command;
    ok(command.endsWith(` src/cli/main.ts ${name}`), command);
    // `--config other.json` reads a file in the project directory (deno task runs there): every CLI task may
    // read it (send may read anything: the items file it is given).
    const read = /--allow-read(=\S+)?/.exec(command)?.[0];
    ok(read === "--allow-read=." || (name === "send" && read === "--allow-read"), `${name}: ${read}`);
  }
  strictEqual((config.tasks.install as { command: string }).command.includes("--allow-write=."), true);
});
