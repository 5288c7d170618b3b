import { deepStrictEqual, strictEqual } from "node:assert/strict";

// The webhook side must load on Workers without the outbound client, and without Node built-ins.
Deno.test("src/webhooks imports neither the outbound client nor Node built-ins nor Deno at import time", async () => {
  const dir = new URL("../../src/webhooks/", import.meta.url);
  const offending: string[] = [];
  const files: string[] = [];
  for await (const entry of Deno.readDir(dir)) {
    if (entry.isDirectory) {
      for await (const inner of Deno.readDir(new URL(`${entry.name}/`, dir))) {
        files.push(`${entry.name}/${inner.name}`);
      }
    } else files.push(entry.name);
  }
  // The pipeline's stages are in a folder of their own: they are checked too.
  strictEqual(files.includes("pipeline/pipeline.ts"), true);
  for (const name of files) {
    if (!name.endsWith(".ts")) continue;
    const entry = { name };
    const text = await Deno.readTextFile(new URL(entry.name, dir));
    for (const match of text.matchAll(/^(?:import|export)[^;]*?from\s+"([^"]+)"/gms)) {
      const target = match[1];
      if (/client\/|service\.ts|resources\/|^node:|^npm:|^jsr:/.test(target)) {
        offending.push(`${entry.name} → ${target}`);
      }
    }
    // Deno APIs only behind a runtime check or in type positions (never at module top level).
    for (const line of text.split("\n")) {
      if (/^(?:const|let|await)\b.*\bDeno\.(?!Kv\b|KvKey\b|ServeHandlerInfo\b)/.test(line)) {
        offending.push(`${entry.name}: ${line.trim()}`);
      }
    }
  }
  deepStrictEqual(offending, []);
});

// One-way data flow: no module of the receiver imports (even for types) a module that imports it back.
Deno.test("src/webhooks has no import cycle, type-only imports included", async () => {
  const root = new URL("../../src/webhooks/", import.meta.url);
  const graph = new Map<string, string[]>();
  const walk = async (dir: URL): Promise<void> => {
    for await (const entry of Deno.readDir(dir)) {
      const url = new URL(entry.isDirectory ? `${entry.name}/` : entry.name, dir);
      if (entry.isDirectory) await walk(url);
      else if (entry.name.endsWith(".ts")) {
        const text = await Deno.readTextFile(url);
        const targets = [...text.matchAll(/^(?:import|export)[^;]*?from\s+"(\.[^"]+)"/gms)]
          .map((match) => new URL(match[1], url).href)
          .filter((href) => href.startsWith(root.href));
        graph.set(url.href, targets);
      }
    }
  };
  await walk(root);
  const cycles: string[] = [];
  const state = new Map<string, "open" | "done">();
  const visit = (file: string, path: string[]): void => {
    state.set(file, "open");
    for (const target of graph.get(file) ?? []) {
      if (state.get(target) === "open") {
        cycles.push(
          [...path.slice(path.indexOf(target)), target].map((f) => f.slice(root.href.length)).join(" → "),
        );
      } else if (!state.has(target)) visit(target, [...path, target]);
    }
    state.set(file, "done");
  };
  for (const file of graph.keys()) if (!state.has(file)) visit(file, [file]);
  strictEqual(graph.has(new URL("pipeline/state.ts", root).href), true);
  deepStrictEqual(cycles, []);
});
