// Several processes writing one KV file at once: the busy-retry policy keeps every write sequence whole.
import { deepStrictEqual, strictEqual } from "node:assert/strict";
import { KvStore } from "../../src/backends/kv/store.ts";
import type { OutboundMessageRecord } from "../../src/store/store.ts";
import { MockGatewayServer } from "../../src/testing/mock_server.ts";
import { API_KEY, OLD_BEFORE } from "../fixtures/store_writer.ts";
import { runTogether } from "../helpers/processes.ts";

const WRITER = new URL("../fixtures/store_writer.ts", import.meta.url).pathname;
const WRITERS = 4;
const OPS = 300;
const FAILED = 60;

interface WriterResult {
  saved: string[];
  updated: number;
  oldSaved: number;
  pruned: number;
}

function failedRecord(i: number): OutboundMessageRecord {
  const createdAt = OLD_BEFORE + i;
  return {
    id: `failed-${i}`,
    connection: "default",
    instance: "sales",
    recipient: "5511999999999",
    type: "text",
    route: "/message/sendText/{instance}",
    body: { number: "5511999999999", text: `retry ${i}` },
    status: "failed",
    outcomeUnknown: false,
    retryCount: 0,
    lastError: "Gateway server error 503",
    createdAt,
    updatedAt: createdAt,
  };
}

Deno.test("KvStore: 4 writers × 300 mixed writes, 3 retry runs and the cron tasks on one file: 0 errors, nothing lost", async () => {
  const dir = await Deno.makeTempDir({ prefix: "gw_store_mp_" });
  const path = `${dir}/store.kv`;
  const server = await MockGatewayServer.start({ apiKey: API_KEY });
  server.addInstance("sales", { open: true });
  try {
    const seed = await Deno.openKv(path);
    const seedStore = new KvStore(seed);
    for (let i = 0; i < FAILED; i++) await seedStore.saveOutbound(failedRecord(i));
    seed.close();

    const url = server.url;
    const results = await runTogether<Record<string, unknown>>([
      ...Array.from({ length: WRITERS }, (_, w) => [WRITER, "writer", path, `w${w}`, String(OPS)]),
      [WRITER, "retry", path, url],
      [WRITER, "retry", path, url],
      [WRITER, "retry", path, url],
      [WRITER, "tasks", path, url, "20"],
    ]);
    const writers = results.slice(0, WRITERS) as unknown as WriterResult[];
    const retried = results.slice(WRITERS, WRITERS + 3).reduce((sum, r) => sum + (r.sent as number), 0);
    const tasks = results[WRITERS + 3] as { ran: number; skipped: number; sent: number };

    // Every failed record was sent exactly once, by one of the retry runs or the scheduled task.
    const texts = server.sentMessages.map((m) => m.text).sort();
    deepStrictEqual(texts, Array.from({ length: FAILED }, (_, i) => `retry ${i}`).sort());
    strictEqual(retried + tasks.sent, FAILED);
    strictEqual(tasks.ran + tasks.skipped, 40);

    const kv = await Deno.openKv(path);
    try {
      const store = new KvStore(kv);
      const all = await store.listOutbound({ limit: 100_000 });
      const byId = new Map(all.map((record) => [record.id, record]));
      for (const [w, writer] of writers.entries()) {
        strictEqual(writer.saved.length, OPS / 3, `writer ${w} saved`);
        strictEqual(writer.updated, OPS / 3, `writer ${w} updated`);
        for (const id of writer.saved) {
          const record = byId.get(id);
          strictEqual(record?.status, "sent", `record ${id}`);
          strictEqual(record?.messageId, `WA-${id}`);
        }
      }
      // Each old record was pruned exactly once or is still there: none lost, none counted twice.
      const oldSaved = writers.reduce((sum, w) => sum + w.oldSaved, 0);
      const pruned = writers.reduce((sum, w) => sum + w.pruned, 0);
      const oldLeft = all.filter((record) => record.createdAt < OLD_BEFORE).length;
      strictEqual(pruned + oldLeft, oldSaved);
      // Retried records: all sent, none pending, each resent once.
      for (let i = 0; i < FAILED; i++) {
        const record = byId.get(`failed-${i}`);
        strictEqual(record?.status, "sent", `failed-${i}`);
        strictEqual(record?.retryCount, 1);
      }
      strictEqual(all.length, WRITERS * OPS / 3 + oldLeft + FAILED);

      // Indexes agree with records: the status index lists exactly the records with that status.
      for (const status of ["pending", "sent", "failed"] as const) {
        const listed = (await store.listOutbound({ status, limit: 100_000 })).map((r) => r.id).sort();
        deepStrictEqual(listed, all.filter((r) => r.status === status).map((r) => r.id).sort(), status);
      }
      let records = 0;
      for await (const _ of kv.list({ prefix: ["gateway", "outbound", "rec"] })) records++;
      strictEqual(records, all.length);
    } finally {
      kv.close();
    }
  } finally {
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});
