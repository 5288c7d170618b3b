/**
 * The `@example` blocks of src/ that no user sees: on a symbol or member that no entry point of deno.json
 * "exports" reaches (`deno doc --json` of the entries lists what does), and on the module doc of a file that
 * is not an entry. Examples belong on public exports (issue "One concept, one form"); these only add
 * comment lines.
 *
 * With `--implemented`, also the examples on the methods of a class that implement a member of one of
 * src/'s interfaces (the contract documents the call). With `--restated`, also the examples on a class's
 * members whose call the class's own example shows already. With `--trivial`, also the examples on
 * accessors that only return a field. With `--members`, also every example on a member of a class whose own
 * example shows how to reach it (a resource's `gw.chats().archive(...)` repeats `gw.chats().find...(...)`).
 *
 * Run: `deno run --lock=tests/npm/deno.lock --allow-read --allow-run --allow-env tools/private_examples.ts`
 * (add `--fix` to delete the blocks, `--skip <path prefix>` any number of times to leave files alone).
 *
 * @module
 */
import { ts } from "../tests/npm/typescript.ts";
import { tsFiles } from "./ts_files.ts";

const fix = Deno.args.includes("--fix");
// Also the examples on a class's methods that implement a member of an interface of src/ (the contract's
// JSDoc documents the call; `KvStore.getOutbound` restating `GatewayStore.getOutbound` adds nothing).
const implemented = Deno.args.includes("--implemented");
// Also the examples on a class's members whose call the class's own example already shows (`new C(` for
// the constructor, `.name(` for a method or accessor).
const restated = Deno.args.includes("--restated");
// Also the examples on accessors whose body only returns a field (`getConfig()`, `get events()`): the
// signature says all the example does.
const trivial = Deno.args.includes("--trivial");
// Also every example on a member of a class that has its own example: the class example shows how to get
// the object, and the member's signature what to pass.
const members = Deno.args.includes("--members");
const skips = Deno.args.flatMap((arg, i) => Deno.args[i - 1] === "--skip" ? [arg] : []);
const root = Deno.cwd();

const exportsMap = JSON.parse(Deno.readTextFileSync("deno.json")).exports as Record<string, string>;
const entries = Object.values(exportsMap).map((path) => path.replace(/^\.\//, ""));
const doc = new Deno.Command(Deno.execPath(), { args: ["doc", "--json", ...entries], stdout: "piped" })
  .outputSync();
if (!doc.success) throw new Error("deno doc --json failed");

/** `file:line` of every declaration and member the entries show (private members left out). */
const publicAt = new Set<string>();
const collect = (value: unknown): void => {
  if (Array.isArray(value)) return value.forEach(collect);
  if (value === null || typeof value !== "object") return;
  const record = value as Record<string, unknown>;
  if (record.accessibility === "private") return;
  const location = record.location as { filename?: string; line?: number } | undefined;
  if (location?.filename?.startsWith("file://") && typeof location.line === "number") {
    publicAt.add(`${location.filename.slice(`file://${root}/`.length)}:${location.line}`);
  }
  for (const child of Object.values(record)) collect(child);
};
collect(JSON.parse(new TextDecoder().decode(doc.stdout)));

interface Block {
  file: string;
  /** 0-based line of `@example`. */
  start: number;
  /** 0-based line after the block. */
  end: number;
}

/** The `@example` blocks of one JSDoc comment spanning `first`..`last` (0-based lines). */
function examplesIn(lines: string[], first: number, last: number, file: string): Block[] {
  const blocks: Block[] = [];
  let fence = false;
  for (let i = first; i <= last; i++) {
    const text = lines[i].trim().replace(/^\/?\*+\s?/, "");
    if (text.startsWith("```")) fence = !fence;
    if (fence || !text.startsWith("@example")) continue;
    let end = i + 1;
    let inFence = false;
    for (; end <= last; end++) {
      const body = lines[end].trim();
      const inner = body.replace(/^\*+\s?/, "");
      if (inner.startsWith("```")) inFence = !inFence;
      if (!inFence && (body.startsWith("*/") || inner.startsWith("@"))) break;
    }
    // A closing `*/` on the last line of the block stays.
    blocks.push({ file, start: i, end: Math.min(end, last) });
    i = end - 1;
  }
  return blocks;
}

/** Interface name → its member names, over src/. */
const interfaceMembers = new Map<string, Set<string>>();
if (implemented) {
  for (const file of tsFiles("src")) {
    const source = ts.createSourceFile(file, Deno.readTextFileSync(file), ts.ScriptTarget.Latest, true);
    source.forEachChild((node) => {
      if (!ts.isInterfaceDeclaration(node)) return;
      const names = interfaceMembers.get(node.name.text) ?? new Set<string>();
      for (const member of node.members) {
        if (member.name !== undefined) names.add(member.name.getText(source));
      }
      interfaceMembers.set(node.name.text, names);
    });
  }
}

/** Whether `node` is a method of a class that implements an interface of src/ naming it. */
function implementsMember(node: ts.Node, source: ts.SourceFile): boolean {
  if (!implemented || !(ts.isMethodDeclaration(node) || ts.isGetAccessor(node))) return false;
  const owner = node.parent;
  if (!ts.isClassDeclaration(owner)) return false;
  const name = node.name.getText(source);
  return (owner.heritageClauses ?? [])
    .filter((clause) => clause.token === ts.SyntaxKind.ImplementsKeyword)
    .flatMap((clause) => clause.types)
    .some((type) =>
      interfaceMembers.get(type.expression.getText(source).split(".").pop()!)?.has(name) === true
    );
}

/** Whether the example of class member `node` restates a call the class's own example shows. */
function restatesClassExample(node: ts.Node, source: ts.SourceFile): boolean {
  if (!restated) return false;
  const owner = node.parent;
  if (!ts.isClassDeclaration(owner) || owner.name === undefined) return false;
  const classDoc = ((owner as { jsDoc?: ts.JSDoc[] }).jsDoc ?? []).map((d) => d.getText(source)).join("\n");
  const example = classDoc.slice(classDoc.indexOf("@example") >>> 0);
  if (!classDoc.includes("@example")) return false;
  if (ts.isConstructorDeclaration(node)) return example.includes(`new ${owner.name.text}(`);
  if (!(ts.isMethodDeclaration(node) || ts.isGetAccessor(node))) return false;
  const name = node.name.getText(source);
  return ts.isGetAccessor(node) ? new RegExp(`\\.${name}\\b`).test(example) : example.includes(`.${name}(`);
}

/** Whether `node` is a member of a class whose own JSDoc has an example. */
function memberOfDocumentedClass(node: ts.Node, source: ts.SourceFile): boolean {
  if (!members || !ts.isClassElement(node)) return false;
  const owner = node.parent;
  if (!ts.isClassDeclaration(owner)) return false;
  return ((owner as { jsDoc?: ts.JSDoc[] }).jsDoc ?? []).some((d) => d.getText(source).includes("@example"));
}

/** Whether class member `node` only returns one of the object's fields. */
function returnsAField(node: ts.Node): boolean {
  if (!trivial || !(ts.isMethodDeclaration(node) || ts.isGetAccessor(node)) || node.body === undefined) {
    return false;
  }
  if (node.parameters.length > 0 || node.body.statements.length !== 1) return false;
  const only = node.body.statements[0];
  if (!ts.isReturnStatement(only) || only.expression === undefined) return false;
  let value: ts.Expression = only.expression;
  if (!ts.isPropertyAccessExpression(value)) return false;
  while (ts.isPropertyAccessExpression(value)) value = value.expression;
  return value.kind === ts.SyntaxKind.ThisKeyword;
}

const found: Block[] = [];
for (const file of tsFiles("src")) {
  if (skips.some((prefix) => file.startsWith(prefix))) continue;
  const text = Deno.readTextFileSync(file);
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const lines = text.split("\n");
  const isEntry = entries.includes(file);
  const seen = new Set<number>();
  const visit = (node: ts.Node): void => {
    const docs = (node as { jsDoc?: ts.JSDoc[] }).jsDoc ?? [];
    for (const jsDoc of docs) {
      if (seen.has(jsDoc.pos)) continue;
      seen.add(jsDoc.pos);
      const body = jsDoc.getText(source);
      if (!body.includes("@example")) continue;
      const module = /@module\b/.test(body);
      // deno doc counts lines from 0, as TypeScript does.
      const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const shown = module ? isEntry : publicAt.has(`${file}:${line}`) && !implementsMember(node, source) &&
        !restatesClassExample(node, source) && !returnsAField(node) && !memberOfDocumentedClass(node, source);
      if (shown) continue;
      const first = source.getLineAndCharacterOfPosition(jsDoc.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(jsDoc.getEnd()).line;
      found.push(...examplesIn(lines, first, last, file));
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
}

const byFile = Map.groupBy(found, (block) => block.file);
let removed = 0;
for (const [file, blocks] of byFile) {
  const lines = Deno.readTextFileSync(file).split("\n");
  for (const block of blocks) {
    removed += block.end - block.start;
    console.log(`${file}:${block.start + 1}-${block.end}`);
  }
  if (!fix) continue;
  const drop = new Set(blocks.flatMap((b) => Array.from({ length: b.end - b.start }, (_, i) => b.start + i)));
  const kept = lines.filter((_, i) => !drop.has(i));
  // A blank ` *` line left just before the closing `*/`, or doubled, goes too.
  const tidy: string[] = [];
  for (const line of kept) {
    const blank = /^\s*\*\s*$/.test(line);
    const previousBlank = tidy.length > 0 && /^\s*\*\s*$/.test(tidy[tidy.length - 1]);
    if (/^\s*\*\/\s*$/.test(line) && previousBlank) tidy.pop();
    // A comment left empty goes whole.
    if (/^\s*\*\/\s*$/.test(line) && /^\s*\/\*\*\s*$/.test(tidy[tidy.length - 1] ?? "")) {
      tidy.pop();
      continue;
    }
    if (blank && previousBlank) continue;
    tidy.push(line);
  }
  Deno.writeTextFileSync(file, tidy.join("\n"));
}
console.log(
  `${found.length} @example blocks on symbols no entry point shows (${removed} lines) in ${byFile.size} files` +
    (fix ? ": removed" : ""),
);
