// docs/guarantees.md is the ledger of promises: every line names the test that proves it. This test keeps
// the ledger honest: each cited file exists, and each cited test name is declared in it, verbatim (a name
// declared with a template, `inbound order (${kind}): …`, may be cited with a value in place of a
// placeholder, or with the placeholder itself; a suite that builds `${harness.name} contract: ${name}` is
// cited with its tail being one of the suite's quoted names). A line whose test is gone fails here, so a
// promise cannot outlive its proof.
import { deepStrictEqual, ok } from "node:assert/strict";

const ROOT = new URL("../../", import.meta.url);
const CHAOS_FILE = "tests/chaos/chaos_test.ts";

/** One citation of the ledger: the row's promise (its start), the file and the test name. */
interface Citation {
  promise: string;
  file: string;
  name?: string;
}

/** The cells of a table row, split at the pipes markdown does not escape. */
function cells(row: string): string[] {
  return row.split(/(?<!\\)\|/).slice(1, -1).map((cell) => cell.trim());
}

/** Markdown escapes the ledger may carry inside a quoted name (`\|`, `\_`, `\*`). */
function unescape(text: string): string {
  return text.replace(/\\([|_*`])/g, "$1");
}

/** Every (file, name) cited by the "proved by" column of every table row; a row without a file too. */
export function citations(ledger: string): Citation[] {
  const found: Citation[] = [];
  for (const row of ledger.split("\n")) {
    if (!row.startsWith("|") || /^\|\s*-/.test(row) || /^\|\s*promise\s*\|/.test(row)) continue;
    const [promise, , proof = ""] = cells(row);
    const tokens = proof.matchAll(/(tests\/[\w/.-]+\.ts)|(\bchaos\b)|"((?:[^"\\]|\\.)*)"/g);
    let file: string | undefined;
    let named = 0;
    for (const [, path, chaos, name] of tokens) {
      if (path || chaos) {
        file = path ?? CHAOS_FILE;
        found.push({ promise, file });
        continue;
      }
      named++;
      found.push({ promise, file: file ?? "(no file)", name: unescape(name) });
    }
    if (file === undefined && named === 0) found.push({ promise, file: "(no file)" });
  }
  return found;
}

/** The string literals of a source file (double-quoted, single-quoted and template), as written. */
function literals(source: string): string[] {
  return [...source.matchAll(/"((?:[^"\\\n]|\\.)*)"|'((?:[^'\\\n]|\\.)*)'|`((?:[^`\\]|\\.)*)`/g)]
    .map((match) => match[1] ?? match[2] ?? match[3]);
}

/**
 * Whether `name` is declared in `source`: verbatim, or as an instance of a template literal whose
 * plain-variable values are written in `source` or `context` (the files it imports).
 */
export function declares(source: string, name: string, context = ""): boolean {
  if (source.includes(name)) return true;
  const quoted = new Set(literals(source).filter((text) => !text.includes("${")));
  for (const template of literals(source).filter((text) => text.includes("${"))) {
    const parts = template.split(/\$\{[^}]+\}/);
    const holes = [...template.matchAll(/\$\{([^}]+)\}/g)].map((hole) => hole[1]);
    const pattern = parts.map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("(.+?)");
    const match = new RegExp(`^${pattern}$`).exec(name);
    if (!match) continue;
    const values = match.slice(1);
    const tail = parts.at(-1) === "" ? values.at(-1) : undefined;
    // A value for a plain variable (a loop's `kind`) is written in this file; one for a member
    // (`harness.name`) comes from the suite's caller.
    const fits = values.every((value, i) =>
      !/^\w+$/.test(holes[i]) || source.includes(value) || context.includes(value)
    ) &&
      (tail === undefined || quoted.has(tail) || template.endsWith(tail));
    if (fits) {
      return true;
    }
  }
  return false;
}

/** The text of the relative modules `source` (at `file`) imports: where a suite's list of stores lives. */
async function imported(file: string, source: string): Promise<string> {
  const base = new URL(file, ROOT);
  const specifiers = [...source.matchAll(/from "(\.{1,2}\/[^"]+)"/g)].map((match) => match[1]);
  const texts = await Promise.all(
    specifiers.map((specifier) => Deno.readTextFile(new URL(specifier, base)).catch(() => "")),
  );
  return texts.join("\n");
}

Deno.test("guarantees ledger: every cited test file exists and declares every cited test name verbatim", async () => {
  const ledger = await Deno.readTextFile(new URL("docs/guarantees.md", ROOT));
  const cited = citations(ledger);
  ok(cited.length > 300, `found ${cited.length} citations`);
  const sources = new Map<string, string | undefined>();
  const missing: string[] = [];
  for (const { promise, file, name } of cited) {
    if (!sources.has(file)) {
      sources.set(file, await Deno.readTextFile(new URL(file, ROOT)).catch(() => undefined));
    }
    const source = sources.get(file);
    if (source === undefined) missing.push(`${file} (no such file) for: ${promise.slice(0, 80)}`);
    else if (name !== undefined && !declares(source, name, await imported(file, source))) {
      missing.push(`${file}: "${name}"`);
    }
  }
  deepStrictEqual(missing, []);
});

Deno.test("guarantees ledger: the checker refuses a name the file does not declare, a wrong value, a row without a test", () => {
  const source = [
    'Deno.test("plain: a name", () => {});',
    'for (const kind of ["memory store", "shared store"]) {',
    "  Deno.test(`order (${kind}): one at a time`, () => {});",
    "}",
    'suite(`${harness.name} contract: ${name}`); test("one claim wins");',
  ].join("\n");
  deepStrictEqual(
    [
      "plain: a name",
      "order (memory store): one at a time",
      "order (${kind}): one at a time",
      "KV contract: one claim wins",
    ].map((name) => declares(source, name)),
    [true, true, true, true],
  );
  deepStrictEqual(
    ["plain: another name", "order (kv store): one at a time", "KV contract: two claims win"]
      .map((name) => declares(source, name)),
    [false, false, false],
  );
  const rows = [
    "| promise | limits | proved by |",
    "| --- | --- | --- |",
    '| A | — | `tests/unit/a_test.ts` "x", "y \\| z" |',
    "| B | — | nothing yet |",
  ].join("\n");
  deepStrictEqual(citations(rows), [
    { promise: "A", file: "tests/unit/a_test.ts" },
    { promise: "A", file: "tests/unit/a_test.ts", name: "x" },
    { promise: "A", file: "tests/unit/a_test.ts", name: "y | z" },
    { promise: "B", file: "(no file)" },
  ]);
});
