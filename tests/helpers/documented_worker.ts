/**
 * The receiver's worker as the documentation writes it: the `worker.ts` block and its `deno serve` line,
 * taken from a Markdown file and run unchanged, except that the port becomes a free one on 127.0.0.1 (tests
 * talk only to loopback). The worker's imports (`jsr:@gw/gateway/webhooks`, `@gw/gateway`, ...) resolve to
 * this checkout through a `deno.json` written beside it.
 */

const ROOT = new URL("../../", import.meta.url);

/** A documented worker: its source and its `deno serve` command line. */
export interface DocumentedWorker {
  /** Where it was found. */
  readonly source: string;
  /** The `worker.ts` block. */
  readonly worker: string;
  /** The `deno serve ... worker.ts` line, as written. */
  readonly line: string;
}

/** A running worker. */
export interface ServedWorker {
  readonly url: string;
  /** What it printed on stdout and stderr so far. */
  stdout(): string;
  stderr(): string;
  /** Resolves with stdout once `pattern` appears in it; rejects after `timeoutMs`. */
  waitForStdout(pattern: RegExp, timeoutMs: number): Promise<string>;
  /** Resolves with stderr once `pattern` appears in it; rejects after `timeoutMs`. */
  waitForStderr(pattern: RegExp, timeoutMs: number): Promise<string>;
  stop(): Promise<void>;
}

/**
 * The worker block (`export default { fetch: handleWebhook }`) and the `deno serve` line of `file`, looked
 * up under `heading` when given (the first of each after it); null when the file has none.
 */
export async function documentedWorker(file: string, heading?: string): Promise<DocumentedWorker | null> {
  let text = await Deno.readTextFile(new URL(file, ROOT));
  if (heading !== undefined) {
    const at = text.indexOf(`\n${heading}\n`);
    if (at < 0) return null;
    text = text.slice(at);
  }
  // Fenced blocks, also indented ones inside a numbered list (the indent is removed).
  const blocks = [...text.matchAll(/^( *)```(\w+)\n([\s\S]*?)^ *```/gm)].map(([, indent, lang, code]) => ({
    lang,
    code: code.split("\n").map((line) => line.startsWith(indent) ? line.slice(indent.length) : line).join(
      "\n",
    ),
  }));
  const worker = blocks.find((b) =>
    b.lang === "ts" && /from "(jsr:)?@gw\/gateway/.test(b.code) && b.code.includes("fetch: handleWebhook")
  );
  const line = blocks.flatMap((b) => b.lang === "sh" ? b.code.split("\n") : [])
    .find((l) => /\bdeno serve .*worker\.ts\s*$/.test(l));
  if (worker === undefined || line === undefined) return null;
  return {
    source: heading === undefined ? file : `${file} "${heading}"`,
    worker: worker.code,
    line: line.trim(),
  };
}

/** Split a shell command line into words: single and double quotes, no expansions (the docs use none). */
export function shellWords(line: string): string[] {
  const words: string[] = [];
  let current = "";
  let quote: string | null = null;
  let inWord = false;
  for (const c of line) {
    if (quote !== null) {
      if (c === quote) quote = null;
      else current += c;
    } else if (c === "'" || c === '"') {
      quote = c;
      inWord = true;
    } else if (/\s/.test(c)) {
      if (inWord) words.push(current);
      current = "";
      inWord = false;
    } else {
      current += c;
      inWord = true;
    }
  }
  if (quote !== null) throw new Error(`Unbalanced quote in: ${line}`);
  if (inWord) words.push(current);
  return words;
}

async function writeProject(dir: string, worker: string): Promise<void> {
  const config = JSON.parse(await Deno.readTextFile(new URL("deno.json", ROOT)));
  const root = new URL("mod.ts", ROOT).href;
  const webhooks = new URL("src/webhooks/mod.ts", ROOT).href;
  const imports: Record<string, string> = {
    ...config.imports,
    "@gw/gateway": root,
    "@gw/gateway/webhooks": webhooks,
    "jsr:@gw/gateway": root,
    "jsr:@gw/gateway/webhooks": webhooks,
  };
  await Deno.writeTextFile(
    `${dir}/deno.json`,
    JSON.stringify({ imports, unstable: config.unstable, nodeModulesDir: "none", lock: false }),
  );
  await Deno.writeTextFile(`${dir}/worker.ts`, worker);
}

/**
 * Run the documented `deno serve` line in a fresh directory holding the worker: the `VAR=value` words in
 * front of it go to its environment on top of `env`, `--port N` becomes `--host 127.0.0.1 --port 0`.
 * `allowEnv` replaces the line's `--allow-env` flags when given (to check what happens without them).
 */
export async function serveDocumentedWorker(
  documented: DocumentedWorker,
  env: Record<string, string>,
  options: { withoutAllowEnv?: boolean } = {},
): Promise<ServedWorker> {
  const dir = await Deno.makeTempDir({ prefix: "gw_documented_worker_" });
  await writeProject(dir, documented.worker);
  const words = shellWords(documented.line);
  const childEnv: Record<string, string> = { ...env };
  while (/^[A-Z_][A-Z0-9_]*=/.test(words[0])) {
    const [name, ...value] = words.shift()!.split("=");
    childEnv[name] = value.join("=");
  }
  if (words[0] !== "deno" || words[1] !== "serve") {
    throw new Error(`Not a deno serve line: ${documented.line}`);
  }
  const args: string[] = [];
  for (let i = 1; i < words.length; i++) {
    const word = words[i];
    if (word === "--port") {
      args.push("--host", "127.0.0.1", "--port", "0");
      i++;
    } else if (word.startsWith("--port=")) args.push("--host", "127.0.0.1", "--port", "0");
    else if (options.withoutAllowEnv && word.startsWith("--allow-env")) continue;
    else args.push(word);
  }
  const child = new Deno.Command(Deno.execPath(), {
    args: [...args.slice(0, 1), "--no-prompt", ...args.slice(1)],
    cwd: dir,
    env: childEnv,
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let out = "";
  let err = "";
  const waiters = new Set<() => void>();
  const stdoutDone = (async () => {
    for await (const chunk of child.stdout.pipeThrough(new TextDecoderStream())) {
      out += chunk;
      for (const wake of [...waiters]) wake();
    }
  })();
  const reader = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  let url: string | undefined;
  // deno serve reports where it listens on stderr: wait for that line, not for a time.
  while (url === undefined) {
    const { done, value } = await reader.read();
    if (done) {
      await stdoutDone;
      await child.status;
      await Deno.remove(dir, { recursive: true });
      throw new Error(`deno serve exited: ${err}`);
    }
    err += value;
    url = /Listening on (http:\/\/127\.0\.0\.1:\d+)\//.exec(err)?.[1];
  }
  const stderrDone = (async () => {
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
      err += chunk.value;
      for (const wake of [...waiters]) wake();
    }
  })();
  // Woken by each chunk the worker prints; the timer only bounds how long a real server may take.
  const wait = (text: () => string, pattern: RegExp, timeoutMs: number) =>
    new Promise<string>((resolve, reject) => {
      const check = () => {
        if (!pattern.test(text())) return;
        done();
        resolve(text());
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error(`worker printed no ${pattern} in ${timeoutMs} ms: ${out}${err}`));
      }, timeoutMs);
      const done = () => {
        clearTimeout(timer);
        waiters.delete(check);
      };
      waiters.add(check);
      check();
    });
  let stopped = false;
  return {
    url,
    stdout: () => out,
    stderr: () => err,
    waitForStdout: (pattern, timeoutMs) => wait(() => out, pattern, timeoutMs),
    waitForStderr: (pattern, timeoutMs) => wait(() => err, pattern, timeoutMs),
    async stop() {
      if (stopped) return;
      stopped = true;
      child.kill("SIGTERM");
      await child.status;
      await stdoutDone;
      await stderrDone;
      await Deno.remove(dir, { recursive: true });
    },
  };
}
