import { deepStrictEqual, ok, strictEqual } from "node:assert/strict";
import { GatewayService, KvStore } from "../../mod.ts";
import type { OutboundMessageRecord } from "../../src/store/mod.ts";
import { retryFailedMessages } from "../../src/tasks/mod.ts";
import { MockGatewayServer } from "../../src/testing/mod.ts";
import { NO_NODE_MODULES } from "../helpers/processes.ts";

const KEY = "test-key";
const ROOT = new URL("../../", import.meta.url);

async function* lines(stream: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  let buffered = "";
  for await (const chunk of stream.pipeThrough(new TextDecoderStream())) {
    buffered += chunk;
    let newline: number;
    while ((newline = buffered.indexOf("\n")) >= 0) {
      yield buffered.slice(0, newline);
      buffered = buffered.slice(newline + 1);
    }
  }
  if (buffered !== "") yield buffered;
}

function spawn(worker: string, args: string[]): Deno.ChildProcess {
  return new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--quiet",
      NO_NODE_MODULES,
      "-A",
      new URL(`../fixtures/${worker}`, import.meta.url).pathname,
      ...args,
    ],
    cwd: ROOT.pathname,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
}

Deno.test("idempotency: 2 processes x 20 concurrent calls with one key on one KV file send once", async () => {
  await using mock = await MockGatewayServer.start({ apiKey: KEY, port: 0 });
  mock.addInstance("sales", { open: true });
  // The server takes a while, so calls of both processes arrive while the first send is in flight.
  mock.delay("POST /message/sendText", 300);
  const dir = await Deno.makeTempDir();
  try {
    const kvPath = `${dir}/gateway.kv`;
    const children = [0, 1].map(() =>
      spawn("idempotent_send_worker.ts", [kvPath, mock.url, KEY, "order-42", "20"])
    );
    const outputs = children.map((child) => lines(child.stdout));
    const stderr = children.map((child) => new Response(child.stderr).text());
    for (const [i, output] of outputs.entries()) {
      const first = await output.next();
      if (first.value !== "ready") throw new Error(`worker ${i} did not start: ${await stderr[i]}`);
    }
    const writers = children.map((child) => child.stdin.getWriter());
    await Promise.all(writers.map((writer) => writer.write(new TextEncoder().encode("go\n"))));
    await Promise.all(writers.map((writer) => writer.close()));
    const answers: { messageId: string; replayed: boolean }[] = [];
    for (const [i, output] of outputs.entries()) {
      const line = await output.next();
      const status = await children[i].status;
      ok(status.success && !line.done, `worker ${i} failed: ${await stderr[i]}`);
      answers.push(...JSON.parse(line.value as string));
      await stderr[i];
    }
    strictEqual(answers.length, 40);
    strictEqual(mock.requests.filter((r) => r.path === "/message/sendText/sales").length, 1);
    strictEqual(mock.sentMessages.length, 1);
    const id = (mock.sentMessages[0].message as { key: { id: string } }).key.id;
    deepStrictEqual(new Set(answers.map((a) => a.messageId)), new Set([id]));
    strictEqual(answers.filter((a) => !a.replayed).length, 1);
    const kv = await Deno.openKv(kvPath);
    try {
      const records = await new KvStore(kv).listOutbound();
      deepStrictEqual(records.map((r) => [r.status, r.messageId, r.idempotencyKey]), [[
        "sent",
        id,
        "order-42",
      ]]);
    } finally {
      kv.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

function failedRecord(i: number, createdAt: number): OutboundMessageRecord {
  const text = `crash test ${i}`;
  return {
    id: `rec-${i}`,
    connection: "default",
    instance: "sales",
    recipient: "5511999999999",
    type: "text",
    route: "/message/sendText/{instance}",
    body: { number: "5511999999999", text },
    status: "failed",
    outcomeUnknown: false,
    retryCount: 0,
    lastError: "Gateway server error 503",
    // Half of them were sent with an idempotency key: the resend also holds the key.
    ...(i % 2 === 0 ? { idempotencyKey: `key-${i}` } : {}),
    createdAt: createdAt + i,
    updatedAt: createdAt + i,
  };
}

Deno.test("crash: a retry run SIGKILLed mid-send at every point never sends twice and leaves nothing stuck", async () => {
  const RECORDS = 4;
  const recovered = { reconciled: 0, resent: 0 };
  // One run per kill point, each point once (random points took 20 runs and could miss one).
  for (let run = 0; run < 2 * RECORDS; run++) {
    await using mock = await MockGatewayServer.start({ apiKey: KEY, port: 0 });
    mock.addInstance("sales", { open: true });
    const dir = await Deno.makeTempDir();
    try {
      const kvPath = `${dir}/gateway.kv`;
      const seeded = Date.now() - 60_000;
      const kv = await Deno.openKv(kvPath);
      try {
        const store = new KvStore(kv);
        for (let i = 0; i < RECORDS; i++) await store.saveOutbound(failedRecord(i, seeded));
      } finally {
        kv.close();
      }
      // Kill after one of its 2 lines per send (before a send, or right after its answer).
      const killAfter = run + 1;
      const child = spawn("retry_kill_worker.ts", [kvPath, mock.url, KEY]);
      const stderr = new Response(child.stderr).text();
      await child.stdin.close();
      let seen = 0;
      for await (const line of lines(child.stdout)) {
        if (line === "done") break;
        if (++seen === killAfter) {
          try {
            child.kill("SIGKILL");
          } catch {
            // After its last answer the run may finish before the signal: then nothing was cut short.
          }
          break;
        }
      }
      const status = await child.status;
      await stderr;
      ok(status.signal === "SIGKILL" || killAfter === 2 * RECORDS, `run ${run}: not killed (${status.code})`);

      // Recovery, an hour later: claims have ended, so nothing is pending and unknown sends are looked up.
      const later = () => Date.now() + 3_600_000;
      const reopened = await Deno.openKv(kvPath);
      try {
        const store = new KvStore(reopened, { now: later });
        const service = new GatewayService({
          server_url: mock.url,
          api_key: KEY,
          rate_limiting: { enabled: false },
          store,
        });
        const recovery = await retryFailedMessages({ service, store, now: later, reconcileMinAgeMs: 0 });
        recovered.reconciled += recovery.reconciled;
        recovered.resent += recovery.sent;
        const records = await store.listOutbound();
        strictEqual(records.length, RECORDS);
        for (const record of records) {
          const text = (record.body as { text: string }).text;
          const deliveries = mock.sentMessages.filter((sent) => sent.text === text);
          // Exactly once on the server: a resend never followed a delivery, and nothing stays stuck.
          strictEqual(deliveries.length, 1, `run ${run} (killed after line ${killAfter}): ${text}`);
          strictEqual(record.status, "sent", `run ${run}: ${record.id} is ${record.status}`);
          strictEqual(record.messageId, (deliveries[0].message as { key: { id: string } }).key.id);
          strictEqual(record.claimedUntil, undefined);
        }
      } finally {
        reopened.close();
      }
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  }
  // Both kinds of crash happened: sends found on the server after the kill, and sends resent.
  ok(recovered.reconciled > 0 && recovered.resent > 0, JSON.stringify(recovered));
});
