/**
 * The cost of an idempotent send next to a plain send, in the same run: `messages().text()` with and without
 * `idempotencyKey`, without a store (claims in the service's MemoryState) and with a KvStore on a local KV
 * file (claims in `store.state`, next to the outbound record), plus a replay (a key already done).
 *
 *   deno run --allow-read --allow-write --allow-env bench/idempotent_send.ts [--rounds 10] [--per-round 300]
 *
 * The gateway server is an in-process stub (an injected fetch answering a realistic 201 messageRaw), so the
 * figures are the library's own cost, without a network. Per round each variant makes `per-round`
 * sequential sends (order rotated per round); a variant's ratio is its median latency over its baseline's
 * median in the same round, and the figure is the median of those ratios.
 */

import { GatewayService, KvStore } from "../mod.ts";
import { median } from "./stats.ts";

function flag(name: string, fallback: string): string {
  const index = Deno.args.indexOf(`--${name}`);
  return index === -1 ? fallback : Deno.args[index + 1];
}

const ROUNDS = Number(flag("rounds", "10"));
const PER_ROUND = Number(flag("per-round", "300"));

const answer = JSON.stringify({
  key: { remoteJid: "5511999999999@s.whatsapp.net", fromMe: true, id: "3EB0C767D26A1D3E4F1A2B" },
  pushName: "Você",
  status: "PENDING",
  message: { conversation: "Your order 42 has shipped" },
  contextInfo: null,
  messageType: "conversation",
  messageTimestamp: 1_732_000_000,
  instanceId: "0b6f8a2e-1f9c-4f59-9f53-2d7e6b1c8a10",
  source: "web",
});
const stub: typeof fetch = () =>
  Promise.resolve(new Response(answer, { status: 201, headers: { "content-type": "application/json" } }));

interface Variant {
  name: string;
  baseline: string;
  send(round: number, i: number): Promise<unknown>;
}

const dir = await Deno.makeTempDir({ prefix: "gw-idem-bench-" });
const kv = await Deno.openKv(`${dir}/gateway.kv`);
const config = {
  server_url: "http://gateway.bench",
  api_key: "k",
  instance: "sales",
  rate_limiting: { enabled: false },
};
const bare = new GatewayService(config, { fetch: stub }).messages();
const kvStore = new KvStore(kv);
const stored = new GatewayService({ ...config, store: kvStore }, { fetch: stub }).messages();
await stored.text("5511999999999", "Your order 42 has shipped", {}, { idempotencyKey: "replayed" });

const variants: Variant[] = [
  {
    name: "no store, no key",
    baseline: "no store, no key",
    send: () => bare.text("5511999999999", "Your order 42 has shipped"),
  },
  {
    name: "no store, key (MemoryState claim)",
    baseline: "no store, no key",
    send: (round, i) =>
      bare.text("5511999999999", "Your order 42 has shipped", {}, { idempotencyKey: `m-${round}-${i}` }),
  },
  {
    name: "KV file store, no key",
    baseline: "KV file store, no key",
    send: () => stored.text("5511999999999", "Your order 42 has shipped"),
  },
  {
    name: "KV file store, key (KvState claim)",
    baseline: "KV file store, no key",
    send: (round, i) =>
      stored.text("5511999999999", "Your order 42 has shipped", {}, { idempotencyKey: `k-${round}-${i}` }),
  },
  {
    name: "KV file store, replay of a done key",
    baseline: "KV file store, no key",
    send: () => stored.text("5511999999999", "Your order 42 has shipped", {}, { idempotencyKey: "replayed" }),
  },
];

const latencies = new Map<string, number[]>(variants.map((v) => [v.name, []]));
const ratios = new Map<string, number[]>(variants.map((v) => [v.name, []]));
try {
  for (let round = 0; round < ROUNDS; round++) {
    const medians = new Map<string, number>();
    for (let k = 0; k < variants.length; k++) {
      const variant = variants[(round + k) % variants.length];
      const times: number[] = [];
      for (let i = 0; i < PER_ROUND; i++) {
        const started = performance.now();
        await variant.send(round, i);
        times.push(performance.now() - started);
      }
      medians.set(variant.name, median(times));
    }
    for (const variant of variants) {
      latencies.get(variant.name)!.push(medians.get(variant.name)!);
      ratios.get(variant.name)!.push(medians.get(variant.name)! / medians.get(variant.baseline)!);
    }
  }
  console.log(`${ROUNDS} rounds of ${PER_ROUND} sequential sends per variant\n`);
  console.log("| variant | median latency | ratio to its baseline (median of per-round ratios) |");
  console.log("| --- | --- | --- |");
  for (const variant of variants) {
    const us = median(latencies.get(variant.name)!) * 1000;
    console.log(
      `| ${variant.name} | ${us.toFixed(0)} µs | ${median(ratios.get(variant.name)!).toFixed(2)} |`,
    );
  }
} finally {
  kv.close();
  await Deno.remove(dir, { recursive: true });
}
