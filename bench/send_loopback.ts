// One way of sending, many times over the loopback, for a CPU profile: a plain fetch, the same fetch with the
// send's fixed costs (a one-chunk stream body and a timeout signal), ofetch, or `messages().text()` with and
// without the default memory limiter. The stub answers in its own process (`--stub inline`: in this one).
// Profile two ways and compare their per-request self times with bench/cpuprofile_top.ts.
//
// Run: deno run --cpu-prof --cpu-prof-dir=/tmp/gw-loop --allow-net=127.0.0.1 --allow-run --allow-read \
//        --allow-env --lock=tests/npm/deno.lock bench/send_loopback.ts <variant> [--sends 20000] [--stub inline]
// then: deno run --allow-read bench/cpuprofile_top.ts /tmp/gw-loop/<file>.cpuprofile <sends + 2000> [rows]
// Variants: plain, stream-signal, ofetch, text, text-limiter.
import { parseArgs } from "node:util";
import { startStubProcess } from "./stub_process.ts";
import { ofetch } from "../tests/npm/http_clients.ts";
import { GatewayService } from "../mod.ts";

const { values, positionals } = parseArgs({
  args: Deno.args,
  allowPositionals: true,
  options: { sends: { type: "string", default: "20000" }, stub: { type: "string", default: "process" } },
});
const body = JSON.stringify({
  key: { remoteJid: "5511999999999@s.whatsapp.net", fromMe: true, id: "3EB0C7F3A1B2C3D4E5F6" },
  status: "PENDING",
  message: { conversation: "Hello" },
});
async function startStub(): Promise<{ port: number; stop: () => Promise<void> }> {
  if (values.stub !== "inline") return await startStubProcess(body);
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
    await request.arrayBuffer();
    return new Response(body, { status: 201, headers: { "content-type": "application/json" } });
  });
  return { port: server.addr.port, stop: () => server.shutdown() };
}
const { port, stop } = await startStub();
const url = `http://127.0.0.1:${port}`;
const sendUrl = `${url}/message/sendText/bench`;
const payload = { number: "5511999999999", text: "Hello" };
const headers = { apikey: "bench-key", "content-type": "application/json", accept: "application/json" };
const connection = { server_url: url, api_key: "bench-key", instance: "bench" };
const noLimiter = GatewayService.make({ ...connection, rate_limiting: { enabled: false } });
const memoryLimiter = GatewayService.make({
  ...connection,
  rate_limiting: { limits: { messages: { max_attempts: 1_000_000_000, decay_seconds: 60 } } },
});
const encoder = new TextEncoder();
const variants: Record<string, () => Promise<unknown>> = {
  plain: async () => {
    const res = await fetch(sendUrl, { method: "POST", headers, body: JSON.stringify(payload) });
    return JSON.parse(await res.text());
  },
  "stream-signal": async () => {
    const bytes = encoder.encode(JSON.stringify(payload));
    const stream = new ReadableStream({
      start(controller) {
        controller.enqueue(bytes);
        controller.close();
      },
    });
    const signal = AbortSignal.timeout(30_000);
    const res = await fetch(sendUrl, { method: "POST", headers, body: stream, signal, redirect: "manual" });
    return JSON.parse(await res.text());
  },
  ofetch: () => ofetch(sendUrl, { method: "POST", headers: { apikey: "bench-key" }, body: payload }),
  text: () => noLimiter.messages().text("5511999999999", "Hello"),
  "text-limiter": () => memoryLimiter.messages().text("5511999999999", "Hello"),
};
const run = variants[positionals[0] ?? "text"];
if (run === undefined) throw new Error(`unknown variant; one of ${Object.keys(variants).join(", ")}`);
const sends = Number(values.sends);
for (let i = 0; i < 2_000; i++) await run(); // warm up
const start = performance.now();
for (let i = 0; i < sends; i++) await run();
console.log(
  `${positionals[0] ?? "text"}: ${sends} sends, ${
    ((performance.now() - start) / sends * 1000).toFixed(1)
  } µs each`,
);
await stop();
