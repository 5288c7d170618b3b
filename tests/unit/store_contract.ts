// The GatewayStore contract: every engine (memory, Deno KV, D1, Redis) runs this suite and must behave
// identically.
import { deepStrictEqual, ok, rejects, strictEqual } from "node:assert/strict";
import type {
  GatewayStore,
  InboundMessageRecord,
  OutboundMessageRecord,
  WebhookLogRecord,
} from "../../src/store/store.ts";

/** An opened store and how to close it. */
export interface Opened {
  store: GatewayStore;
  close(): void | Promise<void>;
}

/** An engine under test: `open` gets an optional clock and returns a fresh, empty store. */
export interface StoreHarness {
  name: string;
  open(now?: () => number): Promise<Opened>;
  /**
   * False for engines reached through a client that keeps its own timers (miniflare's keep-alive), whose
   * leaks are not the engine's: the op and resource sanitizers are then off for its tests.
   */
  sanitize?: boolean;
}

const bodies: { name: string; body: (store: GatewayStore) => Promise<void>; now?: () => number }[] = [];

function contract(name: string, body: (store: GatewayStore) => Promise<void>, now?: () => number): void {
  bodies.push({ name, body, now });
}

/** Register the contract tests for one engine. */
export function storeContract(harness: StoreHarness): void {
  for (const { name, body, now } of bodies) {
    Deno.test({
      name: `${harness.name} contract: ${name}`,
      sanitizeOps: harness.sanitize !== false,
      sanitizeResources: harness.sanitize !== false,
      async fn() {
        const opened = await harness.open(now);
        try {
          await body(opened.store);
        } finally {
          await opened.close();
        }
      },
    });
  }
}

export function outbound(
  id: string,
  createdAt: number,
  extra: Partial<OutboundMessageRecord> = {},
): OutboundMessageRecord {
  return {
    id,
    connection: "default",
    instance: "sales",
    recipient: "5511999999999",
    type: "text",
    route: "/message/sendText/{instance}",
    body: { number: "5511999999999", text: `hello ${id}` },
    status: "failed",
    outcomeUnknown: false,
    retryCount: 0,
    createdAt,
    updatedAt: createdAt,
    ...extra,
  };
}

function inbound(
  id: string,
  receivedAt: number,
  extra: Partial<InboundMessageRecord> = {},
): InboundMessageRecord {
  return {
    id,
    instance: "sales",
    remoteJid: "5511999999999@s.whatsapp.net",
    text: "hi",
    payload: { key: { id } },
    receivedAt,
    ...extra,
  };
}

function webhookLog(id: string, receivedAt: number, extra: Partial<WebhookLogRecord> = {}): WebhookLogRecord {
  return {
    id,
    event: "MESSAGES_UPSERT",
    instance: "sales",
    receivedAt,
    status: "received",
    updatedAt: receivedAt,
    ...extra,
  };
}

export const ids = (records: { id: string }[]) => records.map((record) => record.id);

contract("saves and reads an outbound record, as a copy", async (store) => {
  const record = outbound("a", 100, { lastError: undefined, messageId: undefined });
  await store.saveOutbound(record);
  const read = await store.getOutbound("a");
  deepStrictEqual(read, outbound("a", 100));
  strictEqual("lastError" in read!, false);
  (read!.body as { text: string }).text = "changed";
  record.recipient = "changed";
  deepStrictEqual(await store.getOutbound("a"), outbound("a", 100));
  strictEqual(await store.getOutbound("missing"), null);
});

contract(
  "nested bodies (arrays, a __proto__ key) round-trip as copies through save, update and list",
  async (store) => {
    const body = JSON.parse(
      '{"number":"5511999999999","sections":[{"title":"A","rows":[{"rowId":"r1"},{"rowId":"r2"}]}],"__proto__":{"x":1}}',
    );
    const record = outbound("a", 100, { body });
    await store.saveOutbound(record);
    body.sections[0].rows.push({ rowId: "r3" }); // the caller's object changes after the save
    const read = await store.getOutbound("a");
    deepStrictEqual(
      read!.body,
      JSON.parse(
        '{"number":"5511999999999","sections":[{"title":"A","rows":[{"rowId":"r1"},{"rowId":"r2"}]}],"__proto__":{"x":1}}',
      ),
    );
    strictEqual(Object.getPrototypeOf(read!.body), Object.prototype); // a key, not a prototype
    deepStrictEqual(Object.keys(read!.body), ["number", "sections", "__proto__"]);
    const changes = { body: { number: "5511999999999", list: [[1, 2], [3]] } };
    const updated = await store.updateOutbound("a", changes);
    changes.body.list[0].push(9);
    (updated!.body as { list: number[][] }).list[1].push(9);
    deepStrictEqual((await store.listOutbound())[0].body, { number: "5511999999999", list: [[1, 2], [3]] });
  },
);

contract("replacing an outbound record moves it between status indexes", async (store) => {
  await store.saveOutbound(outbound("a", 100, { status: "failed" }));
  await store.saveOutbound(outbound("a", 100, { status: "sent", messageId: "3EB0" }));
  deepStrictEqual(await store.listOutbound({ status: "failed" }), []);
  deepStrictEqual(ids(await store.listOutbound({ status: "sent" })), ["a"]);
  deepStrictEqual(ids(await store.listOutbound({ instance: "sales", status: "failed" })), []);
  deepStrictEqual(ids(await store.listOutbound()), ["a"]);
});

contract("lists outbound records oldest first through every filter", async (store) => {
  await store.saveOutbound(outbound("c", 300));
  await store.saveOutbound(outbound("b", 100));
  await store.saveOutbound(outbound("a", 100)); // same time as "b": ordered by id
  await store.saveOutbound(outbound("d", 200, { status: "sent" }));
  await store.saveOutbound(outbound("e", 50, { instance: "support" }));
  await store.saveOutbound(outbound("f", 400, { instance: "support", status: "pending" }));

  deepStrictEqual(ids(await store.listOutbound()), ["e", "a", "b", "d", "c", "f"]);
  deepStrictEqual(ids(await store.listOutbound({ status: "failed" })), ["e", "a", "b", "c"]);
  deepStrictEqual(ids(await store.listOutbound({ status: "failed", createdBefore: 300 })), ["e", "a", "b"]);
  deepStrictEqual(ids(await store.listOutbound({ status: "failed", createdBefore: 100 })), ["e"]);
  deepStrictEqual(ids(await store.listOutbound({ status: "failed", limit: 2 })), ["e", "a"]);
  deepStrictEqual(ids(await store.listOutbound({ status: "failed", limit: 0 })), []);
  deepStrictEqual(ids(await store.listOutbound({ instance: "sales", status: "failed" })), ["a", "b", "c"]);
  deepStrictEqual(ids(await store.listOutbound({ instance: "support" })), ["e", "f"]);
  deepStrictEqual(ids(await store.listOutbound({ instance: "sales" })), ["a", "b", "d", "c"]);
  deepStrictEqual(ids(await store.listOutbound({ instance: "sales", limit: 3 })), ["a", "b", "d"]);
  deepStrictEqual(ids(await store.listOutbound({ instance: "sales", createdBefore: 200 })), ["a", "b"]);
  deepStrictEqual(ids(await store.listOutbound({ status: "pending" })), ["f"]);
  deepStrictEqual(ids(await store.listOutbound({ instance: "nobody" })), []);
});

contract("pages with startAfter without gaps or repeats", async (store) => {
  for (let i = 0; i < 25; i++) {
    await store.saveOutbound(outbound(`r${String(i).padStart(2, "0")}`, 1000 + (i % 5)));
  }
  const all = ids(await store.listOutbound({ status: "failed" }));
  strictEqual(all.length, 25);
  const paged: string[] = [];
  let after: { createdAt: number; id: string } | undefined;
  while (true) {
    const page = await store.listOutbound({ status: "failed", limit: 4, startAfter: after });
    if (page.length === 0) break;
    paged.push(...ids(page));
    const last = page[page.length - 1];
    after = { createdAt: last.createdAt, id: last.id };
  }
  deepStrictEqual(paged, all);
  deepStrictEqual(
    ids(await store.listOutbound({ startAfter: { createdAt: 1004, id: "r19" }, createdBefore: 1004 })),
    [],
  );
  deepStrictEqual(
    ids(await store.listOutbound({ instance: "sales", startAfter: { createdAt: 1004, id: "r19" } })),
    ["r24"],
  );
});

contract("updateOutbound is a compare-and-set on updatedAt", async (store) => {
  await store.saveOutbound(outbound("a", 100, { lastError: "timeout" }));
  strictEqual(await store.updateOutbound("a", { status: "pending" }, 99), null);
  strictEqual(await store.updateOutbound("missing", { status: "pending" }, 100), null);
  deepStrictEqual(await store.getOutbound("a"), outbound("a", 100, { lastError: "timeout" }));

  const claimed = await store.updateOutbound("a", { status: "pending", retryCount: 1, updatedAt: 150 }, 100);
  deepStrictEqual(
    claimed,
    outbound("a", 100, { status: "pending", retryCount: 1, updatedAt: 150, lastError: "timeout" }),
  );
  // The same version cannot be claimed twice.
  strictEqual(await store.updateOutbound("a", { status: "pending" }, 100), null);
  deepStrictEqual(ids(await store.listOutbound({ status: "failed" })), []);
  deepStrictEqual(ids(await store.listOutbound({ status: "pending" })), ["a"]);

  // id and createdAt never change; undefined removes a field; updatedAt always moves forward.
  const sent = await store.updateOutbound(
    "a",
    { status: "sent", messageId: "3EB0", lastError: undefined, updatedAt: 150, ...{ id: "x", createdAt: 1 } },
    150,
  );
  deepStrictEqual(
    sent,
    outbound("a", 100, { status: "sent", retryCount: 1, messageId: "3EB0", updatedAt: 151 }),
  );
  deepStrictEqual(await store.getOutbound("a"), sent);
  strictEqual(await store.getOutbound("x"), null);
  deepStrictEqual(ids(await store.listOutbound({ status: "sent", instance: "sales" })), ["a"]);
});

contract("updateOutbound without expectation uses the store clock", async (store) => {
  await store.saveOutbound(outbound("a", 100));
  const next = await store.updateOutbound("a", { lastError: "again" });
  strictEqual(next?.updatedAt, 5000);
  strictEqual((await store.getOutbound("a"))?.lastError, "again");
}, () => 5000);

contract("concurrent compare-and-set: exactly one claim wins", async (store) => {
  await store.saveOutbound(outbound("a", 100));
  const results = await Promise.all(
    Array.from(
      { length: 8 },
      (_, i) => store.updateOutbound("a", { status: "pending", lastError: `run ${i}` }, 100),
    ),
  );
  strictEqual(results.filter((result) => result !== null).length, 1);
  const winner = results.find((result) => result !== null)!;
  deepStrictEqual(await store.getOutbound("a"), winner);
});

contract("rejects records that cannot be indexed, and bad limits", async (store) => {
  await rejects(() => store.saveOutbound(outbound("", 1)), TypeError);
  await rejects(() => store.saveOutbound(outbound("a", Number.NaN)), TypeError);
  await rejects(() => store.saveOutbound(outbound("a", 1, { status: "lost" as "sent" })), {
    name: "TypeError",
    message: 'Cannot save outbound record: unknown status "lost"',
  });
  await rejects(() => store.saveInbound(inbound("m", Number.POSITIVE_INFINITY)), TypeError);
  await rejects(() => store.saveWebhookLog(webhookLog("w", 1, { status: "odd" as "failed" })), TypeError);
  await rejects(() => store.listOutbound({ limit: -1 }), RangeError);
  await rejects(() => store.listWebhookLogs({ limit: 1.5 }), RangeError);
  await store.saveOutbound(outbound("a", 1));
  await rejects(() => store.updateOutbound("a", { status: "gone" as "sent" }), TypeError);
  deepStrictEqual(await store.getOutbound("a"), outbound("a", 1));
});

contract("inbound messages: saved once per instance and id", async (store) => {
  await store.saveInbound(inbound("m1", 100));
  await store.saveInbound(inbound("m1", 200, { text: "redelivered" }));
  await store.saveInbound(inbound("m1", 300, { instance: "support" }));
  deepStrictEqual(await store.getInbound("sales", "m1"), inbound("m1", 100));
  deepStrictEqual(await store.getInbound("support", "m1"), inbound("m1", 300, { instance: "support" }));
  strictEqual(await store.getInbound("sales", "m2"), null);
});

contract("webhook logs: status index, oldest first, status changes", async (store) => {
  await store.saveWebhookLog(webhookLog("w3", 300));
  await store.saveWebhookLog(webhookLog("w1", 100, { status: "failed", error: "boom" }));
  await store.saveWebhookLog(webhookLog("w2", 200, { status: "failed", error: "boom" }));
  await store.saveWebhookLog(webhookLog("w4", 50, { status: "duplicate" }));
  deepStrictEqual(ids(await store.listWebhookLogs()), ["w4", "w1", "w2", "w3"]);
  deepStrictEqual(ids(await store.listWebhookLogs({ status: "failed" })), ["w1", "w2"]);
  deepStrictEqual(ids(await store.listWebhookLogs({ status: "failed", limit: 1 })), ["w1"]);
  await store.saveWebhookLog(
    webhookLog("w1", 100, { status: "processed", processingMs: 12, updatedAt: 400 }),
  );
  deepStrictEqual(ids(await store.listWebhookLogs({ status: "failed" })), ["w2"]);
  deepStrictEqual(ids(await store.listWebhookLogs({ status: "processed" })), ["w1"]);
  deepStrictEqual(
    await store.getWebhookLog("w1"),
    webhookLog("w1", 100, { status: "processed", processingMs: 12, updatedAt: 400 }),
  );
  strictEqual(await store.getWebhookLog("nope"), null);
});

contract("instance snapshots: replace and read", async (store) => {
  await store.saveInstanceSnapshot({
    connection: "default",
    instance: "sales",
    state: "connecting",
    updatedAt: 1,
  });
  await store.saveInstanceSnapshot({
    connection: "default",
    instance: "sales",
    state: "open",
    ownerJid: "5511@s.whatsapp.net",
    updatedAt: 2,
  });
  deepStrictEqual(await store.getInstanceSnapshot("default", "sales"), {
    connection: "default",
    instance: "sales",
    state: "open",
    ownerJid: "5511@s.whatsapp.net",
    updatedAt: 2,
  });
  strictEqual(await store.getInstanceSnapshot("other", "sales"), null);
});

contract("prune: per kind, strictly older, exact counts, dry run deletes nothing", async (store) => {
  for (let i = 0; i < 7; i++) {
    await store.saveOutbound(outbound(`o${i}`, 100 * i, { status: i % 2 === 0 ? "failed" : "sent" }));
  }
  for (let i = 0; i < 5; i++) await store.saveInbound(inbound(`m${i}`, 100 * i));
  for (let i = 0; i < 4; i++) await store.saveWebhookLog(webhookLog(`w${i}`, 100 * i, { status: "failed" }));
  await store.saveInstanceSnapshot({ connection: "default", instance: "old", state: "close", updatedAt: 50 });
  await store.saveInstanceSnapshot({ connection: "default", instance: "new", state: "open", updatedAt: 500 });

  strictEqual(await store.prune("outbound", 300, { dryRun: true }), 3);
  strictEqual((await store.listOutbound()).length, 7);
  strictEqual(await store.prune("outbound", 300), 3); // 0, 100, 200; 300 is not older
  deepStrictEqual(ids(await store.listOutbound()), ["o3", "o4", "o5", "o6"]);
  deepStrictEqual(ids(await store.listOutbound({ status: "failed" })), ["o4", "o6"]);
  deepStrictEqual(ids(await store.listOutbound({ instance: "sales", status: "sent" })), ["o3", "o5"]);
  strictEqual(await store.getOutbound("o0"), null);
  strictEqual(await store.prune("outbound", 300), 0);

  strictEqual(await store.prune("inbound", 250, { dryRun: true }), 3);
  strictEqual(await store.prune("inbound", 250), 3);
  strictEqual(await store.getInbound("sales", "m2"), null);
  ok(await store.getInbound("sales", "m3"));

  strictEqual(await store.prune("webhook_logs", 1000), 4);
  deepStrictEqual(await store.listWebhookLogs({ status: "failed" }), []);

  strictEqual(await store.prune("instances", 100), 1);
  strictEqual(await store.getInstanceSnapshot("default", "old"), null);
  ok(await store.getInstanceSnapshot("default", "new"));
  // Other kinds were left alone.
  strictEqual((await store.listOutbound()).length, 4);
});

contract("prune: instance snapshots age by their last update", async (store) => {
  await store.saveInstanceSnapshot({
    connection: "default",
    instance: "sales",
    state: "close",
    updatedAt: 50,
  });
  await store.saveInstanceSnapshot({
    connection: "default",
    instance: "sales",
    state: "open",
    updatedAt: 150,
  });
  strictEqual(await store.prune("instances", 100), 0);
  strictEqual((await store.getInstanceSnapshot("default", "sales"))?.state, "open");
  strictEqual(await store.prune("instances", 151), 1);
});

contract("prune: many records across batches", async (store) => {
  for (let i = 0; i < 260; i++) await store.saveOutbound(outbound(`r${i}`, i, { status: "sent" }));
  strictEqual(await store.prune("outbound", 250, { dryRun: true }), 250);
  strictEqual(await store.prune("outbound", 250), 250);
  strictEqual((await store.listOutbound()).length, 10);
});

contract("prune: bad arguments are errors", async (store) => {
  await rejects(() => store.prune("outbound", Number.NaN), RangeError);
  await rejects(() => store.prune("everything" as "outbound", 1), {
    name: "TypeError",
    message: 'Cannot prune records: unknown kind "everything"',
  });
});

contract("large bodies round-trip, update and prune", async (store) => {
  const media = "A".repeat(300_000); // base64-like, over one KV value
  const huge = "B".repeat(1_200_000); // over one atomic operation
  const unicode = "é😀".repeat(20_000);
  await store.saveOutbound(outbound("big", 10, { type: "media", body: { number: "1", media } }));
  await store.saveOutbound(outbound("huge", 11, { type: "media", body: { number: "1", media: huge } }));
  await store.saveInbound(inbound("m", 12, { text: unicode, payload: { text: unicode } }));
  strictEqual(((await store.getOutbound("big"))?.body as { media: string }).media, media);
  strictEqual(((await store.getOutbound("huge"))?.body as { media: string }).media, huge);
  deepStrictEqual(
    await store.getInbound("sales", "m"),
    inbound("m", 12, { text: unicode, payload: { text: unicode } }),
  );
  deepStrictEqual(ids(await store.listOutbound({ status: "failed" })), ["big", "huge"]);
  const updated = await store.updateOutbound("huge", { status: "sent", messageId: "X" }, 11);
  strictEqual(updated?.status, "sent");
  strictEqual(((await store.getOutbound("huge"))?.body as { media: string }).media, huge);
  await store.updateOutbound("big", { body: { number: "1", text: "small now" } });
  deepStrictEqual((await store.getOutbound("big"))?.body, { number: "1", text: "small now" });
  strictEqual(await store.prune("outbound", 100), 2);
  strictEqual(await store.prune("inbound", 100), 1);
  strictEqual(await store.getOutbound("huge"), null);
});
