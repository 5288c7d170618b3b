import { strictEqual } from "node:assert/strict";
import { runWorkers } from "../fixtures/ratelimit_processes.ts";

Deno.test("KvRateLimiter: 4 processes sharing one KV file allow exactly the limit", async () => {
  const dir = await Deno.makeTempDir({ prefix: "gw_ratelimit_" });
  try {
    const results = await runWorkers(`${dir}/limits.kv`, 4, {
      attempts: 250,
      maxAttempts: 400,
      decaySeconds: 3600,
    });
    strictEqual(results.length, 4);
    strictEqual(results.reduce((sum, r) => sum + r.allowed, 0), 400);
    strictEqual(results.reduce((sum, r) => sum + r.refused, 0), 600);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
