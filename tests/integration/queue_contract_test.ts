import { RedisWebhookQueue } from "../../src/backends/redis/queue.ts";
import {
  listDeadLetters,
  requeueDeadLetter,
  startWebhookWorker,
  type WebhookWorker,
} from "../../src/webhooks/queue.ts";
import { startRedisServer } from "../helpers/redis_server.ts";
import { queueContract } from "./queue_contract.ts";

queueContract({
  name: "Deno KV",
  open: async (settings) => {
    const dir = await Deno.makeTempDir({ prefix: "gw_queue_contract_" });
    const kv = await Deno.openKv(`${dir}/queue.sqlite3`);
    const workers: WebhookWorker[] = [];
    return {
      handlerQueue: { enabled: true, kv, ...settings },
      startWorker: (processor, options) =>
        workers.push(startWebhookWorker(kv, processor, { ...settings, ...options })),
      listDeadLetters: () => listDeadLetters(kv),
      requeueDeadLetter: (id) => requeueDeadLetter(kv, id),
      close: async () => {
        await Promise.all(workers.map((worker) => worker.idle()));
        kv.close();
        await Promise.all(workers.map((worker) => worker.finished));
        await Deno.remove(dir, { recursive: true });
      },
    };
  },
});

queueContract({
  name: "Redis",
  open: async (settings) => {
    const server = await startRedisServer();
    const queue = new RedisWebhookQueue({ url: server.url, pollIntervalMs: 5, ...settings });
    return {
      handlerQueue: { enabled: true, backend: queue },
      startWorker: (processor, options) => queue.startWorker(processor, options),
      listDeadLetters: () => queue.listDeadLetters(),
      requeueDeadLetter: (id) => queue.requeueDeadLetter(id),
      close: async () => {
        await queue.close();
        await server.close();
      },
    };
  },
});
