// A tiny test runner that behaves the same under Node, Bun and Deno: `test(name, fn)` registers, `run()`
// runs every test in order (each bounded by a timeout) and prints one line per test and a summary line
// `portable <runtime>: N passed, N failed` that .ci/run adds to its total.

const tests = [];

/** Register a test. */
export function test(name, fn) {
  tests.push({ name, fn });
}

/** The runtime, e.g. `node 20.20.2`, `bun 1.4.4`, `deno 2.9.6`. */
export function runtime() {
  if (globalThis.Bun) return `bun ${globalThis.Bun.version}`;
  if (globalThis.Deno) return `deno ${globalThis.Deno.version.deno}`;
  return `node ${globalThis.process.versions.node}`;
}

/** Run every registered test; resolves to the number failed. */
export async function run(timeoutMs = 30_000) {
  let passed = 0;
  let failed = 0;
  for (const { name, fn } of tests) {
    let timer;
    const timeout = new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`timed out after ${timeoutMs} ms`)), timeoutMs);
    });
    const started = performance.now();
    try {
      await Promise.race([fn(), timeout]);
      passed++;
      console.log(`ok   ${name} (${Math.round(performance.now() - started)} ms)`);
    } catch (error) {
      failed++;
      console.log(`FAIL ${name}: ${error?.stack ?? error}`);
    } finally {
      clearTimeout(timer);
    }
  }
  console.log(`portable ${runtime()}: ${passed} passed, ${failed} failed`);
  return failed;
}
