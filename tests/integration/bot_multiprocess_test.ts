// Two bot processes on one Deno KV file, both receiving every webhook of two chats at once: each message runs
// exactly once in all, one chat's handlers never overlap (even across the processes), each process runs one
// chat's messages in the order they arrived, and every message got exactly one reply.
import { deepStrictEqual, strictEqual } from "node:assert/strict";
import { MockGatewayServer } from "../../src/testing/mod.ts";
import { runTogether } from "../helpers/processes.ts";

const KEY = "test-key";
const PER_CHAT = 25;

interface Result {
  handled: string[];
  overlaps: number;
  busy: number;
}

Deno.test("bot: 2 processes on one KV file run each message once, one at a time per chat, in order", async () => {
  await using mock = await MockGatewayServer.start({ apiKey: KEY, port: 0 });
  mock.addInstance("sales", { open: true });
  const dir = await Deno.makeTempDir();
  try {
    const kvPath = `${dir}/bot.kv`;
    const args = ["tests/fixtures/bot_multiprocess_worker.ts", kvPath, mock.url, KEY, String(PER_CHAT)];
    const results = await runTogether<Result>([args, args]);
    const all = results.flatMap((r) => r.handled);
    const expected = ["5511999999999", "5511988887777"].flatMap((chat) =>
      Array.from({ length: PER_CHAT }, (_, i) => `${chat}-${i}`)
    );
    deepStrictEqual([...all].sort(), [...expected].sort()); // exactly once in all
    strictEqual(results[0].overlaps + results[1].overlaps, 0);
    for (const result of results) {
      for (const chat of ["5511999999999", "5511988887777"]) {
        const order = result.handled.filter((id) => id.startsWith(chat)).map((id) =>
          Number(id.split("-")[1])
        );
        deepStrictEqual(order, [...order].sort((a, b) => a - b), `order in one process for ${chat}`);
      }
    }
    const replies = mock.sentMessages.map((m) => m.text).sort();
    deepStrictEqual(replies, expected.map((id) => `re ${id.replace("-", " ")}`).sort());
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
