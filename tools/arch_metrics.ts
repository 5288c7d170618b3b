/**
 * Architecture figures for src/ (issue "A house a newcomer can live in"): files over 400 lines, the longest
 * functions, and import cycles (strongly connected components of the static import graph, type-only
 * imports counted separately). Pair it with `duplicates --repo src` for repeated code.
 *
 * Run: `deno run --lock=tests/npm/deno.lock --allow-read --allow-env tools/arch_metrics.ts [dir]`
 *
 * @module
 */
import { ts } from "../tests/npm/typescript.ts";
import { tsFiles } from "./ts_files.ts";

const root = Deno.args[0] ?? "src";

function resolve(from: string, spec: string): string | undefined {
  if (!spec.startsWith(".")) return undefined;
  const parts = from.split("/").slice(0, -1);
  for (const piece of spec.split("/")) {
    if (piece === "..") parts.pop();
    else if (piece !== ".") parts.push(piece);
  }
  return parts.join("/");
}

const files = tsFiles(root).sort();
const long: [string, number][] = [];
const functions: [string, number][] = [];
const graph = new Map<string, Set<string>>();
const valueGraph = new Map<string, Set<string>>();

for (const file of files) {
  const text = Deno.readTextFileSync(file);
  const lines = text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
  if (lines > 400) long.push([file, lines]);
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const edges = new Set<string>();
  const valueEdges = new Set<string>();
  const visit = (node: ts.Node): void => {
    if (
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      const target = resolve(file, node.moduleSpecifier.text);
      if (target !== undefined) {
        edges.add(target);
        const typeOnly = ts.isImportDeclaration(node)
          ? node.importClause?.isTypeOnly === true ||
            (node.importClause !== undefined && node.importClause.name === undefined &&
              node.importClause.namedBindings !== undefined &&
              ts.isNamedImports(node.importClause.namedBindings) &&
              node.importClause.namedBindings.elements.length > 0 &&
              node.importClause.namedBindings.elements.every((e) => e.isTypeOnly))
          : node.isTypeOnly;
        if (!typeOnly) valueEdges.add(target);
      }
    }
    if (
      (ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node) || ts.isArrowFunction(node) ||
        ts.isFunctionExpression(node) || ts.isConstructorDeclaration(node) || ts.isGetAccessor(node) ||
        ts.isSetAccessor(node)) && node.body !== undefined
    ) {
      const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      functions.push([`${file}:${start + 1}`, end - start + 1]);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  graph.set(file, edges);
  valueGraph.set(file, valueEdges);
}

function cycles(g: Map<string, Set<string>>): string[][] {
  let index = 0;
  const stack: string[] = [];
  const on = new Set<string>();
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const out: string[][] = [];
  const strong = (v: string): void => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    on.add(v);
    for (const w of g.get(v) ?? []) {
      if (!g.has(w)) continue;
      if (!idx.has(w)) {
        strong(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        on.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) out.push(component.sort());
    }
  };
  for (const v of g.keys()) if (!idx.has(v)) strong(v);
  return out;
}

functions.sort((a, b) => b[1] - a[1]);
long.sort((a, b) => b[1] - a[1]);
const all = cycles(graph);
const value = cycles(valueGraph);
console.log(
  `files: ${files.length}, lines: ${
    files.reduce((n, f) => n + Deno.readTextFileSync(f).split("\n").length - 1, 0)
  }`,
);
console.log(`files over 400 lines: ${long.length}`);
for (const [file, lines] of long) console.log(`  ${lines} ${file}`);
console.log(`longest functions:`);
for (const [where, lines] of functions.slice(0, 8)) console.log(`  ${lines} ${where}`);
console.log(`import cycles (any import): ${all.length}`);
for (const c of all) console.log(`  ${c.join(" <-> ")}`);
console.log(`import cycles (value imports only): ${value.length}`);
for (const c of value) console.log(`  ${c.join(" <-> ")}`);
