// One chat, 60 messages posted 4 ms apart, alternating between two bot processes on one KV file (and on one
// Redis): never two at a time, each message once, each process exactly in the order its requests arrived,
// and across processes in the order the arrivals reached the store. Pairs posted to different processes
// within the store's round trip of each other may go either way: the test prints how many were inverted and
// the largest gap between two inverted ones (the resolution, recorded in bench/README.md).
import { deepStrictEqual, strictEqual } from "node:assert/strict";
import { startRedisServer } from "../helpers/redis_server.ts";
import { NO_NODE_MODULES } from "../helpers/processes.ts";

const MESSAGES = 60;
const GAP_MS = 4;
const CHAT = "5511999999999@s.whatsapp.net";

interface Result {
  started: { i: number; order: number; chat: string }[];
  overlaps: number;
}

function body(i: number, chat = CHAT): string {
  return JSON.stringify({
    event: "messages.upsert",
    instance: "sales",
    data: {
      key: { remoteJid: chat, fromMe: false, id: `ORDER${chat}${i}` },
      message: { conversation: String(i) },
      messageType: "conversation",
    },
  });
}

async function run(args: string[]): Promise<{ results: Result[]; postedAt: number[] }> {
  const children = [0, 1].map(() =>
    new Deno.Command(Deno.execPath(), {
      args: ["run", "--quiet", "--lock=tests/npm/deno.lock", NO_NODE_MODULES, "-A", ...args],
      cwd: new URL("../../", import.meta.url).pathname,
      stdin: "piped",
      stdout: "piped",
      stderr: "inherit",
    }).spawn()
  );
  const readers = children.map((c) => c.stdout.pipeThrough(new TextDecoderStream()).getReader());
  const line = async (reader: ReadableStreamDefaultReader<string>) => {
    let text = "";
    while (!text.includes("\n")) {
      const { value, done } = await reader.read();
      if (done) break;
      text += value;
    }
    return text.trim();
  };
  const ports = await Promise.all(readers.map(async (r) => Number((await line(r)).split(" ")[1])));
  // Warm both up (connections, compiled code) on another chat: the run measures a steady state.
  for (let i = 0; i < 10; i++) {
    const res = await fetch(`http://127.0.0.1:${ports[i % 2]}/gateway/webhook/sales`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: body(i, "5511900000001@s.whatsapp.net"),
    });
    await res.body?.cancel();
  }
  const postedAt: number[] = [];
  const answers: Promise<number>[] = [];
  for (let i = 0; i < MESSAGES; i++) {
    postedAt.push(performance.now());
    answers.push(
      fetch(`http://127.0.0.1:${ports[i % 2]}/gateway/webhook/sales`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: body(i),
      }).then(async (res) => (await res.body?.cancel(), res.status)),
    );
    await new Promise((resolve) => setTimeout(resolve, GAP_MS)); // the load's pacing, not an assertion
  }
  deepStrictEqual(await Promise.all(answers), Array(MESSAGES).fill(200));
  const results: Result[] = [];
  for (const [k, child] of children.entries()) {
    const writer = child.stdin.getWriter();
    await writer.write(new TextEncoder().encode("done\n"));
    await writer.close();
    const result: Result = JSON.parse(await line(readers[k]));
    result.started = result.started.filter((s) => s.chat === CHAT);
    results.push(result);
    await readers[k].cancel();
    strictEqual((await child.status).success, true);
  }
  return { results, postedAt };
}

function check(kind: string, { results, postedAt }: { results: Result[]; postedAt: number[] }): void {
  strictEqual(results[0].overlaps + results[1].overlaps, 0, "never two at a time");
  const all = results.flatMap((r) => r.started);
  deepStrictEqual(all.map((s) => s.i).sort((a, b) => a - b), [...Array(MESSAGES).keys()], "each once");
  deepStrictEqual(
    all.map((s) => s.order).sort((a, b) => a - b),
    [...Array(MESSAGES).keys()].map((i) => i + 1),
  );
  for (const [p, result] of results.entries()) {
    const mine = [...result.started].sort((a, b) => a.order - b.order).map((s) => s.i);
    const posted = [...Array(MESSAGES).keys()].filter((i) => i % 2 === p);
    deepStrictEqual(mine, posted, `process ${p}: exactly in arrival order`);
  }
  const byOrder = [...all].sort((a, b) => a.order - b.order).map((s) => s.i);
  if (Deno.env.get("DEBUG_ORDER")) console.log(byOrder.join(" "));
  let inverted = 0;
  let widest = 0;
  for (let x = 0; x < byOrder.length; x++) {
    for (let y = x + 1; y < byOrder.length; y++) {
      if (byOrder[x] > byOrder[y]) {
        inverted++;
        widest = Math.max(widest, postedAt[byOrder[x]] - postedAt[byOrder[y]]);
      }
    }
  }
  console.log(`${kind}: ${inverted} cross-process inverted pairs, widest ${widest.toFixed(1)} ms apart`);
}

Deno.test("inbound order: 2 processes on one KV file, one chat, 60 messages 4 ms apart", async () => {
  const dir = await Deno.makeTempDir();
  try {
    check("kv", await run(["tests/fixtures/inbound_order_worker.ts", "kv", `${dir}/bot.kv`]));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("inbound order: 2 processes on one Redis, one chat, 60 messages 4 ms apart", async () => {
  const server = await startRedisServer();
  try {
    check("redis", await run(["tests/fixtures/inbound_order_worker.ts", "redis", server.url]));
  } finally {
    await server.close();
  }
});
