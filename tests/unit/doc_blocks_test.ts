// Every JSDoc example in src/ is type-checked by `deno task check` (`deno check --doc`); one that cannot be
// (it needs something no type-check can give) is marked `ignore` and says why in the lines above it.
import { ok } from "node:assert/strict";

const ROOT = new URL("../../", import.meta.url);

function sourceFiles(dir: URL): URL[] {
  return [...Deno.readDirSync(dir)].flatMap((entry) => {
    const url = new URL(entry.name + (entry.isDirectory ? "/" : ""), dir);
    if (entry.isDirectory) return sourceFiles(url);
    return entry.name.endsWith(".ts") ? [url] : [];
  });
}

Deno.test("JSDoc examples in src/: an ignored one says why it is not type-checked", () => {
  const files = [new URL("mod.ts", ROOT), ...sourceFiles(new URL("src/", ROOT))];
  ok(files.length > 100, `found ${files.length} files`);
  const unexplained: string[] = [];
  for (const file of files) {
    const lines = Deno.readTextFileSync(file).split("\n");
    lines.forEach((line, index) => {
      if (!/^\s*\*?\s*```(ts|typescript)\b.*\bignore\b/.test(line)) return;
      const before = lines.slice(Math.max(0, index - 4), index).join(" ");
      if (!before.includes("not type-checked")) {
        unexplained.push(`${file.pathname.slice(ROOT.pathname.length)}:${index + 1}`);
      }
    });
  }
  ok(unexplained.length === 0, `ignored examples without their reason: ${unexplained.join(", ")}`);
});
