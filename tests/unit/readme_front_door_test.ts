// README.md is the front door: short, with the two commands that work on a fresh machine on its first screen
// (the demo, and the test command CI runs), and links into docs/ that lead somewhere.
import { ok, strictEqual } from "node:assert/strict";

const ROOT = new URL("../../", import.meta.url);
const read = (path: string) => Deno.readTextFileSync(new URL(path, ROOT));

Deno.test("README: at most 300 lines; the demo and CI's test command on the first screen", () => {
  const readme = read("README.md");
  const lines = readme.split("\n");
  ok(lines.length <= 300, `README.md has ${lines.length} lines`);
  const firstScreen = lines.slice(0, 25).join("\n");
  // .ci/run runs `deno task ci`; deno.json defines both tasks.
  ok(/^deno task ci\b/m.test(read(".ci/run")), ".ci/run no longer runs deno task ci");
  const tasks = JSON.parse(read("deno.json")).tasks;
  for (const task of ["demo", "ci"]) {
    ok(tasks[task] !== undefined, `deno.json has no ${task} task`);
    ok(firstScreen.includes(`npx -y deno@2.9.6 task ${task}`), `the first screen lacks "task ${task}"`);
  }
});

function anchors(markdown: string): Set<string> {
  const found = new Set<string>();
  for (const [, title] of markdown.matchAll(/^#+ (.*)$/gm)) {
    found.add(title.trim().toLowerCase().replace(/[^\w\- ]/g, "").replaceAll(" ", "-"));
  }
  return found;
}

Deno.test("README and docs/: every relative link names a file that exists, and a heading in it", () => {
  const pages = ["README.md", ...[...Deno.readDirSync(new URL("docs/", ROOT))].map((e) => `docs/${e.name}`)];
  const broken: string[] = [];
  let links = 0;
  for (const page of pages) {
    const text = read(page).replace(/```[\s\S]*?```/g, "");
    for (const [, link] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/.test(link)) continue;
      links++;
      const [path, anchor] = link.split("#");
      const target = path === "" ? new URL(page, ROOT) : new URL(path, new URL(page, ROOT));
      let body: string | undefined;
      try {
        body = Deno.statSync(target).isFile ? Deno.readTextFileSync(target) : "";
      } catch {
        broken.push(`${page}: ${link} (no such file)`);
        continue;
      }
      if (anchor !== undefined && target.pathname.endsWith(".md") && !anchors(body).has(anchor)) {
        broken.push(`${page}: ${link} (no such heading)`);
      }
    }
  }
  ok(links > 40, `found only ${links} links`);
  strictEqual(broken.join("\n"), "");
});
