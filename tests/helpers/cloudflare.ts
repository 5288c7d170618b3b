// Shared by the tests that run Workers code in workerd through npm `miniflare`.
import { ok, strictEqual } from "node:assert/strict";

const ROOT = new URL("../../", import.meta.url);

/** Bundle a Worker module to one ES module with `deno bundle` (offline) and return its text. */
export async function bundleWorker(entry: string): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "gw_cf_" });
  try {
    const output = `${dir}/worker.js`;
    const { code, stderr } = await new Deno.Command(Deno.execPath(), {
      args: ["bundle", "--quiet", "--platform", "browser", "-o", output, entry],
      cwd: ROOT.pathname,
      stdout: "null",
      stderr: "piped",
    }).output();
    strictEqual(code, 0, new TextDecoder().decode(stderr));
    return await Deno.readTextFile(output);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/**
 * Wait for work the Workers runtime does on its own (queue consumers): read, check, and read again every
 * 50 ms, at most 400 times; fails with the last value read.
 */
export async function until<T>(
  what: string,
  read: () => Promise<T>,
  done: (value: T) => boolean,
): Promise<T> {
  let value = await read();
  for (let round = 0; round < 400 && !done(value); round++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    value = await read();
  }
  ok(done(value), `${what}: still ${JSON.stringify(value)}`);
  return value;
}
