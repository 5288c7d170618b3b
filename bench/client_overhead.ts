// The full client path (connection lookup, rate-limit gate, headers, timeout signal, retry loop, JSON
// parse, error mapping, metrics, log checks) against a plain fetch + JSON.parse of the same local stub.
// Interleaved rounds in one process; the figure is the ratio of median latencies.
//
// Run: deno run --allow-net=127.0.0.1 --allow-run bench/client_overhead.ts [--rounds 20] [--per-round 300]
import { median } from "./stats.ts";
import { parseArgs } from "node:util";
import { GatewayService } from "../mod.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: { rounds: { type: "string", default: "30" }, "per-round": { type: "string", default: "300" } },
});
const rounds = Number(values.rounds);
const perRound = Number(values["per-round"]);

const body = JSON.stringify({
  key: { remoteJid: "5511999999999@s.whatsapp.net", fromMe: true, id: "3EB0C7F3A1B2C3D4E5F6" },
  pushName: "Você",
  status: "PENDING",
  message: { conversation: "Hello" },
  messageType: "conversation",
  messageTimestamp: 1_760_000_000,
  instanceId: "8d5e3f6a-1111-2222-3333-444455556666",
  source: "web",
});
// The stub runs in its own process, as a real gateway would: sharing one event loop with the client would
// add the server's work to every measured call.
const stubSource = `
const body = ${JSON.stringify(body)};
const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen({ port }) { console.log(port); } }, async (request) => {
  await request.arrayBuffer();
  return new Response(body, { status: 201, headers: { "content-type": "application/json" } });
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
let firstLine = "";
while (!firstLine.includes("\n")) {
  const { value, done } = await reader.read();
  if (done) throw new Error("the stub server did not start");
  firstLine += value;
}
reader.releaseLock();
const port = Number(firstLine.trim());
const url = `http://127.0.0.1:${port}`;
const payload = { number: "5511999999999", text: "Hello" };
const connection = { server_url: url, api_key: "bench-key", instance: "bench" };
const noLimiter = GatewayService.make({ ...connection, rate_limiting: { enabled: false } });
const memoryLimiter = GatewayService.make({
  ...connection,
  rate_limiting: { limits: { messages: { max_attempts: 1_000_000_000, decay_seconds: 60 } } },
});

const variants: Record<string, () => Promise<unknown>> = {
  "plain fetch + JSON.parse (baseline)": async () => {
    const res = await fetch(`${url}/message/sendText/bench`, {
      method: "POST",
      headers: { apikey: "bench-key", "content-type": "application/json", accept: "application/json" },
      body: JSON.stringify(payload),
    });
    return JSON.parse(await res.text());
  },
  "client.request, no limiter": () =>
    noLimiter.getClient().request("POST", "/message/sendText/{instance}", {
      body: payload,
      idempotent: false,
    }),
  "client.request, memory limiter": () =>
    memoryLimiter.getClient().request("POST", "/message/sendText/{instance}", {
      body: payload,
      idempotent: false,
      bucket: "messages",
    }),
  "messages().text(), memory limiter": () => memoryLimiter.messages().text("5511999999999", "Hello"),
};

// Per round: the median latency of each variant, then its ratio to the baseline's median in the same
// round; the figure is the median of those ratios, so slow drift of the machine between rounds cancels out.
const names = Object.keys(variants);
const ratios: Record<string, number[]> = Object.fromEntries(names.map((name) => [name, []]));
const medians: Record<string, number[]> = Object.fromEntries(names.map((name) => [name, []]));
for (let i = 0; i < 1000; i++) for (const run of Object.values(variants)) await run(); // warm up
for (let round = 0; round < rounds; round++) {
  const roundMedians: Record<string, number> = {};
  // Rotate the order so that no variant always runs first or last in a round.
  const order = names.map((_, i) => names[(i + round) % names.length]);
  for (const name of order) {
    const samples: number[] = [];
    for (let i = 0; i < perRound; i++) {
      const start = performance.now();
      await variants[name]();
      samples.push(performance.now() - start);
    }
    roundMedians[name] = median(samples);
  }
  for (const name of names) {
    medians[name].push(roundMedians[name]);
    ratios[name].push(roundMedians[name] / roundMedians[names[0]]);
  }
}
stub.kill();
await stub.status;
await stub.stdout.cancel().catch(() => {});

console.log(`${rounds} rounds of ${perRound} calls per variant, stub server in its own process`);
console.log(
  "| variant | median latency | ratio to baseline, median [min–max] over rounds |\n| --- | --- | --- |",
);
for (const name of names) {
  const r = ratios[name];
  console.log(
    `| ${name} | ${(median(medians[name]) * 1000).toFixed(1)} µs | ${median(r).toFixed(3)} [${
      Math.min(...r).toFixed(3)
    }–${Math.max(...r).toFixed(3)}] |`,
  );
}
