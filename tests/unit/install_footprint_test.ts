// The install footprint: `deno task demo`, the CLI tasks and a user's `deno add` resolve the runtime
// dependencies only. Deno installs every npm package that deno.lock names, so deno.lock must hold the runtime
// ones alone; test-only packages live in tests/npm/ with their own lock. And every task that runs code
// answers a missing permission with an error, never with a prompt.
import { deepStrictEqual, ok } from "node:assert/strict";

const ROOT = new URL("../../", import.meta.url);
const read = (path: string) => Deno.readTextFileSync(new URL(path, ROOT));
const config = JSON.parse(read("deno.json")) as {
  imports: Record<string, string>;
  exports: Record<string, string>;
  tasks: Record<string, { description: string; command: string }>;
};
const lock = JSON.parse(read("deno.lock")) as { specifiers: Record<string, string> };
const testLock = JSON.parse(read("tests/npm/deno.lock")) as { specifiers: Record<string, string> };

function files(dir: string): string[] {
  const found: string[] = [];
  for (const entry of Deno.readDirSync(new URL(dir, ROOT))) {
    const path = `${dir}${entry.name}`;
    if (entry.isDirectory) found.push(...files(`${path}/`));
    else if (entry.name.endsWith(".ts")) found.push(path);
  }
  return found;
}

Deno.test("deno.json imports and deno.lock name the runtime dependencies only, each used by src/", () => {
  const runtime = Object.values(config.imports).sort();
  deepStrictEqual(Object.keys(lock.specifiers).sort(), runtime);
  const source = files("src/").map(read).join("\n");
  for (const name of Object.keys(config.imports)) {
    ok(
      source.includes(`from "${name}"`) || source.includes(`import("${name}")`),
      `${name} is not used by src/`,
    );
  }
});

Deno.test("npm packages outside the import map: one entry point's own, or test-only, and never in deno.lock", () => {
  // An npm package one optional entry point needs (`./redis`) is imported inline in that entry's own files,
  // so `deno task demo` and a user of the other entry points never install it.
  const entryDirs = Object.values(config.exports)
    .map((path) => path.replace(/^\.\//, "").replace(/[^/]+$/, ""))
    .filter((dir) => dir.startsWith("src/") && dir !== "src/");
  const fromSource = new Set<string>();
  for (const path of files("src/")) {
    for (const match of read(path).matchAll(/["'](npm:[^"']+)["']/g)) {
      ok(
        entryDirs.some((dir) => path.startsWith(dir)) && !path.startsWith("src/testing/"),
        `${path} imports ${match[1]}: only an optional entry point's own files may (${entryDirs.join(", ")})`,
      );
      fromSource.add(match[1].replace(/^(npm:(?:@[^/]+\/)?[^/@]+@[^/]+)\/.*$/, "$1")); // a file of a package: the package
    }
  }
  deepStrictEqual([...fromSource].sort(), [
    "npm:@cloudamqp/amqp-client@4.1.1",
    "npm:@nats-io/jetstream@3.4.0",
    "npm:@nats-io/transport-node@3.4.0",
    "npm:@redis/client@6.3.1",
    "npm:socket.io-client@4.8.4",
  ]);
  const pinned: string[] = [...fromSource];
  for (const path of [...files("tests/"), ...files("bench/"), ...files("examples/")]) {
    for (const match of read(path).matchAll(/["'](npm:[^"']+)["']/g)) {
      // Tests may use what src/ pins, at the same version; a test-only package is pinned in tests/npm/.
      if (fromSource.has(match[1])) continue;
      ok(path.startsWith("tests/npm/"), `${path} imports ${match[1]}: pin it in tests/npm/ instead`);
      pinned.push(match[1]);
    }
  }
  ok(pinned.length > 1);
  for (const specifier of pinned) {
    ok(Object.hasOwn(testLock.specifiers, specifier), `${specifier} is not in tests/npm/deno.lock`);
    ok(!Object.hasOwn(lock.specifiers, specifier), `${specifier} leaked into deno.lock`);
  }
});

Deno.test("every task that runs code has --no-prompt, and the test runs use the tests' lock", () => {
  for (const [name, { command }] of Object.entries(config.tasks)) {
    for (const run of command.matchAll(/deno (run|test|bench)\b[^&]*/g)) {
      ok(run[0].includes("--no-prompt"), `task "${name}" may prompt: ${run[0]}`);
    }
  }
  for (const name of ["test", "test:slow", "bench"]) {
    ok(config.tasks[name].command.includes("--lock=tests/npm/deno.lock"), name);
  }
  const check = config.tasks.check.command;
  ok(/deno check --lock=tests\/npm\/deno\.lock [^&]*tests\//.test(check), check);
  // Checking src/backends/redis/ with deno.lock would write @redis/client into it, and every clone would install it.
  for (const run of check.matchAll(/deno check [^&]*/g)) {
    ok(run[0].startsWith("deno check --lock=tests/npm/deno.lock "), run[0]);
  }
});

Deno.test("the check task type-checks every JSDoc example of src/ and every ts block of README and docs", () => {
  const check = config.tasks.check.command;
  ok(check.includes("deno check --lock=tests/npm/deno.lock --doc mod.ts src/ "), check);
  ok(check.includes("--doc-only README.md docs/*.md"), check);
  // A block that cannot be checked says so, and why, right above it.
  for (
    const path of [
      "README.md",
      ...[...Deno.readDirSync(new URL("docs/", ROOT))].map((e) => `docs/${e.name}`),
    ]
  ) {
    const lines = read(path).split("\n");
    lines.forEach((line, index) => {
      if (!/^```(ts|typescript)\b/.test(line) || !/\bignore\b/.test(line)) return;
      const before = lines.slice(Math.max(0, index - 4), index).join(" ");
      ok(before.includes("not type-checked"), `${path}:${index + 1}: an ignored block without its reason`);
    });
  }
});
