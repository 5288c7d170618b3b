// What the re-send defence costs: a send's body streamed (the client's send fetch, `src/client/send_fetch.ts`)
// next to a plain `fetch` of the same POST with a string body, in the same run; with the alternative that was
// not taken (a Deno HTTP client that keeps no idle connection: a new TCP connection per send) and the client's
// whole send path with and without the defence. The stub server runs in its own process; the variants run in
// interleaved blocks (order rotated per block), and each figure is the median over the blocks of (variant's
// median latency / the plain fetch's median latency in the same block).
//
// Run: deno run --allow-net=127.0.0.1 --allow-run --allow-read --allow-write --allow-env \
//        --lock=tests/npm/deno.lock bench/send_fetch.ts [--rounds 20] [--per-round 200]
import { parseArgs } from "node:util";
import { median } from "./stats.ts";
import { startStubProcess } from "./stub_process.ts";
import { GatewayService } from "../mod.ts";
import { sendFetch } from "../src/client/send_fetch.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: { rounds: { type: "string", default: "20" }, "per-round": { type: "string", default: "200" } },
});
const rounds = Number(values.rounds);
const perRound = Number(values["per-round"]);

const answer = JSON.stringify({ key: { remoteJid: "5511999999999@s.whatsapp.net", id: "3EB0C7F3A1B2" } });
const { port, stop } = await startStubProcess(answer);
const url = `http://127.0.0.1:${port}`;
const sendUrl = `${url}/message/sendText/bench`;
const payload = { number: "5511999999999", text: "Hello" };
const headers = { apikey: "bench-key", "content-type": "application/json", accept: "application/json" };
const service = GatewayService.make({
  server_url: url,
  api_key: "bench-key",
  instance: "bench",
  rate_limiting: { enabled: false },
});
const streamed = sendFetch();
const noIdle = Deno.createHttpClient({ poolMaxIdlePerHost: 0 });

const post = async (fetcher: typeof fetch, extra: Record<string, unknown> = {}) => {
  const res = await fetcher(sendUrl, { method: "POST", headers, body: JSON.stringify(payload), ...extra });
  return JSON.parse(await res.text());
};

const BASELINE = "plain fetch, string body (baseline)";
const variants: Record<string, () => Promise<unknown>> = {
  [BASELINE]: () => post(fetch),
  "send fetch: body streamed (the defence)": () => post(streamed),
  "Deno.createHttpClient({ poolMaxIdlePerHost: 0 }): new connection per send": () =>
    post(fetch, { client: noIdle }),
  "client.request POST, idempotent: true (no defence)": () =>
    service.getClient().request("POST", "/message/sendText/{instance}", { body: payload, idempotent: true }),
  "client.request POST, a send (the defence)": () =>
    service.getClient().request("POST", "/message/sendText/{instance}", { body: payload }),
};
const names = Object.keys(variants);
const ratios: Record<string, number[]> = Object.fromEntries(names.map((name) => [name, []]));
const medians: Record<string, number[]> = Object.fromEntries(names.map((name) => [name, []]));
for (const name of names) for (let i = 0; i < perRound; i++) await variants[name](); // warm up
for (let round = 0; round < rounds; round++) {
  const roundMedians: Record<string, number> = {};
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
    ratios[name].push(roundMedians[name] / roundMedians[BASELINE]);
  }
}
await stop();
noIdle.close();

console.log(`${rounds} blocks of ${perRound} sequential POSTs per variant, stub server in its own process`);
console.log(
  "| variant | median latency | ratio to plain fetch, median [min–max] over blocks |\n| --- | --- | --- |",
);
for (const name of names) {
  const r = ratios[name];
  console.log(
    `| ${name} | ${(median(medians[name]) * 1000).toFixed(1)} µs | ${median(r).toFixed(3)} [${
      Math.min(...r).toFixed(3)
    }–${Math.max(...r).toFixed(3)}] |`,
  );
}
