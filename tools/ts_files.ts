/**
 * The TypeScript files under a folder, sorted: what the tools in this folder read.
 *
 * @module
 */

/** Every `.ts` file below `dir` (its sub-folders included), sorted by path. */
export function tsFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of Deno.readDirSync(dir)) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory) out.push(...tsFiles(path));
    else if (entry.name.endsWith(".ts")) out.push(path);
  }
  return out.sort();
}
