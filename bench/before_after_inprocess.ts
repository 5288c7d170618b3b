// Two versions of the library in one process, interleaved rounds (order alternating), medians of per-round
// ratios: the receiver in-process against the minimal handler (crypto stubbed, as `STUB=1
// bench/webhook_inprocess.ts`: only the JavaScript around Web Crypto is timed) and a plain send
// (`messages().text()`, an injected fetch answering 201).
// Run: git archive <commit> | tar -x -C /tmp/before
//      BEFORE=/tmp/before [ROUNDS=9] [PER_ROUND=3200] deno run -A --lock=tests/npm/deno.lock bench/before_after_inprocess.ts
import * as after from "../mod.ts";
import { BODY, PATH, SECRET } from "./webhook_body.ts";
import { minimalHandler } from "./webhook_minimal.ts";
import { signWebhook } from "../src/webhooks/signature.ts";

const before: typeof after = await import(`${Deno.env.get("BEFORE") ?? "/tmp/before"}/mod.ts`);

const headers = await signWebhook({ body: BODY, secret: SECRET, timestamp: false });
const bytes = new TextEncoder().encode(BODY);
headers["content-length"] = String(bytes.length);
const url = `http://127.0.0.1:8000${PATH}`;
const hex = headers["x-gateway-signature"].slice("sha256=".length);
const mac = Promise.resolve(Uint8Array.from(hex.match(/../g)!, (p) => parseInt(p, 16)).buffer);
const ok = Promise.resolve(true);
(crypto.subtle as { verify: unknown }).verify = () => ok;
(crypto.subtle as { sign: unknown }).sign = () => mac;

function receiver(m: typeof after) {
  const noop = new m.WebhookProcessor({ log: false }).onAny(() => {});
  return m.createWebhookHandler({ signature: { secret: SECRET }, processor: noop });
}
const answer = JSON.stringify({
  key: { remoteJid: "5511999999999@s.whatsapp.net", fromMe: true, id: "3EB0C7" },
  status: "PENDING",
});
const stub: typeof fetch = () =>
  Promise.resolve(new Response(answer, { status: 201, headers: { "content-type": "application/json" } }));
const config = {
  server_url: "http://gateway.bench",
  api_key: "k",
  instance: "sales",
  rate_limiting: { enabled: false },
};
function sender(m: typeof after) {
  const gw = new m.GatewayService(config as never, { fetch: stub } as never);
  return gw.messages();
}
const hooks = {
  "recv minimal": minimalHandler,
  "recv before": receiver(before),
  "recv after": receiver(after),
};
const sends = { "send before": sender(before), "send after": sender(after) };
async function recv(fn: (r: Request) => Promise<Response>, n: number) {
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
async function send(m: ReturnType<typeof sender>, n: number) {
  const t0 = performance.now();
  for (let i = 0; i < n; i++) await m.text("5511999999999", "hi");
  return (performance.now() - t0) / n * 1000;
}
const med = (xs: number[]) => xs.sort((a, b) => a - b)[xs.length >> 1];
const rounds = Number(Deno.env.get("ROUNDS") ?? 9);
const r: Record<string, number[]> = {};
for (const f of Object.values(hooks)) await recv(f, 6400);
for (const s of Object.values(sends)) await send(s, 2000);
for (let round = 0; round < rounds; round++) {
  const hk = Object.entries(hooks);
  if (round % 2) hk.reverse();
  for (const [k, f] of hk) (r[k] ??= []).push(await recv(f, Number(Deno.env.get("PER_ROUND") ?? 3200)));
  const sk = Object.entries(sends);
  if (round % 2) sk.reverse();
  for (const [k, s] of sk) (r[k] ??= []).push(await send(s, Number(Deno.env.get("PER_ROUND") ?? 3200) / 4));
}
const ratio = (a: string, b: string) => med(r[a].map((x, i) => r[b][i] / x)).toFixed(3);
for (const k of Object.keys(r)) console.log(k, "median µs", med([...r[k]]).toFixed(2));
console.log(
  "receiver: minimal/ours before",
  ratio("recv before", "recv minimal"),
  "after",
  ratio("recv after", "recv minimal"),
);
console.log(
  "receiver after/before (µs ratio)",
  med(r["recv after"].map((x, i) => x / r["recv before"][i])).toFixed(3),
);
console.log(
  "send after/before (µs ratio)",
  med(r["send after"].map((x, i) => x / r["send before"][i])).toFixed(3),
);
