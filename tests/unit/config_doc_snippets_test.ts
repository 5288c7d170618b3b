// The documentation's code is copied as written: one import style in every TypeScript block, and the bot's
// webhook setup hands its secret to secure() (without it secure() makes a new one and every webhook gets 401).
import { deepStrictEqual, ok } from "node:assert/strict";

const ROOT = new URL("../../", import.meta.url);

/** The TypeScript blocks of a Markdown file, with the line each starts on. */
function tsBlocks(path: string): Array<{ line: number; body: string }> {
  const text = Deno.readTextFileSync(new URL(path, ROOT));
  const blocks: Array<{ line: number; body: string }> = [];
  for (const match of text.matchAll(/^```(?:ts|typescript|tsx)\b[^\n]*\n([\s\S]*?)^```/gm)) {
    blocks.push({ line: text.slice(0, match.index).split("\n").length, body: match[1] });
  }
  return blocks;
}

function markdownFiles(): string[] {
  const files = ["README.md"];
  for (const entry of Deno.readDirSync(new URL("docs/", ROOT))) {
    // docs/webhooks.md is checked by the receiver's own tests.
    if (entry.name.endsWith(".md") && entry.name !== "webhooks.md") files.push(`docs/${entry.name}`);
  }
  return files.sort();
}

Deno.test("docs: every TypeScript block of README and docs/ imports the package as jsr:@gw/gateway...", () => {
  const other: string[] = [];
  let imports = 0;
  for (const file of markdownFiles()) {
    for (const block of tsBlocks(file)) {
      for (const match of block.body.matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*)["']([^"']+)["']/g)) {
        imports++;
        if (!match[1].startsWith("jsr:@gw/gateway")) other.push(`${file}:${block.line}: ${match[1]}`);
      }
    }
  }
  deepStrictEqual(other, []);
  ok(imports > 50, `only ${imports} imports found: the scan is broken`);
});

Deno.test("docs: the bot's webhook setup passes the bot's secret to secure()", () => {
  const calls = tsBlocks("docs/bot.md").filter((block) => block.body.includes(".secure("));
  ok(calls.length > 0, "docs/bot.md shows how to set the webhook");
  for (const block of calls) {
    ok(/\.secure\(\{[\s\S]*\bsecret\b[\s\S]*\}\)/.test(block.body), `docs/bot.md:${block.line}`);
    ok(block.body.includes('Deno.env.get("GATEWAY_WEBHOOK_SECRET")'), `docs/bot.md:${block.line}`);
  }
});
