/**
 * Queue mode with dedupe, exactly once across kills: 500 signed webhooks to a receiver in a subprocess (KV
 * dedupe and KV queue on one file, worker in the same process) that is SIGKILLed 14 to 21 times at random
 * points and restarted each time, while the sender retries like the gateway server (connection errors,
 * 5xx and 409 again; 2xx done). Afterwards every webhook was completed exactly once, none was lost, none was
 * dead-lettered. Handler runs are counted too: a run cut short by a kill is run again (at least once for the
 * handler's own effects), which the test reports but does not count as a duplicate.
 */

import { deepStrictEqual, ok, strictEqual } from "node:assert/strict";
import { listDeadLetters } from "../../src/webhooks/queue.ts";
import { signWebhook } from "../../src/webhooks/signature.ts";
import { NO_NODE_MODULES } from "../helpers/processes.ts";

const ROOT = new URL("../../", import.meta.url);
const SECRET = "kill-test-secret";
const TOTAL = 500;
/** Deno KV's deadline for a dequeued job whose process stopped renewing it (5 s), with a margin. */
const STRANDED_JOB_DEADLINE_MS = 6_000;

interface Receiver {
  port: number;
  child: Deno.ChildProcess;
}

async function startReceiver(path: string): Promise<Receiver> {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--config",
      new URL("deno.json", ROOT).pathname,
      NO_NODE_MODULES,
      "--allow-net=127.0.0.1",
      "--allow-read",
      "--allow-write",
      new URL("tests/fixtures/queue_receiver.ts", ROOT).pathname,
      path,
      SECRET,
    ],
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  let port: number | undefined;
  while (port === undefined) {
    const { done, value } = await reader.read();
    if (done) throw new Error(`receiver exited before listening: ${text}`);
    text += value;
    const match = /listening (\d+)/.exec(text);
    if (match) port = Number(match[1]);
  }
  // Keep draining stdout so that the child never blocks on a full pipe.
  (async () => {
    while (!(await reader.read().catch(() => ({ done: true }))).done);
  })();
  return { port, child };
}

async function kill(receiver: Receiver): Promise<void> {
  try {
    receiver.child.kill("SIGKILL");
  } catch {
    // Already gone.
  }
  await receiver.child.status;
}

function webhook(i: number): string {
  return JSON.stringify({
    event: "messages.upsert",
    instance: "sales",
    data: {
      key: {
        id: `KILL${String(i).padStart(4, "0")}`,
        remoteJid: "5511999999999@s.whatsapp.net",
        fromMe: false,
      },
      message: { conversation: `message ${i}` },
    },
  });
}

async function count(kv: Deno.Kv, kind: "runs" | "handled"): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  for await (const entry of kv.list({ prefix: ["test", kind] })) {
    const delivery = entry.key[2] as string;
    counts.set(delivery, (counts.get(delivery) ?? 0) + 1);
  }
  return counts;
}

async function digest(body: string): Promise<string> {
  const bytes = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(body)));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

Deno.test("queue + KV dedupe: 500 webhooks, receiver SIGKILLed 14–21 times → each completed exactly once, none lost or dead-lettered", async () => {
  const dir = await Deno.makeTempDir({ prefix: "gw_kill_" });
  const path = `${dir}/receiver.sqlite3`;
  const kills = 14 + Math.floor(Math.random() * 8);
  const bodies = Array.from({ length: TOTAL }, (_, i) => webhook(i));
  const pending = bodies.map((_, i) => i);
  const answered = new Set<number>();
  const statuses = new Map<number, number>();
  let receiver = await startReceiver(path);
  let up = Promise.resolve();
  let markUp = () => {};
  let killed = 0;
  let sendErrors = 0;

  // The sender: 16 deliveries in flight; a failure goes back to the end of the line, like the server's retry.
  const send = async () => {
    for (let round = 0; round < TOTAL * 200 && answered.size < TOTAL; round++) {
      const i = pending.shift();
      if (i === undefined) {
        // The rest is in flight with the other senders; one of them may come back.
        await new Promise((resolve) => setTimeout(resolve, 5));
        continue;
      }
      const body = bodies[i];
      try {
        const response = await fetch(`http://127.0.0.1:${receiver.port}/gateway/webhook/sales`, {
          method: "POST",
          headers: await signWebhook({ body, secret: SECRET }),
          body,
        });
        await response.body?.cancel();
        statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
        if (response.status === 200 || response.status === 202) answered.add(i);
        else {
          ok(response.status >= 500 || response.status === 409, `status ${response.status} is final`);
          pending.push(i);
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
      } catch {
        sendErrors++;
        pending.push(i);
        await up;
      }
    }
  };
  const senders = Array.from({ length: 16 }, send);

  const kv = await Deno.openKv(path);
  try {
    // The killer: after a random number of answers (or, once everything was answered, of handler runs),
    // SIGKILL the receiver and start a new one on the same file.
    for (let cycle = 0; killed < kills && cycle < 1000; cycle++) {
      const answersBefore = answered.size;
      const runsBefore = (await count(kv, "runs")).size;
      const target = 5 + Math.floor(Math.random() * 25);
      for (let poll = 0; poll < 2000; poll++) {
        if (answered.size - answersBefore >= target) break;
        if (answered.size === TOTAL) {
          const runs = (await count(kv, "runs")).size;
          if (runs - runsBefore >= 3 || runs === TOTAL) break;
          await new Promise((resolve) => setTimeout(resolve, 20));
        } else await new Promise((resolve) => setTimeout(resolve, 5));
      }
      ({ promise: up, resolve: markUp } = Promise.withResolvers<void>());
      await kill(receiver);
      killed++;
      // Deno KV gives a killed process's jobs back once their deadline (5 s after its last keepalive) has
      // passed: at once to a database opened after that, otherwise at its sweep every 60 s. The last
      // receiver starts after the deadline, so the drain takes seconds instead of a minute.
      if (killed === kills) await new Promise((resolve) => setTimeout(resolve, STRANDED_JOB_DEADLINE_MS));
      receiver = await startReceiver(path);
      markUp();
    }
    await Promise.all(senders);
    strictEqual(answered.size, TOTAL, `answered ${answered.size}`);

    // Let the last receiver drain the queue.
    let handled = await count(kv, "handled");
    // Bounded (3 min): a job the KV queue had handed to a killed process that the last receiver's start did
    // not take back comes back at the 60 s sweep.
    for (let poll = 0; poll < 3600 && handled.size < TOTAL; poll++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      handled = await count(kv, "handled");
    }
    const runs = await count(kv, "runs");
    const expected = await Promise.all(bodies.map(digest));
    const lost = expected.filter((id) => !handled.has(id));
    const twice = [...handled].filter(([, n]) => n !== 1);
    console.log(
      `kills ${killed}, statuses ${
        JSON.stringify(Object.fromEntries(statuses))
      }, connection errors ${sendErrors}, ` +
        `handler runs ${[...runs.values()].reduce((a, b) => a + b, 0)} for ${runs.size} webhooks`,
    );
    strictEqual(killed, kills);
    ok(kills >= 14 && kills <= 21);
    deepStrictEqual(lost, []);
    deepStrictEqual(twice, []);
    strictEqual(handled.size, TOTAL);
    ok(expected.every((id) => (runs.get(id) ?? 0) >= 1));
    deepStrictEqual(await listDeadLetters(kv), []);
  } finally {
    await kill(receiver);
    kv.close();
    await Deno.remove(dir, { recursive: true });
  }
});
