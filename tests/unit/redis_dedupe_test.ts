import { strictEqual, throws } from "node:assert/strict";
import { RedisWebhookDedupe } from "../../src/backends/redis/dedupe.ts";
import { redisCommand, withRedisServer } from "../helpers/redis_server.ts";
import { concurrentDeliveries, lifecycle, T0 } from "./dedupe_contract.ts";

Deno.test("RedisWebhookDedupe: claim, lease, complete, window and release", async () => {
  await withRedisServer(async (server) => {
    const dedupe = new RedisWebhookDedupe({ url: server.url, windowSeconds: 60, leaseSeconds: 10 });
    try {
      await lifecycle(dedupe);
    } finally {
      await dedupe.close();
    }
  });
});

Deno.test("50 identical deliveries at the same moment run the handlers once (Redis)", async () => {
  await withRedisServer(async (server) => {
    const dedupe = new RedisWebhookDedupe({ url: server.url });
    try {
      await concurrentDeliveries(dedupe);
    } finally {
      await dedupe.close();
    }
  });
});

Deno.test("RedisWebhookDedupe: 50 concurrent claims over two connections: exactly one wins", async () => {
  await withRedisServer(async (server) => {
    const a = new RedisWebhookDedupe({ url: server.url });
    const b = new RedisWebhookDedupe({ url: server.url });
    try {
      const results = await Promise.all(
        Array.from({ length: 50 }, (_, i) => (i % 2 ? a : b).claim("same", T0)),
      );
      strictEqual(results.filter(Boolean).length, 1);
    } finally {
      await a.close();
      await b.close();
    }
  });
});

Deno.test("RedisWebhookDedupe: records carry their own expiry and a Redis TTL; state tells processing from done", async () => {
  await withRedisServer(async (server) => {
    const dedupe = new RedisWebhookDedupe({
      url: server.url,
      prefix: "app:",
      windowSeconds: 60,
      leaseSeconds: 10,
    });
    try {
      strictEqual(await dedupe.claim("evt", T0), true);
      strictEqual(
        await redisCommand(server.url, ["GET", "app:webhook_dedupe:evt"]),
        `processing:${T0 + 10_000}`,
      );
      const leaseTtl = Number(await redisCommand(server.url, ["PTTL", "app:webhook_dedupe:evt"]));
      strictEqual(leaseTtl > 60_000 && leaseTtl <= 70_000, true);
      strictEqual(await dedupe.state("evt", T0 + 9_999), "processing");
      strictEqual(await dedupe.state("evt", T0 + 10_000), null);
      await dedupe.complete("evt", T0 + 5);
      strictEqual(await redisCommand(server.url, ["GET", "app:webhook_dedupe:evt"]), `done:${T0 + 60_005}`);
      strictEqual(await dedupe.state("evt", T0 + 60_004), "done");
      await dedupe.release("evt");
      strictEqual(await dedupe.state("evt", T0), null);
    } finally {
      await dedupe.close();
    }
  });
});

Deno.test("RedisWebhookDedupe: timing settings are validated", () => {
  throws(() => new RedisWebhookDedupe({ url: "redis://127.0.0.1:1", windowSeconds: 0 }), /windowSeconds/);
});
