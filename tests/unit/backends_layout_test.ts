// The backends are sorted by engine (docs/architecture.md, "Backends"): each folder of src/backends/ holds one
// engine's files, which import contracts and shared checks from their concern and files of their own
// folder, never another engine's files; and the contracts' folders hold no engine.
import { deepStrictEqual } from "node:assert/strict";

const ROOT = new URL("../../", import.meta.url);
const BACKENDS = new URL("src/backends/", ROOT);

function sourceFiles(dir: URL, path = ""): string[] {
  const found: string[] = [];
  for (const entry of Deno.readDirSync(dir)) {
    if (entry.isDirectory) {
      found.push(...sourceFiles(new URL(`${entry.name}/`, dir), `${path}${entry.name}/`));
    } else if (entry.name.endsWith(".ts")) found.push(`${path}${entry.name}`);
  }
  return found;
}

function relativeImports(text: string): string[] {
  return [...text.matchAll(/^(?:import|export)[^;]*?from\s+"(\.[^"]+)"/gms)].map((match) => match[1]);
}

Deno.test("src/backends: one folder per engine, and no engine imports another engine's files", () => {
  const engines = [...Deno.readDirSync(BACKENDS)].filter((e) => e.isDirectory).map((e) => e.name).sort();
  deepStrictEqual(engines, ["cloudflare", "kv", "memory", "redis"]);
  const crossing: string[] = [];
  for (const engine of engines) {
    const dir = new URL(`${engine}/`, BACKENDS);
    for (const file of sourceFiles(dir)) {
      const from = new URL(file, dir);
      for (const specifier of relativeImports(Deno.readTextFileSync(from))) {
        const target = new URL(specifier, from).href;
        if (!target.startsWith(BACKENDS.href)) continue;
        const other = target.slice(BACKENDS.href.length).split("/")[0];
        if (other !== engine) crossing.push(`${engine}/${file} -> ${specifier}`);
      }
    }
  }
  deepStrictEqual(crossing, []);
});

Deno.test("the contracts' folders hold no engine: nothing there implements a contract on a named engine", () => {
  // An engine class is named after its engine; the contracts and shared checks stay with their concern.
  const engineClass = /^export class (Memory|Kv|Redis|D1|Coordinator|Cloudflare)\w*/m;
  const found: string[] = [];
  for (const concern of ["src/store/", "src/ratelimit/", "src/webhooks/queue/", "src/tasks/"]) {
    for (const file of sourceFiles(new URL(concern, ROOT))) {
      const match = Deno.readTextFileSync(new URL(`${concern}${file}`, ROOT)).match(engineClass);
      if (match !== null) found.push(`${concern}${file}: ${match[0]}`);
    }
  }
  const dedupe = Deno.readTextFileSync(new URL("src/webhooks/dedupe.ts", ROOT)).match(engineClass);
  if (dedupe !== null) found.push(`src/webhooks/dedupe.ts: ${dedupe[0]}`);
  deepStrictEqual(found, []);
});
