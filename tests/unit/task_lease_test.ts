import { RedisTaskLease } from "../../src/backends/redis/lease.ts";
import { kvTaskLease } from "../../src/backends/kv/lease.ts";
import { startRedisServer } from "../helpers/redis_server.ts";
import { leaseContract } from "./task_lease_contract.ts";

leaseContract({
  name: "kvTaskLease",
  open: async (now) => {
    const kv = await Deno.openKv(":memory:");
    return {
      leases: [kvTaskLease(kv, undefined, now), kvTaskLease(kv, undefined, now)],
      close: () => kv.close(),
    };
  },
});

leaseContract({
  name: "RedisTaskLease",
  open: async (now) => {
    const server = await startRedisServer();
    const a = new RedisTaskLease({ url: server.url, now });
    const b = new RedisTaskLease({ url: server.url, now });
    return { leases: [a, b], close: async () => (await a.close(), await b.close(), await server.close()) };
  },
});
