// The receiver of several checkouts in one process, against the minimal handler: CPU time of the process
// per request (user + system), interleaved rounds with the order reversed every other round, crypto stubbed
// as in `STUB=1 bench/webhook_inprocess.ts` (only the JavaScript around Web Crypto; `REAL=1` keeps it).
// Prints each tree's median µs, minimal / tree (median of per-round ratios) and tree / first tree.
// Run: git archive <commit> | tar -x -C /tmp/before
//      [ROUNDS=31] [PER_ROUND=3200] deno run -A --lock=tests/npm/deno.lock bench/webhook_trees.ts /tmp/before .
import process from "node:process";
import { BODY, PATH, SECRET } from "./webhook_body.ts";
import { minimalHandler } from "./webhook_minimal.ts";
import { signWebhook } from "../src/webhooks/signature.ts";

const trees = Deno.args.map((tree) => Deno.realPathSync(tree));
const libraries = await Promise.all(trees.map((tree) => import(`${tree}/mod.ts`)));
const headers = await signWebhook({ body: BODY, secret: SECRET, timestamp: false });
const bytes = new TextEncoder().encode(BODY);
headers["content-length"] = String(bytes.length);
const url = `http://127.0.0.1:8000${PATH}`;
if (!Deno.env.get("REAL")) {
  const hex = headers["x-gateway-signature"].slice("sha256=".length);
  const mac = Promise.resolve(Uint8Array.from(hex.match(/../g)!, (pair) => parseInt(pair, 16)).buffer);
  const ok = Promise.resolve(true);
  (crypto.subtle as { verify: unknown }).verify = () => ok;
  (crypto.subtle as { sign: unknown }).sign = () => mac;
}
type Handler = (request: Request) => Promise<Response>;
const handlers: [string, Handler][] = [["minimal", minimalHandler]];
libraries.forEach((library, i) => {
  const processor = new library.WebhookProcessor({ log: false }).onAny(() => {});
  handlers.push([`tree ${i}`, library.createWebhookHandler({ signature: { secret: SECRET }, processor })]);
});

async function cpuPerRequest(handler: Handler, n: number): Promise<number> {
  const start = process.cpuUsage();
  for (let i = 0; i < n; i += 32) {
    const batch = [];
    for (let j = 0; j < 32; j++) {
      batch.push(handler(new Request(url, { method: "POST", headers, body: bytes })));
    }
    for (const response of await Promise.all(batch)) {
      if (response.status !== 200) throw new Error(`status ${response.status}`);
      await response.arrayBuffer();
    }
  }
  const used = process.cpuUsage(start);
  return (used.user + used.system) / n;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1];
const rounds = Number(Deno.env.get("ROUNDS") ?? 31);
const perRound = Number(Deno.env.get("PER_ROUND") ?? 3200);
const times: Record<string, number[]> = {};
for (const [, handler] of handlers) await cpuPerRequest(handler, 6400);
for (let round = 0; round < rounds; round++) {
  const order = round % 2 === 0 ? handlers : [...handlers].reverse();
  for (const [name, handler] of order) (times[name] ??= []).push(await cpuPerRequest(handler, perRound));
}
const ratio = (a: string, b: string) => median(times[a].map((x, i) => x / times[b][i])).toFixed(3);
for (const [name] of handlers) {
  console.log(`${name}: ${median(times[name]).toFixed(2)} µs, minimal / ${name} ${ratio("minimal", name)}`);
}
for (let i = 1; i < trees.length; i++) console.log(`tree ${i} / tree 0: ${ratio(`tree ${i}`, "tree 0")}`);
