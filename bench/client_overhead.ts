// What a send costs next to the plain `fetch` of the same request, with the peers people would use instead
// (ofetch, ky) in the same run: the stub server runs in its own process, as a real gateway would; the
// variants run in interleaved blocks (order rotated per block), and each figure is the median over the
// blocks of (variant's median latency / baseline's median latency in the same block), so the machine's
// drift between blocks cancels out.
//
// Run: deno run --allow-net=127.0.0.1 --allow-run --allow-read --allow-write --allow-env \
//        --lock=tests/npm/deno.lock bench/client_overhead.ts [--rounds 30] [--per-round 300] [--stub inline]
import { median } from "./stats.ts";
import { startStubProcess } from "./stub_process.ts";
import { parseArgs } from "node:util";
import { ky, ofetch } from "../tests/npm/http_clients.ts";
import { GatewayService, KvStore } from "../mod.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    rounds: { type: "string", default: "30" },
    "per-round": { type: "string", default: "300" },
    only: { type: "string" },
    stub: { type: "string", default: "process" },
  },
});
const rounds = Number(values.rounds);
const perRound = Number(values["per-round"]);
const IN_FLIGHT = 64;

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
// By default the stub runs in its own process, as a real gateway would; `--stub inline` serves it from this
// process instead (the server's work then shares the client's event loop, which magnifies the client's own
// CPU cost: the stricter of the two).
async function startStub(): Promise<{ port: number; stop: () => Promise<void> }> {
  if (values.stub === "inline") {
    const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
      await request.arrayBuffer();
      return new Response(body, { status: 201, headers: { "content-type": "application/json" } });
    });
    return { port: server.addr.port, stop: () => server.shutdown() };
  }
  return await startStubProcess(body);
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
const dir = await Deno.makeTempDir({ prefix: "gw-client-bench-" });
const kv = await Deno.openKv(`${dir}/gateway.kv`);
const withKv = GatewayService.make({
  ...connection,
  rate_limiting: { enabled: false },
  store: new KvStore(kv),
});
let keyCounter = 0;

const plainFetch = async () => {
  const res = await fetch(sendUrl, { method: "POST", headers, body: JSON.stringify(payload) });
  return JSON.parse(await res.text());
};
const textNoLimiter = () => noLimiter.messages().text("5511999999999", "Hello");
const many = (call: () => Promise<unknown>) => () => Promise.all(Array.from({ length: IN_FLIGHT }, call));

interface Variant {
  /** The variant this one is divided by in each block. */
  baseline: string;
  run: () => Promise<unknown>;
}

const BASELINE = "plain fetch + JSON.parse (baseline)";
const BASELINE_MANY = `plain fetch, ${IN_FLIGHT} in flight (baseline)`;
const variants: Record<string, Variant> = {
  [BASELINE]: { baseline: BASELINE, run: plainFetch },
  "plain fetch + JSON.parse, with a 30 s timeout signal": {
    baseline: BASELINE,
    run: async () => {
      const signal = AbortSignal.timeout(30_000);
      const res = await fetch(sendUrl, { method: "POST", headers, body: JSON.stringify(payload), signal });
      return JSON.parse(await res.text());
    },
  },
  "ofetch": {
    baseline: BASELINE,
    run: () => ofetch(sendUrl, { method: "POST", headers: { apikey: "bench-key" }, body: payload }),
  },
  "ky": {
    baseline: BASELINE,
    run: () => ky.post(sendUrl, { headers: { apikey: "bench-key" }, json: payload }).json(),
  },
  "client.request, no limiter": {
    baseline: BASELINE,
    run: () =>
      noLimiter.getClient().request("POST", "/message/sendText/{instance}", {
        body: payload,
        idempotent: false,
      }),
  },
  "messages().text(), no limiter": { baseline: BASELINE, run: textNoLimiter },
  "messages().text(), memory limiter": {
    baseline: BASELINE,
    run: () => memoryLimiter.messages().text("5511999999999", "Hello"),
  },
  "messages().text(), KV store file + idempotency key": {
    baseline: BASELINE,
    run: () =>
      withKv.messages().text("5511999999999", "Hello", {}, {
        idempotencyKey: `bench-${Date.now()}-${keyCounter++}`,
      }),
  },
  [BASELINE_MANY]: { baseline: BASELINE_MANY, run: many(plainFetch) },
  [`messages().text(), no limiter, ${IN_FLIGHT} in flight`]: {
    baseline: BASELINE_MANY,
    run: many(textNoLimiter),
  },
};
const only = values.only === undefined ? undefined : new RegExp(values.only);
const names = Object.keys(variants).filter((name) =>
  only === undefined || only.test(name) || Object.values(variants).some((v) => v.baseline === name)
);
// Calls per block: a batch of 64 is one sample; the KV variant commits to disk, so it takes fewer samples.
const samplesOf = (name: string) =>
  name.includes("in flight")
    ? Math.max(10, perRound / 10)
    : name.includes("KV")
    ? Math.max(20, perRound / 5)
    : perRound;

const ratios: Record<string, number[]> = Object.fromEntries(names.map((name) => [name, []]));
const medians: Record<string, number[]> = Object.fromEntries(names.map((name) => [name, []]));
for (const name of names) for (let i = 0; i < samplesOf(name) * 2; i++) await variants[name].run(); // warm up
for (let round = 0; round < rounds; round++) {
  const roundMedians: Record<string, number> = {};
  // Rotate the order so that no variant always runs first or last in a block.
  const order = names.map((_, i) => names[(i + round) % names.length]);
  for (const name of order) {
    const samples: number[] = [];
    for (let i = 0; i < samplesOf(name); i++) {
      const start = performance.now();
      await variants[name].run();
      samples.push(performance.now() - start);
    }
    roundMedians[name] = median(samples);
  }
  for (const name of names) {
    medians[name].push(roundMedians[name]);
    ratios[name].push(roundMedians[name] / roundMedians[variants[name].baseline]);
  }
}
await stop();
kv.close();
await Deno.remove(dir, { recursive: true });

console.log(
  `${rounds} blocks of ${perRound} calls per variant, stub server ${
    values.stub === "inline" ? "in this process" : "in its own process"
  }`,
);
console.log(
  "| variant | median latency | ratio to its baseline, median [min–max] over blocks |\n| --- | --- | --- |",
);
for (const name of names) {
  const r = ratios[name];
  console.log(
    `| ${name} | ${(median(medians[name]) * 1000).toFixed(1)} µs | ${median(r).toFixed(3)} [${
      Math.min(...r).toFixed(3)
    }–${Math.max(...r).toFixed(3)}] |`,
  );
}
