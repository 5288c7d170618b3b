import { deepStrictEqual, rejects, strictEqual } from "node:assert/strict";
import { pruneOldRecords } from "../../src/tasks/prune.ts";
import type { GatewayStore, RecordKind } from "../../src/store/store.ts";
import { DAY, NOW, outbound, STORES } from "../fixtures/tasks_fixtures.ts";

async function seed(store: GatewayStore): Promise<void> {
  // Ages in days: 40, 31, 30 (exactly at the cut-off: kept), 29, 1.
  for (const [i, age] of [40, 31, 30, 29, 1].entries()) {
    await store.saveOutbound(outbound(`o${i}`, NOW - age * DAY, { status: i % 2 === 0 ? "sent" : "failed" }));
  }
  for (const [i, age] of [60, 45, 2].entries()) {
    await store.saveInbound({
      id: `m${i}`,
      instance: "sales",
      remoteJid: "5511999999999@s.whatsapp.net",
      payload: {},
      receivedAt: NOW - age * DAY,
    });
  }
  for (const [i, age] of [90, 31, 31, 0].entries()) {
    const at = NOW - age * DAY;
    await store.saveWebhookLog({
      id: `w${i}`,
      event: "MESSAGES_UPSERT",
      instance: "sales",
      receivedAt: at,
      status: "processed",
      updatedAt: at,
    });
  }
  await store.saveInstanceSnapshot({
    connection: "default",
    instance: "old",
    state: "close",
    updatedAt: NOW - 100 * DAY,
  });
  await store.saveInstanceSnapshot({
    connection: "default",
    instance: "new",
    state: "open",
    updatedAt: NOW - DAY,
  });
}

const ALL: Record<RecordKind, number> = { outbound: 2, inbound: 2, webhook_logs: 3, instances: 1 };

for (const harness of STORES) {
  Deno.test(`pruneOldRecords (${harness.name}): dry run counts exactly and removes nothing`, async () => {
    const { store, close } = await harness.open();
    try {
      await seed(store);
      const result = await pruneOldRecords({ store, dryRun: true, now: () => NOW });
      deepStrictEqual(result, { counts: ALL, total: 8, before: NOW - 30 * DAY, dryRun: true });
      strictEqual((await store.listOutbound()).length, 5);
      strictEqual((await store.listWebhookLogs()).length, 4);
    } finally {
      await close();
    }
  });

  Deno.test(`pruneOldRecords (${harness.name}): removes records older than 30 days by default`, async () => {
    const { store, close } = await harness.open();
    try {
      await seed(store);
      const result = await pruneOldRecords({ store, now: () => NOW });
      deepStrictEqual(result, { counts: ALL, total: 8, before: NOW - 30 * DAY, dryRun: false });
      deepStrictEqual((await store.listOutbound()).map((r) => r.id), ["o2", "o3", "o4"]);
      deepStrictEqual((await store.listWebhookLogs()).map((r) => r.id), ["w3"]);
      strictEqual(await store.getInbound("sales", "m1"), null);
      strictEqual((await store.getInbound("sales", "m2"))?.id, "m2");
      strictEqual(await store.getInstanceSnapshot("default", "old"), null);
      // A second run finds nothing left to do.
      strictEqual((await pruneOldRecords({ store, now: () => NOW })).total, 0);
    } finally {
      await close();
    }
  });

  Deno.test(`pruneOldRecords (${harness.name}): only the kinds asked for, with a custom age`, async () => {
    const { store, close } = await harness.open();
    try {
      await seed(store);
      const result = await pruneOldRecords({
        store,
        days: 44.5,
        kinds: ["inbound", "webhook_logs"],
        now: () => NOW,
      });
      deepStrictEqual(result.counts, { inbound: 2, webhook_logs: 1 });
      strictEqual(result.total, 3);
      strictEqual((await store.listOutbound()).length, 5);
      strictEqual((await store.getInstanceSnapshot("default", "old"))?.state, "close");
    } finally {
      await close();
    }
  });

  Deno.test(`pruneOldRecords (${harness.name}): a bad days or kinds value is an error and deletes nothing`, async () => {
    const { store, close } = await harness.open();
    try {
      await seed(store);
      for (const days of [0, -1, Number.NaN, Number.POSITIVE_INFINITY, "30" as unknown as number]) {
        await rejects(() => pruneOldRecords({ store, days, now: () => NOW }), {
          name: "RangeError",
          message: `Cannot prune records: "days" must be a positive number, got "${String(days)}"`,
        });
      }
      await rejects(() => pruneOldRecords({ store, kinds: [] }), RangeError);
      await rejects(() => pruneOldRecords({ store, kinds: ["everything" as RecordKind] }), {
        name: "RangeError",
        message:
          'Cannot prune records: unknown kind "everything" (expected one of outbound, inbound, webhook_logs, instances)',
      });
      strictEqual((await pruneOldRecords({ store, dryRun: true, now: () => NOW })).total, 8);
    } finally {
      await close();
    }
  });
}
