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
