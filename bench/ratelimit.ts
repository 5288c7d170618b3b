/**
 * Rate limiting cost: attempts per second of each limiter, and what each adds to a client call compared
 * with no limiter, in the same run. The 4-process KV figure comes from `bench/ratelimit_processes.ts`.
 *
 *   deno bench --allow-read --allow-write bench/ratelimit.ts
 */

import { KvRateLimiter } from "../src/backends/kv/rate_limiter.ts";
import { MemoryRateLimiter } from "../src/backends/memory/rate_limiter.ts";
import type { RateLimiterInterface } from "../src/ratelimit/limiter.ts";
import { GatewayService } from "../src/service.ts";

// A limit that is never reached, so every measured attempt takes the full "allowed" path (a write).
const HUGE = 1_000_000_000;

const dir = Deno.makeTempDirSync({ prefix: "gw_bench_ratelimit_" });
const kv = await Deno.openKv(`${dir}/limits.kv`);
globalThis.addEventListener("unload", () => {
  kv.close();
  Deno.removeSync(dir, { recursive: true });
});

const memory = new MemoryRateLimiter();
const kvLimiter = new KvRateLimiter(kv);

Deno.bench("MemoryRateLimiter.attempt (allowed)", { group: "attempt" }, async () => {
  await memory.attempt("bench:allowed", HUGE, 3600);
});

await memory.attempt("bench:full", 1, 3600);
Deno.bench("MemoryRateLimiter.attempt (refused)", { group: "attempt" }, async () => {
  await memory.attempt("bench:full", 1, 3600);
});

Deno.bench("KvRateLimiter.attempt, local file (allowed)", { group: "attempt", baseline: true }, async () => {
  await kvLimiter.attempt("bench:allowed", HUGE, 3600);
});

await kvLimiter.attempt("bench:full", 1, 3600);
Deno.bench("KvRateLimiter.attempt, local file (refused)", { group: "attempt" }, async () => {
  await kvLimiter.attempt("bench:full", 1, 3600);
});

// The same code on an in-memory KV: the part of the cost that is not the file's durable write.
const memoryKv = await Deno.openKv(":memory:");
globalThis.addEventListener("unload", () => memoryKv.close());
const memoryKvLimiter = new KvRateLimiter(memoryKv);
Deno.bench("KvRateLimiter.attempt, :memory: KV (allowed)", { group: "attempt" }, async () => {
  await memoryKvLimiter.attempt("bench:allowed", HUGE, 3600);
});

// A client call answered in memory, so the limiter's share is not hidden behind network time.
const answer = JSON.stringify({ key: { id: "BAE5" }, status: "PENDING" });
const fetch = (() =>
  Promise.resolve(
    new Response(answer, { status: 201, headers: { "content-type": "application/json" } }),
  )) as typeof globalThis.fetch;

function service(limiter: RateLimiterInterface | null): GatewayService {
  return new GatewayService({
    server_url: "http://127.0.0.1:9",
    api_key: "bench-key",
    instance: "sales",
    rate_limiting: limiter
      ? { limiter, limits: { messages: { max_attempts: HUGE, decay_seconds: 3600 } } }
      : { enabled: false },
  }, { fetch });
}

const body = { number: "5511999999999", text: "hello" };
for (
  const [name, gw, baseline] of [
    ["no limiter", service(null), true],
    ["MemoryRateLimiter", service(new MemoryRateLimiter()), false],
    ["KvRateLimiter (local file)", service(new KvRateLimiter(kv, { prefix: ["client"] })), false],
  ] as const
) {
  Deno.bench(`client call, ${name}`, { group: "client call", baseline }, async () => {
    await gw.getClient().request("POST", "/message/sendText/{instance}", { body, bucket: "messages" });
  });
}
