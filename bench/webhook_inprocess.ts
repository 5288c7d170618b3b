// In-process webhook cost: the minimal handler (cached Web Crypto key + JSON.parse) and createWebhookHandler,
// each given 32 prebuilt Requests at a time, interleaved rounds, µs per request. STUB=1 replaces
// crypto.subtle.verify (minimal) and crypto.subtle.sign (ours) with resolved promises of their results, so
// that only the JavaScript around them is timed.
// Run: [STUB=1] [ROUNDS=9] deno run -A bench/webhook_inprocess.ts [minimal|ours]
import { createWebhookHandler, WebhookProcessor } from "../mod.ts";
import { BODY, PATH, SECRET } from "./webhook_body.ts";
import { minimalHandler } from "./webhook_minimal.ts";
import { signWebhook } from "../src/webhooks/signature.ts";

const headers = await signWebhook({ body: BODY, secret: SECRET, timestamp: false });
const bytes = new TextEncoder().encode(BODY);
headers["content-length"] = String(bytes.length);
const url = `http://127.0.0.1:8000${PATH}`;
const minimal = minimalHandler;
const noop = new WebhookProcessor({ log: false }).onAny(() => {});
const ours = createWebhookHandler({ signature: { secret: SECRET }, processor: noop });
const variants: Record<string, (r: Request) => Promise<Response>> = { minimal, ours };
const mode = Deno.args[0] ?? "both";
async function run(fn: (r: Request) => Promise<Response>, n: number) {
  const t0 = performance.now();
  for (let i = 0; i < n; i += 32) {
    const batch = [];
    for (let j = 0; j < 32; j++) batch.push(fn(new Request(url, { method: "POST", headers, body: bytes })));
    for (const r of await Promise.all(batch)) {
      if (r.status !== 200) throw new Error(String(r.status));
      await r.arrayBuffer();
    }
  }
  return (performance.now() - t0) / n * 1000;
}
if (Deno.env.get("STUB")) {
  // The MAC of the body is the signature the requests already carry ("sha256=<hex>").
  const hex = headers["x-gateway-signature"].slice("sha256=".length);
  const mac = Promise.resolve(Uint8Array.from(hex.match(/../g)!, (pair) => parseInt(pair, 16)).buffer);
  const ok = Promise.resolve(true);
  (crypto.subtle as { verify: unknown }).verify = () => ok;
  (crypto.subtle as { sign: unknown }).sign = () => mac;
}
const names = mode === "both" ? ["minimal", "ours"] : [mode];
for (const name of names) await run(variants[name], 20000);
const res: Record<string, number[]> = {};
for (let round = 0; round < Number(Deno.env.get("ROUNDS") ?? 5); round++) {
  for (const name of names) (res[name] ??= []).push(await run(variants[name], 30000));
}
for (const name of names) {
  const s = res[name].sort((a, b) => a - b);
  console.log(name, s.map((x) => x.toFixed(2)).join(" "), "median µs", s[s.length >> 1].toFixed(2));
}
