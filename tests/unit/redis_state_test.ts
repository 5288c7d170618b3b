import { deepStrictEqual, strictEqual } from "node:assert/strict";
import { RedisState } from "../../src/backends/redis/state.ts";
import { redisCommand, startRedisServer, withRedisServer } from "../helpers/redis_server.ts";
import { stateContract } from "./state_contract.ts";

stateContract({
  name: "RedisState",
  open: async (now) => {
    const server = await startRedisServer();
    const state = new RedisState({ url: server.url, now });
    return { state, close: async () => (await state.close(), await server.close()) };
  },
});

Deno.test("RedisState: two connections, 40 concurrent creates of one key → exactly one wins", async () => {
  await withRedisServer(async (server) => {
    const states = [new RedisState({ url: server.url }), new RedisState({ url: server.url })];
    try {
      const results = await Promise.all(
        Array.from({ length: 40 }, (_, i) => states[i % 2].set("claims", "k", i, { expectedVersion: null })),
      );
      strictEqual(results.filter((r) => r !== null).length, 1);
    } finally {
      await Promise.all(states.map((state) => state.close()));
    }
  });
});

Deno.test("RedisState: namespaces cannot reach each other through ':', and expired entries leave the indexes", async () => {
  await withRedisServer(async (server) => {
    let t = 1_000;
    const state = new RedisState({ url: server.url, prefix: "app:", now: () => t });
    try {
      await state.set("a:b", "c", 1);
      await state.set("a", "b:c", 2);
      deepStrictEqual((await state.list("a:b")).map((e) => [e.key, e.value]), [["c", 1]]);
      deepStrictEqual((await state.list("a")).map((e) => [e.key, e.value]), [["b:c", 2]]);
      for (let i = 0; i < 10; i++) await state.set("n", `k${i}`, i, { expiresAt: 2_000 });
      t = 2_000;
      await state.set("n", "live", "x");
      deepStrictEqual(await redisCommand(server.url, ["ZRANGE", "app:state_index:n", "0", "-1"]), ["live"]);
      deepStrictEqual(await redisCommand(server.url, ["ZCARD", "app:state_expiry:n"]), 0);
      deepStrictEqual(await redisCommand(server.url, ["EXISTS", "app:state:n:k3"]), 0);
      deepStrictEqual((await state.list("n")).map((e) => e.key), ["live"]);
    } finally {
      await state.close();
    }
  });
});

Deno.test("RedisState: list pages through more keys than one batch, skipping other prefixes", async () => {
  await withRedisServer(async (server) => {
    const state = new RedisState({ url: server.url });
    try {
      for (let i = 0; i < 450; i++) await state.set("n", `p:${String(i).padStart(3, "0")}`, i);
      await state.set("n", "q:0", "other");
      const listed = await state.list<number>("n", { prefix: "p:", limit: 1000 });
      strictEqual(listed.length, 450);
      strictEqual(listed[449].key, "p:449");
      strictEqual((await state.list("n", { prefix: "p:", limit: 201 })).length, 201);
      deepStrictEqual((await state.list("n", { prefix: "q" })).map((e) => e.value), ["other"]);
    } finally {
      await state.close();
    }
  });
});
