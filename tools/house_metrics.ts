/**
 * The figures of the issue "One concept, one form", one line each, measured on the working tree: names
 * exported from the root, ways to build a service and to observe a webhook, sync-or-promise return types,
 * comment lines in src/, test files that must run alone, compatibility shims, error families, and (through
 * `tools/arch_metrics.ts` and the `duplicates` command when it is installed) files over 400 lines, the
 * longest function and duplicate pairs. A duplicate pair is counted unless it is boilerplate: marked so by the
 * tool, or by the house's rules in `tools/duplicate_rules.ts` (an import/export list; the signature of an
 * interface's method that each implementation must repeat; a file generated from another by a tool). `--list`
 * prints the pairs counted.
 *
 * Run: `deno run --lock=tests/npm/deno.lock --allow-read --allow-run --allow-env tools/house_metrics.ts`
 *
 * @module
 */

import { classifyDuplicates, type DuplicatePair } from "./duplicate_rules.ts";

const decoder = new TextDecoder();

function run(command: string, args: string[]): string | undefined {
  try {
    const out = new Deno.Command(command, { args, stdout: "piped", stderr: "null" }).outputSync();
    return out.success ? decoder.decode(out.stdout) : undefined;
  } catch {
    return undefined;
  }
}

function walk(dir: string): string[] {
  const out: string[] = [];
  for (const entry of Deno.readDirSync(dir)) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory) out.push(...walk(path));
    else if (entry.name.endsWith(".ts")) out.push(path);
  }
  return out.sort();
}

function rootExports(): string[] {
  const json = run(Deno.execPath(), ["doc", "--json", "mod.ts"]);
  if (json === undefined) return [];
  const nodes = JSON.parse(json).nodes as Record<string, { symbols: { name: string }[] }>;
  const root = Object.entries(nodes).find(([file]) => file.endsWith("/mod.ts"));
  return root === undefined ? [] : root[1].symbols.map((symbol) => symbol.name);
}

/** Lines of `//` and `/* ... *\/` comments against every non-blank line, and the `@example` blocks. */
function commentShare(files: string[]): { comment: number; total: number; examples: number } {
  let comment = 0, total = 0, examples = 0, inBlock = false;
  for (const file of files) {
    for (const raw of Deno.readTextFileSync(file).split("\n")) {
      const line = raw.trim();
      if (line === "") continue;
      total++;
      if (line.includes("@example")) examples++;
      if (inBlock) {
        comment++;
        if (line.includes("*/")) inBlock = false;
      } else if (line.startsWith("//")) {
        comment++;
      } else if (line.startsWith("/*")) {
        comment++;
        inBlock = !line.includes("*/");
      }
    }
  }
  return { comment, total, examples };
}

// A union of a promise and a plain value at the top level of a type (`T | Promise<T>`, `Promise<void> | undefined`),
// not inside a generic argument (`Promise<Entry | null>` is a plain promise).
const SYNC_OR_PROMISE = /\| Promise<|Promise<(?:[^<>]|<(?:[^<>]|<[^<>]*>)*>)*> \|/;

/**
 * The sync-or-promise types of `files`, by line: `results` are what our own functions answer, `inputs` the
 * callbacks whose code (the user's, a broker client's) may answer either, which the library awaits. A field or
 * a local holding a pending promise or none (`#ready: Promise<Client> | undefined`) is neither: not counted.
 */
function syncOrPromiseTypes(files: string[]): { results: string[]; inputs: string[] } {
  const results: string[] = [], inputs: string[] = [];
  for (const file of files) {
    Deno.readTextFileSync(file).split("\n").forEach((raw, index) => {
      const line = raw.trim();
      if (!SYNC_OR_PROMISE.test(line) || line.startsWith("*") || line.startsWith("//")) return;
      const held = /^(?:let|const) /.test(line) ||
        (/^(?:readonly |private )*#?\w+\??: /.test(line) && !line.includes("=>"));
      if (held) return;
      const where = `${file}:${index + 1}`;
      // In a parameter (a callback's answer) or in a user-implemented member: an input. After `): ` or on a
      // signature's closing line: what the function answers.
      const answer = line.includes("): ") ? line.slice(line.lastIndexOf("): ")) : undefined;
      const input = /^abstract |MaybePromise<T> =/.test(line) || (!line.startsWith(")") &&
        (answer !== undefined ? !SYNC_OR_PROMISE.test(answer) : line.includes("=>")));
      (input ? inputs : results).push(where);
    });
  }
  return { results, inputs };
}

function serialTestFiles(): number {
  const config = JSON.parse(Deno.readTextFileSync("deno.json"));
  const command: string = config.tasks?.test?.command ?? config.tasks?.test ?? "";
  const runs = command.split("&&").filter((part) => part.includes("deno test"));
  const serial = runs.find((part) => !part.includes("--parallel"));
  return serial === undefined ? 0 : serial.split(/\s+/).filter((word) => word.endsWith("_test.ts")).length;
}

function exists(path: string): boolean {
  try {
    Deno.statSync(path);
    return true;
  } catch {
    return false;
  }
}

const src = walk("src");
const exported = rootExports();
// The facade (`GatewayApi` and its `gatewayApi()` helper) counts as one documented alias.
const builders = ["configureGateway"].filter((name) => exported.includes(name));
if (exported.includes("GatewayApi") || exported.includes("gatewayApi")) {
  builders.push("GatewayApi/gatewayApi (alias)");
}
const processor = Deno.readTextFileSync("src/webhooks/processor.ts");
// A way to handle a webhook is a handler registration; `use` counts only when it takes something other
// than the one `(ctx, next)` middleware shape, and `registerHandler` only when it is more than a form of
// `on` (the seed's handler class). The `events` are notifications (the seed's event classes), not counted.
const observers = ["on", "onAny"].filter((name) => new RegExp(`^  ${name}[<(]`, "m").test(processor));
if (/^ {2}use\((?!\.\.\.middleware: InboundMiddleware\[\])/m.test(processor)) {
  observers.push("use (not middleware)");
}
const thinForm =
  /^ {2}registerHandler\([^]*?return this\.#add\(handler\.handledEvents\(\), \(payload\) => handler\.handle\(payload\), handler\);/m;
if (/^ {2}registerHandler\(/m.test(processor) && !thinForm.test(processor)) observers.push("registerHandler");
const syncOrPromise = syncOrPromiseTypes(src);
const resultFiles = new Set(syncOrPromise.results.map((where) => where.replace(/:\d+$/, "")));
const instanceofPromise = src.reduce(
  (sum, file) => sum + (Deno.readTextFileSync(file).match(/instanceof Promise\b/g)?.length ?? 0),
  0,
);
// A composition shape is a stage or middleware type of its own: one for `MiddlewareFn` (src/util/compose.ts)
// and every stage, middleware or next type declared otherwise than as a `MiddlewareFn`.
const shapes = ["MiddlewareFn (ctx, next)"];
for (const file of src) {
  if (file.endsWith("/util/compose.ts")) continue;
  const declared = Deno.readTextFileSync(file).matchAll(
    /^export type (\w*(?:Stage|Middleware|Next)\w*)(?:<[^=]*>)? = (?!MiddlewareFn<)(?!\w+<C> \| )/gm,
  );
  for (const match of declared) shapes.push(`${match[1]} (${file})`);
}
const comments = commentShare(src);
const shims = ["src/event_names.ts", "src/webhooks/listeners.ts"].filter(exists);
const setup = Deno.readTextFileSync("src/errors/setup.ts");
const setupUnderApi = /class (ConfigurationException|WebhookException) extends GatewayApiException/.test(
  setup,
);

console.log(`names exported from mod.ts: ${exported.length}`);
console.log(
  `ways to build a service besides make/fromEnv/fromFile: ${builders.length} (${builders.join(", ")})`,
);
console.log(
  `ways to observe a webhook on WebhookProcessor: ${observers.length} (${observers.join(", ")}; ` +
    "registerHandler is the seed's form of on, use takes (ctx, next) middleware, events are notifications)",
);
console.log(`composition shapes in src/: ${shapes.length} (${shapes.join(", ")})`);
console.log(
  `sync-or-promise results of our functions in src/: ${syncOrPromise.results.length} in ${resultFiles.size} files ` +
    `(${instanceofPromise} instanceof Promise); callback inputs that may answer either: ${syncOrPromise.inputs.length}`,
);
if (Deno.args.includes("--list")) {
  for (const where of syncOrPromise.results) console.log(`  result ${where}`);
  for (const where of syncOrPromise.inputs) console.log(`  input  ${where}`);
}
console.log(
  `comment lines in src/: ${(100 * comments.comment / comments.total).toFixed(1)} % ` +
    `(${comments.comment} of ${comments.total} non-blank lines; ${comments.examples} @example)`,
);
console.log(`test files that must run alone: ${serialTestFiles()}`);
console.log(`compatibility shims: ${shims.length} (${shims.join(", ")})`);
console.log(`setup errors extend GatewayApiException: ${setupUnderApi ? "yes" : "no"}`);
const arch = run(Deno.execPath(), [
  "run",
  "--lock=tests/npm/deno.lock",
  "--allow-read",
  "--allow-env",
  "tools/arch_metrics.ts",
]);
if (arch !== undefined) {
  const long = arch.match(/files over 400 lines: (\d+)/)?.[1];
  const longest = arch.match(/longest functions:\n\s+(\d+)/)?.[1];
  const cycles = arch.match(/import cycles \(any import\): (\d+)/)?.[1];
  console.log(`files over 400 lines: ${long}; longest function: ${longest} lines; import cycles: ${cycles}`);
}
const duplicates = run("duplicates", ["--repo", "src", "--seconds", "60", "--most", "200"]);
if (duplicates !== undefined) {
  const pairs: DuplicatePair[] | undefined = classifyDuplicates(
    duplicates,
    src.map((file) => file.slice("src/".length)),
  );
  if (pairs !== undefined) {
    const left = pairs.filter((pair) => pair.rule === undefined);
    const byRule = (rule: string) => pairs.filter((pair) => pair.rule === rule).length;
    console.log(
      `duplicate pairs in src/ (not boilerplate): ${left.length} (boilerplate: ${
        byRule("tool")
      } by the tool, ` +
        `${byRule("generated")} generated, ${byRule("import list")} import/export lists, ${
          byRule("interface signature")
        } interface signatures)`,
    );
    if (Deno.args.includes("--list")) { for (const pair of left) console.log(`  pair ${pair.row}`); }
  }
}
