/**
 * Run a test body on a fresh store of each engine the bot's state runs on: `MemoryStore`, `KvStore` (an
 * in-memory Deno KV) and `RedisStore` (on a throwaway redis-server), closed after.
 */

import { KvStore, MemoryStore } from "../../mod.ts";
import { RedisStore } from "../../src/backends/redis/store.ts";
import type { GatewayStore } from "../../src/store/store.ts";
import { withRedisServer } from "./redis_server.ts";

/** The store engines, by the name of their store class. */
export type StoreEngine = "MemoryStore" | "KvStore" | "RedisStore";

/** Run `fn` on a fresh store of `engine`, closed after. */
export async function withStoreEngine(
  engine: StoreEngine,
  fn: (store: GatewayStore) => Promise<void>,
): Promise<void> {
  if (engine === "MemoryStore") return await fn(new MemoryStore());
  if (engine === "RedisStore") {
    return await withRedisServer(async (server) => {
      const store = new RedisStore({ url: server.url });
      try {
        await fn(store);
      } finally {
        await store.close();
      }
    });
  }
  const kv = await Deno.openKv(":memory:");
  try {
    await fn(new KvStore(kv));
  } finally {
    kv.close();
  }
}
