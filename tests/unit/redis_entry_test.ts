import { deepStrictEqual, ok } from "node:assert/strict";

async function moduleGraph(entry: string): Promise<string[]> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--lock=tests/npm/deno.lock", "--json", entry],
    cwd: new URL("../../", import.meta.url).pathname,
    stdout: "piped",
    stderr: "null",
  }).output();
  const info = JSON.parse(new TextDecoder().decode(output.stdout)) as { modules: { specifier: string }[] };
  // Every module the entry loads, npm packages included (`npm:/@redis/client@...`).
  return info.modules.map((m) => m.specifier);
}

Deno.test("the root and ./testing entry points never load the Redis backends or a Redis client", async () => {
  for (const entry of ["mod.ts", "src/testing/mod.ts"]) {
    const graph = await moduleGraph(entry);
    deepStrictEqual(
      graph.filter((s) => s.includes("/src/backends/redis/") || s.includes("redis/client")),
      [],
      entry,
    );
  }
  const redis = await moduleGraph("src/backends/redis/mod.ts");
  ok(redis.some((s) => s.includes("@redis/client")), "the ./redis entry point depends on @redis/client");
});
