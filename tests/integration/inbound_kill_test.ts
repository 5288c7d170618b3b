// A kill mid-handler: a process holding a chat's turn and a message's claim is SIGKILLed; the redelivery to
// another process on the same KV file is refused until the documented leases ran out (its clocks moved past
// them: the claim's on the monotonic clock, from its first look; the turn's on the wall clock), then runs once, and the chat's next message runs: the chat is not stuck beyond the lease.
import { deepStrictEqual, rejects } from "node:assert/strict";
import { KvStore } from "../../mod.ts";
import { MESSAGE_CLAIM_LEASE_MS } from "../../src/webhooks/message_claims.ts";
import { NO_NODE_MODULES } from "../helpers/processes.ts";
import { inbound, stubBot } from "../helpers/bot.ts";

const ROOT = new URL("../../", import.meta.url);

async function startedThenKilled(kvPath: string): Promise<void> {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--quiet",
      "--lock=tests/npm/deno.lock",
      NO_NODE_MODULES,
      "-A",
      "tests/fixtures/inbound_kill_worker.ts",
      kvPath,
    ],
    cwd: ROOT.pathname,
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let out = "";
  while (!out.includes("started")) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`the worker ended before its handler started: ${out}`);
    out += value;
  }
  child.kill("SIGKILL");
  await child.status;
  await reader.cancel();
}

Deno.test("inbound kill: a SIGKILLed holder's message runs once elsewhere after the lease, and its chat is not stuck", async () => {
  const dir = await Deno.makeTempDir({ prefix: "gw_inbound_kill_" });
  const kvPath = `${dir}/bot.kv`;
  await startedThenKilled(kvPath);
  const kv = await Deno.openKv(kvPath);
  let jump = 0;
  const now = () => Date.now() + jump;
  const monotonic = () => performance.now() + jump;
  const orderLeaseMs = 30_000;
  const { bot } = stubBot({ store: new KvStore(kv, { now }), now, orderLeaseMs, claims: { monotonic } });
  const runs: string[] = [];
  bot.on("message:text", (ctx) => void runs.push(ctx.text));
  try {
    // Within the lease, the dead holder's claim still holds: the redelivery is refused, nothing runs.
    await rejects(bot.handleUpdate(inbound("charge the card", { id: "KILL1" })), /another delivery/);
    jump = MESSAGE_CLAIM_LEASE_MS + orderLeaseMs + 1_000; // past every lease
    await bot.handleUpdate(inbound("charge the card", { id: "KILL1" }));
    await bot.handleUpdate(inbound("next", { id: "KILL2" }));
    await bot.handleUpdate(inbound("charge the card", { id: "KILL1" })); // handled: nothing runs
    deepStrictEqual(runs, ["charge the card", "next"]);
  } finally {
    await bot.close();
    kv.close();
    await Deno.remove(dir, { recursive: true });
  }
});
