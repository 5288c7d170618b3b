/**
 * Runs several Deno processes that start together: each prints `ready` once set up, waits for a line on
 * stdin, does its work and prints one JSON line as its result. Used by the multi-process tests and benches.
 */

const ROOT = new URL("../../", import.meta.url);

/**
 * For the tests' child processes: they load npm packages from Deno's cache and leave node_modules alone.
 * A Deno process whose lockfile differs from the last one's (the CLI tasks use deno.json's, the tests
 * tests/npm/deno.lock) relinks node_modules as it starts, and two doing it at once fail on each other's
 * links ("File exists (os error 17), symlink ...").
 */
export const NO_NODE_MODULES = "--node-modules-dir=none";

/** The lines a process writes to `stream`, the last one also without its newline. */
export async function* lines(stream: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  let buffered = "";
  for await (const chunk of stream.pipeThrough(new TextDecoderStream())) {
    buffered += chunk;
    let newline: number;
    while ((newline = buffered.indexOf("\n")) >= 0) {
      yield buffered.slice(0, newline);
      buffered = buffered.slice(newline + 1);
    }
  }
  if (buffered !== "") yield buffered;
}

/**
 * Start one `deno run -A` per entry of `argLists` (each the script and its arguments, run from the
 * repository root with its deno.json), wait until each has
 * printed `ready`, release them at once, and collect their JSON results in order. A process that fails
 * makes the whole run throw with its stderr.
 */
export async function runTogether<T>(argLists: string[][]): Promise<T[]> {
  const children = argLists.map((args) =>
    new Deno.Command(Deno.execPath(), {
      args: ["run", "--quiet", "--lock=tests/npm/deno.lock", NO_NODE_MODULES, "-A", ...args],
      cwd: ROOT.pathname,
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn()
  );
  const outputs = children.map((child) => lines(child.stdout));
  const stderr = children.map((child) => new Response(child.stderr).text());
  try {
    for (const [i, output] of outputs.entries()) {
      const first = await output.next();
      if (first.value !== "ready") {
        const status = await children[i].status;
        throw new Error(`process ${i} did not start (exit ${status.code}): ${await stderr[i]}`);
      }
    }
    const writers = children.map((child) => child.stdin.getWriter());
    await Promise.all(writers.map((writer) => writer.write(new TextEncoder().encode("go\n"))));
    await Promise.all(writers.map((writer) => writer.close()));
    const results: T[] = [];
    for (const [i, output] of outputs.entries()) {
      const line = await output.next();
      const status = await children[i].status;
      if (!status.success || line.done) {
        throw new Error(`process ${i} failed (exit ${status.code}): ${await stderr[i]}`);
      }
      results.push(JSON.parse(line.value));
      await output.return(undefined);
    }
    return results;
  } finally {
    for (const child of children) {
      try {
        child.kill();
      } catch {
        // already exited
      }
    }
    await Promise.all(children.map((child) => child.status));
    await Promise.all(stderr);
  }
}
