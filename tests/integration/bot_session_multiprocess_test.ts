// Two processes on one KV file, 50 updates each of one chat at once, every update adding 1 to the chat's
// session counter: the compare-and-set save loses no update (the loser of a race fails and is run again).
import { strictEqual } from "node:assert/strict";
import { KvState } from "../../src/backends/kv/state.ts";
import { CHAT } from "../fixtures/session_worker.ts";
import { runTogether } from "../helpers/processes.ts";

const WORKER = new URL("../fixtures/session_worker.ts", import.meta.url).pathname;

Deno.test("session: 100 concurrent increments of one chat's counter across two processes end at exactly 100", async () => {
  const dir = await Deno.makeTempDir({ prefix: "gw_session_mp_" });
  try {
    const path = `${dir}/bot.kv`;
    const results = await runTogether<{ done: number; conflicts: number }>([
      [WORKER, path, "50"],
      [WORKER, path, "50"],
    ]);
    strictEqual(results[0].done + results[1].done, 100);
    // The updates did meet: saves were refused and run again (each process starts 50 reads of one version).
    strictEqual(results[0].conflicts > 0 && results[1].conflicts > 0, true);
    const kv = await Deno.openKv(path);
    try {
      const entry = await new KvState(kv).get<{ count: number }>("session", `sales:${CHAT}`);
      strictEqual(entry?.value.count, 100);
    } finally {
      kv.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("session through the bot: 100 webhooks of one chat across two processes count exactly 100", async () => {
  const dir = await Deno.makeTempDir({ prefix: "gw_session_bot_mp_" });
  try {
    const path = `${dir}/bot.kv`;
    const results = await runTogether<{ done: number }>([
      [WORKER, path, "50", "bot"],
      [WORKER, path, "50", "bot"],
    ]);
    strictEqual(results[0].done + results[1].done, 100);
    const kv = await Deno.openKv(path);
    try {
      const entry = await new KvState(kv).get<{ count: number }>("session", `sales:${CHAT}`);
      strictEqual(entry?.value.count, 100);
    } finally {
      kv.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
