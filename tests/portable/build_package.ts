/**
 * Build what JSR serves to Node and Bun for this package: every module of the published files transpiled
 * to JavaScript one by one (same paths, `.ts` imports rewritten to `.js`), with a package.json whose
 * `exports` are deno.json's and whose dependencies are the npm packages the modules import.
 *
 * Usage: deno run -A tests/portable/build_package.ts <out dir>
 */

const ROOT = new URL("../../", import.meta.url);
const out = Deno.args[0];
if (!out) throw new Error("usage: build_package.ts <out dir>");

const config = JSON.parse(await Deno.readTextFile(new URL("deno.json", ROOT))) as {
  name: string;
  version: string;
  exports: Record<string, string>;
  imports: Record<string, string>;
};

async function sources(dir: URL, relative: string): Promise<string[]> {
  const found: string[] = [];
  for await (const entry of Deno.readDir(dir)) {
    const path = `${relative}${entry.name}`;
    if (entry.isDirectory) found.push(...await sources(new URL(`${entry.name}/`, dir), `${path}/`));
    else if (entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts")) found.push(path);
  }
  return found;
}

const files = ["mod.ts", ...await sources(new URL("src/", ROOT), "src/")];
await Deno.remove(out, { recursive: true }).catch(() => {});
const bundled = await new Deno.Command(Deno.execPath(), {
  args: [
    "bundle",
    "--quiet",
    // src/backends/redis's npm client is test-only in deno.lock's eyes: resolving it must not write it there.
    "--lock=tests/npm/deno.lock",
    "--inline-imports=false",
    "--packages=external",
    "--format=esm",
    "--outdir",
    out,
    ...files,
  ],
  cwd: ROOT.pathname,
  stdout: "inherit",
  stderr: "inherit",
}).output();
if (!bundled.success) Deno.exit(1);

const bare = new Set<string>();
const inlineDependencies: Record<string, string> = {};
const specifier = /((?:from|import)\s*\(?\s*)(["'])([^"']+)\2/g;
for (const file of files) {
  const path = `${out}/${file.replace(/\.ts$/, ".js")}`;
  const text = await Deno.readTextFile(path);
  const rewritten = text.replace(specifier, (match, head: string, quote: string, target: string) => {
    if (target.startsWith(".")) return `${head}${quote}${target.replace(/\.ts$/, ".js")}${quote}`;
    // JSR's npm tarballs turn an inline `npm:name@version/sub` into the bare `name/sub` plus a dependency.
    const inline = target.match(/^npm:(@?[^@/]+(?:\/[^@/]+)?)@([^/]+)(\/.*)?$/);
    if (inline) {
      inlineDependencies[inline[1]] = inline[2];
      return `${head}${quote}${inline[1]}${inline[3] ?? ""}${quote}`;
    }
    if (!match.includes("\n")) bare.add(target);
    return match;
  });
  await Deno.writeTextFile(path, rewritten);
}

const dependencies: Record<string, string> = { ...inlineDependencies };
for (const name of bare) {
  if (name.startsWith("node:")) continue;
  const mapped = config.imports[name];
  const npm = mapped?.match(/^npm:(@?[^@]+)@(.+)$/);
  if (npm) dependencies[npm[1]] = npm[2];
}
const exports: Record<string, string> = {};
for (const [key, target] of Object.entries(config.exports)) exports[key] = target.replace(/\.ts$/, ".js");
await Deno.writeTextFile(
  `${out}/package.json`,
  JSON.stringify(
    { name: config.name, version: config.version, type: "module", exports, dependencies },
    null,
    2,
  ),
);
console.log(
  `built ${files.length} modules into ${out}; npm dependencies: ${Object.keys(dependencies).join(", ")}`,
);
