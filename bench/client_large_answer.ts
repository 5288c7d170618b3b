// Memory of the client facing an oversized answer: a stub in its own process streams a 400 MB body (no
// content-length, as a proxy or a runaway server would); the client calls it once. The figure is the peak
// resident memory of the client process during the call, next to its resident memory before the call.
//
// Run: deno run --allow-net=127.0.0.1 --allow-run bench/client_large_answer.ts [--mb 400]
import { parseArgs } from "node:util";
import { GatewayService } from "../mod.ts";

const { values } = parseArgs({ args: Deno.args, options: { mb: { type: "string", default: "400" } } });
const total = Number(values.mb) * 1024 * 1024;

const stubSource = `
const chunk = new Uint8Array(256 * 1024).fill(0x61);
const total = ${total};
Deno.serve({ hostname: "127.0.0.1", port: 0, onListen({ port }) { console.log(port); } }, () => {
  let sent = 0;
  const body = new ReadableStream({
    pull(controller) {
      if (sent >= total) return controller.close();
      sent += chunk.byteLength;
      controller.enqueue(chunk);
    },
  });
  return new Response(body, { status: 200, headers: { "content-type": "application/json" } });
});
`;
const stub = new Deno.Command(Deno.execPath(), {
  args: ["run", "--allow-net=127.0.0.1", "-"],
  stdin: "piped",
  stdout: "piped",
  stderr: "inherit",
}).spawn();
const writer = stub.stdin.getWriter();
await writer.write(new TextEncoder().encode(stubSource));
await writer.close();
const reader = stub.stdout.pipeThrough(new TextDecoderStream()).getReader();
const port = Number((await reader.read()).value?.trim());

const gw = GatewayService.make({
  server_url: `http://127.0.0.1:${port}`,
  api_key: "bench-key",
  retry: { max_retries: 0 },
  http: { timeout_ms: 120_000, deadline_ms: 120_000 },
});
const before = Deno.memoryUsage().rss;
let peak = before;
const sampler = setInterval(() => peak = Math.max(peak, Deno.memoryUsage().rss), 5);
const started = performance.now();
let outcome: string;
try {
  const answer = await gw.info();
  outcome = `answered (${typeof answer})`;
} catch (error) {
  outcome = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
clearInterval(sampler);
peak = Math.max(peak, Deno.memoryUsage().rss);
const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MiB`;
console.log(`${values.mb} MB answer: ${outcome}`);
console.log(
  `rss before ${mib(before)}, peak during the call ${mib(peak)} (+${mib(peak - before)}), ${
    (performance.now() - started).toFixed(0)
  } ms`,
);
reader.releaseLock();
await stub.stdout.cancel().catch(() => {});
stub.kill();
await stub.status;
