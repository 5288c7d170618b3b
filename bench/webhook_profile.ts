// One receiver variant in-process for a fixed time, 32 requests in flight, real Web Crypto: a driver for
// `deno run --cpu-prof` (read the profile with bench/cpuprofile_top.ts). `checkout` is this repository or
// another checkout of it (`git worktree add --detach /tmp/rx_ref <commit>`).
// Run: deno run -A --lock=tests/npm/deno.lock --cpu-prof --cpu-prof-dir=/tmp/prof bench/webhook_profile.ts \
//        [ours|minimal] [seconds] [checkout]
import { BODY, PATH, SECRET } from "./webhook_body.ts";
import { minimalHandler } from "./webhook_minimal.ts";
import { signWebhook } from "../src/webhooks/signature.ts";

const [variant = "ours", seconds = "8", checkout = new URL("..", import.meta.url).pathname] = Deno.args;
const library = await import(`${checkout}/mod.ts`);
const headers = await signWebhook({ body: BODY, secret: SECRET, timestamp: false });
const bytes = new TextEncoder().encode(BODY);
headers["content-length"] = String(bytes.length);
const url = `http://127.0.0.1:8000${PATH}`;
const processor = new library.WebhookProcessor({ log: false }).onAny(() => {});
const handler: (request: Request) => Promise<Response> = variant === "minimal"
  ? minimalHandler
  : library.createWebhookHandler({ signature: { secret: SECRET }, processor });
const end = performance.now() + 1000 * Number(seconds);
let requests = 0;
while (performance.now() < end) {
  const batch = [];
  for (let i = 0; i < 32; i++) {
    batch.push(handler(new Request(url, { method: "POST", headers, body: bytes })));
  }
  for (const response of await Promise.all(batch)) {
    if (response.status !== 200) throw new Error(`status ${response.status}`);
    await response.arrayBuffer();
  }
  requests += 32;
}
console.log(
  `${variant}: ${requests} requests, ${(Number(seconds) * 1e6 / requests).toFixed(2)} µs each (wall)`,
);
