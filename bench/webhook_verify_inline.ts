// verifyWebhook called the way a user writes it, with the options object inline (a new object per call),
// against the minimal Web Crypto verification of the same request: a key imported once, the hex signature
// decoded, `crypto.subtle.verify`. Both check the ~2 KB body of the load benchmark signed with `hmac` (no
// timestamp). Blocks of each run in turn (interleaved, order alternating) in one process; the figure is the
// median over rounds of the ratio of the per-call times within a round. `--in-flight N` keeps N calls
// pending at once (Deno runs Web Crypto off the main thread: one call at a time mostly measures that hop,
// which is noisy on a shared machine; with calls in flight the hops overlap and the JS cost shows).
//
// Run: deno run bench/webhook_verify_inline.ts [--rounds 30] [--per-block 2000] [--in-flight 1]
import { parseArgs } from "node:util";
import { median } from "./stats.ts";
import { signWebhook, verifyWebhook } from "../src/webhooks/signature.ts";
import { BODY, SECRET } from "./webhook_body.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    rounds: { type: "string", default: "30" },
    "per-block": { type: "string", default: "2000" },
    "in-flight": { type: "string", default: "1" },
  },
});
const inFlight = Number(values["in-flight"]);
const rounds = Number(values.rounds);
const perBlock = Number(values["per-block"]);

const body = new TextEncoder().encode(BODY);
const headers = new Headers(await signWebhook({ body, secret: SECRET, timestamp: false }));

// The minimal verification: what a hand-written receiver does with Web Crypto.
const key = await crypto.subtle.importKey(
  "raw",
  new TextEncoder().encode(SECRET),
  { name: "HMAC", hash: "SHA-256" },
  false,
  ["verify"],
);
function fromHex(hex: string): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return out;
}
async function minimal(): Promise<void> {
  const signature = fromHex(headers.get("x-gateway-signature")!.slice(7));
  if (!await crypto.subtle.verify("HMAC", key, signature, body)) throw new Error("mismatch");
}

const variants: Record<string, () => Promise<unknown>> = {
  minimal,
  // The documented form: scheme left to the default (auto), options inline.
  inline_auto: () => verifyWebhook(body, headers, { signature: { secret: SECRET } }),
  inline_hmac: () => verifyWebhook(body, headers, { signature: { scheme: "hmac", secret: SECRET } }),
};
const kept = { signature: { scheme: "hmac" as const, secret: SECRET } };
variants.kept_hmac = () => verifyWebhook(body, headers, kept);

async function block(fn: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  let next = 0;
  const lane = async () => {
    while (next++ < perBlock) await fn();
  };
  await Promise.all(Array.from({ length: inFlight }, lane));
  return (performance.now() - start) / perBlock;
}

const names = Object.keys(variants);
for (const name of names) await block(variants[name]); // warm-up
const ratios: Record<string, number[]> = Object.fromEntries(names.map((name) => [name, []]));
const times: Record<string, number[]> = Object.fromEntries(names.map((name) => [name, []]));
for (let round = 0; round < rounds; round++) {
  const order = round % 2 === 0 ? names : [...names].reverse();
  const perCall: Record<string, number> = {};
  for (const name of order) perCall[name] = await block(variants[name]);
  for (const name of names) {
    times[name].push(perCall[name] * 1000);
    ratios[name].push(perCall[name] / perCall.minimal);
  }
}
console.log(`rounds ${rounds}, ${perBlock} calls per block, ${inFlight} in flight`);
for (const name of names) {
  const sorted = [...ratios[name]].sort((a, b) => a - b);
  console.log(
    `${name.padEnd(12)} ${median(times[name]).toFixed(2).padStart(7)} µs/call  ratio to minimal ${
      median(ratios[name]).toFixed(3)
    } [${sorted[0].toFixed(3)}–${sorted.at(-1)!.toFixed(3)}]`,
  );
}
