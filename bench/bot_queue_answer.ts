/**
 * How fast the bot's webhook answer is when its handler takes far longer than the server's 30 s budget.
 *
 * A bot in queue mode (Deno KV file in a temporary directory, the worker in the same process) behind
 * `Deno.serve` on 127.0.0.1; every handler blocks for the whole run (it awaits a gate opened only after the
 * last answer, standing in for a 60 s job), so the worker is busy with long jobs while webhooks keep coming.
 * Each webhook is a signed `messages.upsert` for its own chat, posted over HTTP one after another; the answer
 * time is measured at the client. For comparison in the same run: the same bot in queue mode with a handler
 * that returns at once, and in sync mode with a handler that returns at once.
 *
 *   deno run -A --lock=tests/npm/deno.lock bench/bot_queue_answer.ts [--count 400]
 */

import { MemoryStore } from "../src/backends/memory/store.ts";
import { Bot, type BotOptions } from "../src/bot/mod.ts";
import { signedWebhookRequest } from "../src/testing/mod.ts";

const SECRET = "bench-bot-secret-0123456789abcdef"; // 32 bytes: no short-secret warning
const countArg = Deno.args.indexOf("--count");
const COUNT = countArg >= 0 ? Number(Deno.args[countArg + 1]) : 400;

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

function payload(i: number): Record<string, unknown> {
  return {
    event: "messages.upsert",
    instance: "bench",
    sender: "5511900000000@s.whatsapp.net",
    data: {
      key: { remoteJid: `55119${String(i).padStart(8, "0")}@s.whatsapp.net`, fromMe: false, id: `BENCH${i}` },
      pushName: "Load",
      message: { conversation: `message ${i}` },
      messageType: "conversation",
      messageTimestamp: 1_760_000_000,
    },
  };
}

/** Post COUNT webhooks to a bot built with `options`, print the answer times, and return their p99 (ms). */
async function run(label: string, options: BotOptions, slow: boolean): Promise<number> {
  const dir = await Deno.makeTempDir({ prefix: "gw_bot_bench_" });
  let open!: () => void;
  const gate = new Promise<void>((resolve) => open = resolve);
  let started = 0;
  let finished = 0;
  let allDone!: () => void;
  const done = new Promise<void>((resolve) => allDone = resolve);
  const bot = new Bot({
    store: new MemoryStore(),
    signature: { scheme: "hmac", secret: SECRET },
    pacing: false,
    ...options,
    ...(options.queue === undefined ? {} : { queue: { mode: "kv", path: `${dir}/queue.kv` } }),
  });
  bot.on("message:text", async () => {
    started++;
    if (slow) await gate;
    if (++finished === COUNT) allDone();
  });
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, bot.fetch);
  const url = `http://127.0.0.1:${server.addr.port}/gateway/webhook/bench`;
  const times: number[] = [];
  const statuses = new Map<number, number>();
  for (let i = 0; i < COUNT; i++) {
    const request = await signedWebhookRequest(url, payload(i), { secret: SECRET });
    const t0 = performance.now();
    const response = await fetch(request);
    await response.body?.cancel();
    times.push(performance.now() - t0);
    statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
  }
  const handlersRunning = started;
  open();
  await done; // every job ran: nothing is left in the queue when it closes
  await server.shutdown();
  await bot.close();
  await Deno.remove(dir, { recursive: true });
  console.log(
    `${label.padEnd(44)} p50 ${fmt(percentile(times, 50))}  p99 ${fmt(percentile(times, 99))}  max ${
      fmt(Math.max(...times))
    }  answers ${
      JSON.stringify(Object.fromEntries(statuses))
    }  handlers started before the last answer: ${handlersRunning}`,
  );
  return percentile(times, 99);
}

function fmt(ms: number): string {
  return `${ms.toFixed(2)} ms`;
}

console.log(
  `${COUNT} webhooks each, sequential, over HTTP on 127.0.0.1 (load average ${
    Deno.loadavg().map((l) => l.toFixed(2)).join(", ")
  })`,
);
const blocked = await run("queue mode, handler blocked for the whole run", { queue: true }, true);
const queued = await run("queue mode, handler returns at once", { queue: true }, false);
const sync = await run("sync mode, handler returns at once", {}, false);
const worst = Math.max(blocked, queued);
console.log(
  `goal (issue 27): queue-mode answer p99 <= 200 ms: ${fmt(worst)} (${(worst / sync).toFixed(1)}x the sync ` +
    `baseline's p99 in this run): ${worst <= 200 ? "met" : "NOT met"}`,
);
