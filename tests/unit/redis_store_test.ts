import { deepStrictEqual, strictEqual } from "node:assert/strict";
import { RedisStore } from "../../src/backends/redis/store.ts";
import { redisCommand, startRedisServer, withRedisServer } from "../helpers/redis_server.ts";
import { ids, outbound, storeContract } from "./store_contract.ts";

storeContract({
  name: "RedisStore",
  open: async (now) => {
    const server = await startRedisServer();
    const store = new RedisStore({ url: server.url, now });
    return { store, close: async () => (await store.close(), await server.close()) };
  },
});

Deno.test("RedisStore: keys live under the prefix, one sorted-set entry per index, moved by an update", async () => {
  await withRedisServer(async (server) => {
    const store = new RedisStore({ url: server.url, prefix: "app:" });
    try {
      await store.saveOutbound(outbound("a", 100));
      const keys = async () => ((await redisCommand(server.url, ["KEYS", "*"])) as string[]).sort();
      deepStrictEqual(await keys(), [
        "app:outbound:by_instance:sales",
        "app:outbound:by_status:failed",
        "app:outbound:by_status_instance:failed:sales",
        "app:outbound:by_time",
        "app:outbound:rec:a",
      ]);
      await store.updateOutbound("a", { status: "sent" }, 100);
      deepStrictEqual(await keys(), [
        "app:outbound:by_instance:sales",
        "app:outbound:by_status:sent",
        "app:outbound:by_status_instance:sent:sales",
        "app:outbound:by_time",
        "app:outbound:rec:a",
      ]);
      strictEqual(await store.prune("outbound", 101), 1);
      deepStrictEqual(await keys(), []);
    } finally {
      await store.close();
    }
  });
});

Deno.test("RedisStore: two stores (two app servers) see each other's records and claim a retry once", async () => {
  await withRedisServer(async (server) => {
    const a = new RedisStore({ url: server.url });
    const b = new RedisStore({ url: server.url });
    try {
      await a.saveOutbound(outbound("r1", 100));
      deepStrictEqual(ids(await b.listOutbound({ status: "failed" })), ["r1"]);
      const claims = await Promise.all(
        Array.from(
          { length: 10 },
          (_, i) => (i % 2 ? a : b).updateOutbound("r1", { status: "pending" }, 100),
        ),
      );
      strictEqual(claims.filter((claim) => claim !== null).length, 1);
      // The state on the same connection and prefix.
      await a.state.set("n", "k", "v");
      strictEqual((await b.state.get("n", "k"))?.value, "v");
    } finally {
      await a.close();
      await b.close();
    }
  });
});

Deno.test("RedisStore: concurrent updates without an expected version all apply (none is lost)", async () => {
  await withRedisServer(async (server) => {
    // A clock behind every updatedAt: each applied update moves updatedAt by exactly 1 ms.
    const store = new RedisStore({ url: server.url, now: () => 50 });
    const other = new RedisStore({ url: server.url, now: () => 50 });
    try {
      await store.saveOutbound(outbound("r1", 100));
      await Promise.all(
        Array.from({ length: 10 }, async (_, i) => {
          const s = i % 2 ? store : other;
          return await s.updateOutbound("r1", { lastError: `e${i}` });
        }),
      );
      const final = (await store.getOutbound("r1"))!;
      strictEqual(final.updatedAt, 110);
    } finally {
      await store.close();
      await other.close();
    }
  });
});
