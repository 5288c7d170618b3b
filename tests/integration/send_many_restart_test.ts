import { deepStrictEqual, strictEqual } from "node:assert/strict";
import { MockGatewayServer } from "../../src/testing/mod.ts";

const KEY = "test-key";
const WORKER = new URL("../fixtures/send_many_worker.ts", import.meta.url).pathname;
const CONFIG = new URL("../../deno.json", import.meta.url).pathname;

function worker(kvPath: string, url: string, stopAfter?: number): Deno.ChildProcess {
  return new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--quiet",
      "--config",
      CONFIG,
      "--allow-read",
      "--allow-write",
      "--allow-net=127.0.0.1",
      WORKER,
      kvPath,
      url,
      KEY,
      ...(stopAfter === undefined ? [] : [String(stopAfter)]),
    ],
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
}

/** Read lines until `done` says stop (bounded by the stream's end); returns every line read. */
async function readUntil(
  stream: ReadableStream<Uint8Array>,
  done: (line: string) => boolean,
): Promise<string[]> {
  const lines: string[] = [];
  let buffered = "";
  const reader = stream.pipeThrough(new TextDecoderStream()).getReader();
  try {
    for (;;) {
      const { value, done: ended } = await reader.read();
      if (ended) return lines;
      buffered += value;
      let newline: number;
      while ((newline = buffered.indexOf("\n")) >= 0) {
        const line = buffered.slice(0, newline);
        buffered = buffered.slice(newline + 1);
        lines.push(line);
        if (done(line)) return lines;
      }
    }
  } finally {
    await reader.cancel();
  }
}

Deno.test("sendMany across a killed worker: after 40 sent and a kill, a restart sends the other 60 once each", async () => {
  await using mock = await MockGatewayServer.start({ apiKey: KEY, port: 0 });
  mock.addInstance("sales", { open: true });
  const dir = await Deno.makeTempDir({ prefix: "gw_send_many_" });
  const kvPath = `${dir}/gateway.kv`;
  try {
    const first = worker(kvPath, mock.url, 40);
    const firstLines = await readUntil(first.stdout, (line) => line === "waiting to be killed");
    strictEqual(firstLines.at(-1), "waiting to be killed");
    first.kill("SIGKILL");
    await first.status;
    await first.stderr.cancel();
    strictEqual(mock.sentMessages.length, 40);

    const second = worker(kvPath, mock.url);
    const lines = await readUntil(second.stdout, (line) => line.startsWith("report "));
    const status = await second.status;
    const errors = await new Response(second.stderr).text();
    strictEqual(status.code, 0, errors);
    const report = JSON.parse(lines.at(-1)!.slice("report ".length));
    deepStrictEqual(
      [report.total, report.sent, report.skipped, report.failed, report.paused, report.unknown],
      [100, 60, 40, 0, 0, 0],
    );
    // Every message went out exactly once.
    const texts = mock.sentMessages.map((message) => message.text);
    strictEqual(texts.length, 100);
    deepStrictEqual(new Set(texts), new Set(Array.from({ length: 100 }, (_, i) => `message ${i}`)));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
