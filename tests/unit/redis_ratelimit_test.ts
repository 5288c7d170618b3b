import { deepStrictEqual, rejects, strictEqual, throws } from "node:assert/strict";
import { ConfigurationException, ConnectionException } from "../../src/errors.ts";
import { RedisRateLimiter } from "../../src/backends/redis/rate_limiter.ts";
import { freePort, redisCommand, startRedisServer, withRedisServer } from "../helpers/redis_server.ts";
import { fakeClock, limiterContract } from "./ratelimit_contract.ts";

limiterContract("RedisRateLimiter", async (clock) => {
  const server = await startRedisServer();
  const limiter = new RedisRateLimiter({ url: server.url, now: clock.now });
  return { limiter, close: async () => (await limiter.close(), await server.close()) };
});

Deno.test("RedisRateLimiter: the window is one hash under the prefix, with its own start, end and expiry", async () => {
  await withRedisServer(async (server) => {
    const clock = fakeClock(1_000_000);
    const limiter = new RedisRateLimiter({ url: server.url, prefix: "app:", now: clock.now });
    try {
      await limiter.attempt("gateway:default:-:default", 5, 60);
      await limiter.attempt("gateway:default:-:default", 5, 60);
      const key = "app:ratelimit:gateway:default:-:default";
      deepStrictEqual(await redisCommand(server.url, ["HGETALL", key]), {
        count: "2",
        max: "5",
        start: "1000000",
        reset: "1060000",
      });
      const ttl = Number(await redisCommand(server.url, ["PTTL", key]));
      strictEqual(ttl > 55_000 && ttl <= 60_000, true);
      deepStrictEqual(await redisCommand(server.url, ["KEYS", "gateway:*"]), []);
    } finally {
      await limiter.close();
    }
  });
});

Deno.test("RedisRateLimiter: a window Redis has not expired yet is not trusted past its own end", async () => {
  await withRedisServer(async (server) => {
    await redisCommand(server.url, [
      "HSET",
      "gateway:ratelimit:k",
      "count",
      "3",
      "max",
      "3",
      "start",
      "4000000",
      "reset",
      "4060000",
    ]);
    const limiter = new RedisRateLimiter({ url: server.url, now: fakeClock(5_000_000).now });
    try {
      strictEqual(await limiter.availableIn("k", 60), 0);
      strictEqual(await limiter.attempt("k", 3, 60), true);
      deepStrictEqual(await redisCommand(server.url, ["HGETALL", "gateway:ratelimit:k"]), {
        count: "1",
        max: "3",
        start: "5000000",
        reset: "5060000",
      });
    } finally {
      await limiter.close();
    }
  });
});

Deno.test("RedisRateLimiter: four limiter objects (four connections) share the limit exactly", async () => {
  await withRedisServer(async (server) => {
    const limiters = Array.from({ length: 4 }, () => new RedisRateLimiter({ url: server.url }));
    try {
      const results = await Promise.all(
        Array.from({ length: 80 }, (_, i) => limiters[i % 4].attempt("shared", 30, 3600)),
      );
      strictEqual(results.filter(Boolean).length, 30);
    } finally {
      await Promise.all(limiters.map((limiter) => limiter.close()));
    }
  });
});

Deno.test("Redis backends: a URL nobody listens on fails with a ConnectionException naming host:port, never the password", async () => {
  const port = freePort();
  const limiter = new RedisRateLimiter({
    url: `redis://:hunter2-secret@127.0.0.1:${port}`,
    connectTimeoutMs: 500,
  });
  try {
    const error = await limiter.attempt("k", 1, 60).then(() => null, (caught: unknown) => caught);
    strictEqual(error instanceof ConnectionException, true);
    const message = (error as Error).message;
    strictEqual(message.startsWith(`Cannot connect to Redis at "127.0.0.1:${port}": `), true, message);
    strictEqual(message.includes("hunter2"), false);
    strictEqual(JSON.stringify(error).includes("hunter2"), false);
  } finally {
    await limiter.close();
  }
  await rejects(limiter.attempt("k", 1, 60), { message: "Cannot use Redis: the backend is closed" });
});

Deno.test("Redis backends: bad options are a ConfigurationException naming the setting", () => {
  throws(() => new RedisRateLimiter({ url: "http://127.0.0.1:6379" }), {
    name: "ConfigurationException",
    message: 'Cannot create RedisRateLimiter: "url" must start with redis:// or rediss://, got "http://"',
  });
  throws(() => new RedisRateLimiter({ url: "not a url" }), ConfigurationException);
  throws(
    () => new RedisRateLimiter({ client: {} as never }),
    (error: unknown) => error instanceof ConfigurationException && error.setting === "client",
  );
  throws(() => new RedisRateLimiter({ url: "redis://127.0.0.1", prefix: "" }), {
    message: 'Cannot create RedisRateLimiter: "prefix" must be a non-empty string',
  });
  throws(() => new RedisRateLimiter({} as never), {
    message: "Cannot create RedisRateLimiter: pass { url } or { client }",
  });
});

Deno.test("RedisRateLimiter: works on a client the application opened, and leaves it open", async () => {
  await withRedisServer(async (server) => {
    // deno-lint-ignore no-import-prefix -- only ./redis users install the client (not in the import map)
    const { createClient } = await import("npm:@redis/client@6.3.1");
    const client = createClient({ url: server.url });
    await client.connect();
    try {
      const limiter = new RedisRateLimiter({ client });
      strictEqual(await limiter.attempt("k", 1, 60), true);
      strictEqual(await limiter.attempt("k", 1, 60), false);
      await limiter.close();
      strictEqual(client.isOpen, true);
      strictEqual(await client.sendCommand(["HGET", "gateway:ratelimit:k", "count"]), "1");
    } finally {
      await client.close();
    }
  });
});
