import { NO_NODE_MODULES } from "./processes.ts";

/** Run `tests/fixtures/delivery_worker.ts` in a separate process and return its stdout. */
const WORKER = new URL("../fixtures/delivery_worker.ts", import.meta.url);
const ROOT = new URL("../../", import.meta.url);

export async function runDeliveryWorker(...args: string[]): Promise<string> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--quiet",
      NO_NODE_MODULES,
      "--unstable-kv",
      "--allow-read",
      "--allow-write",
      "--allow-env",
      WORKER.pathname,
      ...args,
    ],
    cwd: ROOT.pathname,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stdout = new TextDecoder().decode(output.stdout);
  if (!output.success) {
    throw new Error(`delivery worker failed (${output.code}): ${new TextDecoder().decode(output.stderr)}`);
  }
  return stdout.trim();
}
