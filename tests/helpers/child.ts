/**
 * A `deno run` subprocess driven line by line over stdin/stdout, for the multi-process tests. Every read
 * is bounded by a deadline, and `close()` kills the process if needed and awaits it.
 */

import { lines, NO_NODE_MODULES } from "./processes.ts";

const ROOT = new URL("../../", import.meta.url);

export class Child {
  readonly #process: Deno.ChildProcess;
  readonly #lines: AsyncGenerator<string>;
  readonly #stderr: Promise<string>;
  readonly #writer: WritableStreamDefaultWriter<Uint8Array>;

  private constructor(process: Deno.ChildProcess) {
    this.#process = process;
    this.#lines = lines(process.stdout);
    this.#stderr = new Response(process.stderr).text();
    this.#writer = process.stdin.getWriter();
  }

  /** Start `deno run <flags> <script> <args>` in the project root (its deno.json resolves npm imports). */
  static spawn(script: URL, flags: string[], args: string[]): Child {
    return new Child(
      new Deno.Command(Deno.execPath(), {
        args: [
          "run",
          "--quiet",
          "--lock=tests/npm/deno.lock",
          NO_NODE_MODULES,
          ...flags,
          script.pathname,
          ...args,
        ],
        cwd: ROOT.pathname,
        stdin: "piped",
        stdout: "piped",
        stderr: "piped",
      }).spawn(),
    );
  }

  /** The next line the child prints; rejects after `timeoutMs` or when it exits first. */
  async line(timeoutMs = 20_000): Promise<string> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`child printed nothing in ${timeoutMs} ms`)), timeoutMs);
    });
    try {
      const next = await Promise.race([this.#lines.next(), timeout]);
      if (next.done) throw new Error(`child exited: ${await this.#stderr}`);
      return next.value;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Send one line to the child's stdin. */
  async send(text: string): Promise<void> {
    await this.#writer.write(new TextEncoder().encode(`${text}\n`));
  }

  /** Kill the child at once (SIGKILL: no cleanup runs, as in a crash). */
  kill(): void {
    try {
      this.#process.kill("SIGKILL");
    } catch {
      // already exited
    }
  }

  /** Close stdin, wait for the exit (killing after `timeoutMs`), and return the exit code and stderr. */
  async close(timeoutMs = 20_000): Promise<{ code: number; stderr: string }> {
    await this.#writer.close().catch(() => {});
    const timer = setTimeout(() => this.kill(), timeoutMs);
    try {
      const status = await this.#process.status;
      await this.#lines.return(undefined);
      return { code: status.code, stderr: await this.#stderr };
    } finally {
      clearTimeout(timer);
    }
  }
}
