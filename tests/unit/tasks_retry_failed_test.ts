import { deepStrictEqual, rejects, strictEqual } from "node:assert/strict";
import { ConnectionException, MessageException, ValidationException } from "../../src/errors.ts";
import { MessageSent } from "../../src/events.ts";
import { MemoryStore } from "../../src/backends/memory/store.ts";
import { IdempotencyClaims, sendFingerprint } from "../../src/store/idempotency.ts";
import { GatewayService } from "../../src/service.ts";
import { GatewaySimulator } from "../../src/testing/mod.ts";
import type { GatewayStore } from "../../src/store/store.ts";
import { retryFailedMessages } from "../../src/tasks/retry_failed.ts";
import {
  DAY,
  deferred,
  FakeService,
  NOW,
  outbound,
  overriding,
  serverMessage,
  STORES,
} from "../fixtures/tasks_fixtures.ts";

const now = () => NOW;

for (const harness of STORES) {
  const test = (name: string, body: (store: GatewayStore) => Promise<void>) =>
    Deno.test(`retryFailedMessages (${harness.name}): ${name}`, async () => {
      const { store, close } = await harness.open();
      try {
        await body(store);
      } finally {
        await close();
      }
    });

  test("resends eligible failed records oldest first and marks them sent", async (store) => {
    await store.saveOutbound(outbound("d", 400, { retryCount: 1 }));
    await store.saveOutbound(outbound("c", 300, { retryCount: 3 }));
    await store.saveOutbound(outbound("b", 200, { outcomeUnknown: true }));
    await store.saveOutbound(outbound("a", 100));
    await store.saveOutbound(outbound("e", 50, { status: "sent" }));
    // Still claimed by a live sender: left alone.
    await store.saveOutbound(outbound("f", 60, { status: "pending", claimedUntil: NOW + 60_000 }));
    const service = new FakeService();
    // b's first attempt did reach the server: it is found there and never resent.
    service.delivered.push(serverMessage("hello b", "WA-b"));
    const events: MessageSent[] = [];
    service.events.addEventListener(MessageSent.type, (event) => events.push(event as MessageSent));

    const result = await retryFailedMessages({ service, store, now });

    deepStrictEqual(result, {
      attempted: 2,
      sent: 2,
      failed: 0,
      reconciled: 1,
      skipped: 1,
      dryRun: false,
      results: [
        { id: "a", status: "sent", messageId: "WA-hello a", retryCount: 1 },
        { id: "b", status: "reconciled", messageId: "WA-b", retryCount: 0 },
        { id: "c", status: "skipped", reason: "max_retries", retryCount: 3 },
        { id: "d", status: "sent", messageId: "WA-hello d", retryCount: 2 },
      ],
    });
    deepStrictEqual(service.requests, [
      {
        method: "POST",
        route: "/message/sendText/{instance}",
        options: {
          body: { number: "5511999999999", text: "hello a" },
          instance: "sales",
          connection: "default",
          idempotent: false,
          bucket: "messages",
          signal: undefined,
        },
      },
      {
        method: "POST",
        route: "/message/sendText/{instance}",
        options: {
          body: { number: "5511999999999", text: "hello d" },
          instance: "sales",
          connection: "default",
          idempotent: false,
          bucket: "messages",
          signal: undefined,
        },
      },
    ]);
    deepStrictEqual(
      await store.getOutbound("a"),
      outbound("a", 100, { status: "sent", retryCount: 1, messageId: "WA-hello a", updatedAt: NOW + 1 }),
    );
    strictEqual((await store.getOutbound("d"))?.retryCount, 2);
    const { lastError: _, ...b } = outbound("b", 200, { status: "sent", messageId: "WA-b", updatedAt: NOW });
    deepStrictEqual(await store.getOutbound("b"), b);
    strictEqual((await store.getOutbound("f"))?.status, "pending");
    deepStrictEqual(await store.getOutbound("c"), outbound("c", 300, { retryCount: 3 }));
    deepStrictEqual(events.map((event) => [event.messageId, event.to, event.messageType, event.instance]), [
      ["WA-hello a", "5511999999999", "text", "sales"],
      ["WA-hello d", "5511999999999", "text", "sales"],
    ]);
    deepStrictEqual(service.counted, ["text", "text"]);

    // Nothing left to resend: a second run only reports the skipped ones.
    const again = await retryFailedMessages({ service, store, now });
    deepStrictEqual([again.attempted, again.skipped, service.requests.length], [0, 1, 2]);
  });

  test("a failed resend is recorded; an unknown outcome is skipped until it can be looked up", async (store) => {
    await store.saveOutbound(outbound("a", 100));
    await store.saveOutbound(outbound("b", 200));
    const service = new FakeService((request) => {
      const text = (request.options.body as { text: string }).text;
      return Promise.reject(
        text === "hello a"
          ? new ConnectionException("Cannot reach gateway: timed out", {
            reason: "timeout",
            outcomeUnknown: true,
          })
          : new MessageException("Cannot send: instance is not connected", { reason: "not_connected" }),
      );
    });
    const result = await retryFailedMessages({ service, store, now });
    deepStrictEqual(result.results, [
      { id: "a", status: "failed", error: "Cannot reach gateway: timed out", retryCount: 1 },
      { id: "b", status: "failed", error: "Cannot send: instance is not connected", retryCount: 1 },
    ]);
    deepStrictEqual([result.attempted, result.sent, result.failed, result.skipped], [2, 0, 2, 0]);
    deepStrictEqual(
      await store.getOutbound("a"),
      outbound("a", 100, {
        retryCount: 1,
        outcomeUnknown: true,
        lastError: "Cannot reach gateway: timed out",
        updatedAt: NOW + 1,
      }),
    );
    strictEqual((await store.getOutbound("b"))?.outcomeUnknown, false);

    const second = await retryFailedMessages({ service, store, now });
    deepStrictEqual(second.results.map((r) => [r.id, r.status, r.reason]), [
      ["a", "skipped", "outcome_unknown"],
      ["b", "failed", undefined],
    ]);

    // Once its last attempt is a minute old, it is looked up: not on the server, so it is resent.
    const later = () => NOW + 120_000;
    service.answer = () => Promise.reject(new ValidationException("Gateway rejected the request"));
    const third = await retryFailedMessages({ service, store, now: later });
    deepStrictEqual(third.results.map((r) => [r.id, r.status, r.retryCount]), [["a", "failed", 2], [
      "b",
      "failed",
      3,
    ]]);
    // By the recipient's JID first, then over every message of the window (another form of the number).
    deepStrictEqual(service.lookups.map((r) => [r.route, r.options.body, r.options.idempotent]), [
      ["/chat/findMessages/{instance}", {
        where: {
          key: { fromMe: true, remoteJid: "5511999999999@s.whatsapp.net" },
          messageTimestamp: {
            gte: new Date(100 - 300_000).toISOString(),
            lte: new Date(NOW + 1 + 300_000).toISOString(),
          },
        },
        page: 1,
        offset: 50,
      }, true],
      ["/chat/findMessages/{instance}", {
        where: {
          key: { fromMe: true },
          messageTimestamp: {
            gte: new Date(100 - 300_000).toISOString(),
            lte: new Date(NOW + 1 + 300_000).toISOString(),
          },
        },
        page: 1,
        offset: 50,
      }, true],
    ]);
    strictEqual((await store.getOutbound("a"))?.outcomeUnknown, false);
    strictEqual((await store.getOutbound("a"))?.lastError, "Gateway rejected the request");

    // A rejected request cannot succeed as it is: both are now permanent and not resent again.
    strictEqual((await store.getOutbound("b"))?.permanent, true);
    const fourth = await retryFailedMessages({ service, store, now: later, maxRetries: 10 });
    deepStrictEqual(fourth.results.map((r) => [r.id, r.status, r.reason]), [
      ["a", "skipped", "permanent"],
      ["b", "skipped", "permanent"],
    ]);
  });

  test("limit counts resends only, and paging goes past a backlog of exhausted records", async (store) => {
    for (let i = 0; i < 150; i++) {
      await store.saveOutbound(outbound(`x${String(i).padStart(3, "0")}`, i, { retryCount: 3 }));
    }
    for (let i = 0; i < 4; i++) await store.saveOutbound(outbound(`y${i}`, 1000 + i));
    const service = new FakeService();
    const result = await retryFailedMessages({ service, store, now, limit: 3 });
    deepStrictEqual([result.attempted, result.sent, result.skipped], [3, 3, 150]);
    deepStrictEqual(service.requests.map((r) => (r.options.body as { text: string }).text), [
      "hello y0",
      "hello y1",
      "hello y2",
    ]);
    strictEqual((await store.getOutbound("y3"))?.status, "failed");
  });

  test("dry run claims and sends nothing", async (store) => {
    await store.saveOutbound(outbound("a", 100));
    await store.saveOutbound(outbound("b", 200, { outcomeUnknown: true }));
    const service = new FakeService();
    const result = await retryFailedMessages({ service, store, now, dryRun: true });
    deepStrictEqual(result, {
      attempted: 1,
      sent: 0,
      failed: 0,
      reconciled: 0,
      skipped: 1,
      dryRun: true,
      results: [
        { id: "a", status: "would_retry", retryCount: 0 },
        { id: "b", status: "skipped", reason: "outcome_unknown", retryCount: 0 },
      ],
    });
    strictEqual(service.requests.length, 0);
    deepStrictEqual(await store.getOutbound("a"), outbound("a", 100));
  });

  test("instance filter, media bucket, abort signal and progress callback", async (store) => {
    await store.saveOutbound(outbound("a", 100, { instance: "support" }));
    await store.saveOutbound(
      outbound("m", 200, {
        type: "media",
        route: "/message/sendMedia/{instance}",
        body: { number: "1", mediatype: "image", media: "https://example.com/a.png", text: "m" },
      }),
    );
    await store.saveOutbound(outbound("b", 300));
    const service = new FakeService();
    const progress: string[] = [];
    const result = await retryFailedMessages({
      service,
      store,
      now,
      instance: "sales",
      onResult: (entry) => progress.push(`${entry.id}:${entry.status}`),
    });
    deepStrictEqual(progress, ["m:sent", "b:sent"]);
    deepStrictEqual(service.requests.map((r) => [r.route, r.options.bucket]), [
      ["/message/sendMedia/{instance}", "media"],
      ["/message/sendText/{instance}", "messages"],
    ]);
    strictEqual(result.attempted, 2);

    const controller = new AbortController();
    controller.abort();
    const aborted = await retryFailedMessages({ service, store, now, signal: controller.signal });
    deepStrictEqual([aborted.attempted, aborted.results.length], [0, 0]);
    strictEqual((await store.getOutbound("a"))?.status, "failed");
  });

  test("two concurrent runs never resend the same record", async (store) => {
    for (let i = 0; i < 30; i++) await store.saveOutbound(outbound(`r${String(i).padStart(2, "0")}`, i));
    const service = new FakeService();
    const [first, second] = await Promise.all([
      retryFailedMessages({ service, store, now }),
      retryFailedMessages({ service, store, now }),
    ]);
    const texts = service.requests.map((r) => (r.options.body as { text: string }).text);
    strictEqual(texts.length, 30);
    strictEqual(new Set(texts).size, 30);
    strictEqual(first.sent + second.sent, 30);
    strictEqual(first.attempted + second.attempted, 30);
    const sent = await store.listOutbound({ status: "sent" });
    strictEqual(sent.length, 30);
    strictEqual(sent.every((record) => record.retryCount === 1), true);
  });

  test("two runs that listed the same records: each record is claimed by exactly one", async (store) => {
    for (let i = 0; i < 12; i++) await store.saveOutbound(outbound(`r${String(i).padStart(2, "0")}`, i));
    // Both runs read the first page before either claims anything.
    const bothListed = deferred();
    let listings = 0;
    const listing = overriding(store, {
      listOutbound: async (query) => {
        const page = await store.listOutbound(query);
        if (++listings === 2) bothListed.resolve();
        await bothListed.promise;
        return page;
      },
    });
    const service = new FakeService();
    const runs = await Promise.all([
      retryFailedMessages({ service, store: listing, now }),
      retryFailedMessages({ service, store: listing, now }),
    ]);
    const texts = service.requests.map((r) => (r.options.body as { text: string }).text);
    deepStrictEqual([texts.length, new Set(texts).size], [12, 12]);
    deepStrictEqual(runs[0].sent + runs[1].sent, 12);
    const lost = [...runs[0].results, ...runs[1].results].filter((r) => r.reason === "claimed_elsewhere");
    strictEqual(lost.length, 12);
    strictEqual((await store.listOutbound({ status: "sent" })).length, 12);
  });

  test("a run that overlaps an in-flight resend leaves the claimed record alone", async (store) => {
    await store.saveOutbound(outbound("a", 100));
    const gate = deferred();
    const started = deferred();
    const service = new FakeService(async (request) => {
      started.resolve();
      await gate.promise;
      return { data: { key: { id: `WA-${(request.options.body as { text: string }).text}` } } };
    });
    const slow = retryFailedMessages({ service, store, now });
    // The slow run has claimed the record and is in its request.
    await started.promise;
    const overlapping = await retryFailedMessages({ service, store, now });
    deepStrictEqual([overlapping.attempted, overlapping.results.length], [0, 0]);
    strictEqual((await store.getOutbound("a"))?.status, "pending");
    gate.resolve();
    deepStrictEqual((await slow).results, [{
      id: "a",
      status: "sent",
      messageId: "WA-hello a",
      retryCount: 1,
    }]);
    strictEqual(service.requests.length, 1);
  });
}

Deno.test("retryFailedMessages: a store failure after the send does not hide the send, nor allow a resend", async () => {
  const memory = new MemoryStore({ now });
  const store = overriding(memory, {
    updateOutbound: (id, changes, expected) =>
      changes.status === "sent"
        ? Promise.reject(new Error("KV is down"))
        : memory.updateOutbound(id, changes, expected),
  });
  await memory.saveOutbound(outbound("a", 100));
  const service = new FakeService();
  const result = await retryFailedMessages({ service, store, now });
  deepStrictEqual(result.results, [{ id: "a", status: "sent", messageId: "WA-hello a", retryCount: 1 }]);
  strictEqual((await memory.getOutbound("a"))?.status, "pending");
  strictEqual((await retryFailedMessages({ service, store, now })).attempted, 0);
  strictEqual(service.requests.length, 1);
});

Deno.test("retryFailedMessages: bad maxRetries or limit is an error", async () => {
  const store = new MemoryStore();
  const service = new FakeService();
  await rejects(() => retryFailedMessages({ service, store, maxRetries: -1 }), {
    name: "ConfigurationException",
    message: 'Cannot retry failed messages: "maxRetries" must be a non-negative integer, got "-1"',
  });
  await rejects(() => retryFailedMessages({ service, store, limit: 1.5 }), {
    name: "ConfigurationException",
    message: 'Cannot retry failed messages: "limit" must be a non-negative integer, got "1.5"',
  });
  deepStrictEqual((await retryFailedMessages({ service, store, limit: 0 })).attempted, 0);
});

for (const refused of [false, true]) {
  const first = refused ? "refused by the server" : "delivered";
  Deno.test(`retryFailedMessages: a keyed resend (${first}) stopped before any of its steps is finished by one later run, sent once`, async () => {
    // The steps of one keyed resend: every write to the record or the key, and the send. A run "dies"
    // before step `stopAt`: from then on nothing it writes or sends happens.
    const steps: string[] = [];
    for (let stopAt = 0; stopAt <= 6; stopAt++) {
      const memory = new MemoryStore({ now });
      await memory.saveOutbound(outbound("a", 100, { idempotencyKey: "order-7" }));
      let taken = 0;
      let recovering = false;
      const step = (what: string) => {
        if (recovering) return;
        if (taken++ >= stopAt) throw new Error("stopped");
        if (stopAt === 6) steps.push(what);
      };
      const state = overriding(memory.state, {
        set: (
          namespace,
          key,
          value,
          options,
        ) => (step("key"), memory.state.set(namespace, key, value, options)),
      });
      const store = overriding(memory, {
        state,
        updateOutbound: (
          id,
          changes,
          expected,
        ) => (step("record"), memory.updateOutbound(id, changes, expected)),
      });
      const service = new FakeService((request) => {
        step("send");
        if (refused && !recovering) {
          return Promise.reject(
            new MessageException("Cannot send: instance is not connected", { reason: "not_connected" }),
          );
        }
        const text = (request.options.body as { text: string }).text;
        service.delivered.push(serverMessage(text, `WA-${stopAt}`));
        return Promise.resolve({ data: { key: { id: `WA-${stopAt}` } } });
      });
      await retryFailedMessages({ service, store, now }).catch(() => {});
      recovering = true;

      // Recovery an hour later, on what the stopped run left: claims have ended.
      const later = () => NOW + 3_600_000;
      const recovery = await retryFailedMessages({
        service,
        store: memory,
        now: later,
        reconcileMinAgeMs: 0,
      });
      const record = await memory.getOutbound("a");
      strictEqual(service.delivered.length, 1, `stopped before step ${stopAt}: ${JSON.stringify(recovery)}`);
      deepStrictEqual([record?.status, record?.messageId, record?.claimedUntil], [
        "sent",
        `WA-${stopAt}`,
        undefined,
      ]);
      // A later call with the key replays that message.
      const claims = new IdempotencyClaims(memory.state, { now: later });
      const key = await claims.read({ connection: "default", instance: "sales", key: "order-7" });
      deepStrictEqual([key?.value.state, key?.value.messageId], ["done", `WA-${stopAt}`]);
    }
    // The sweep covered every step of a whole resend: claim, key, send, then the key and the record.
    deepStrictEqual(steps, ["record", "key", "send", "key", "record"]);
  });
}

Deno.test("retryFailedMessages: a key a caller's own send left unknown is never taken over by the resend of its record", async () => {
  // The caller's second call with the key delivered but its record could not be written (the store is a
  // record of sends, not a gate), so the record still reads "failed, not unknown" while the key is unknown.
  const clock = { now: NOW };
  const later = () => clock.now;
  const memory = new MemoryStore({ now: later });
  let storeDown = false;
  const down = () => Promise.reject(new Error("store unavailable"));
  const store = overriding(memory, {
    updateOutbound: (id, changes, expected) =>
      storeDown ? down() : memory.updateOutbound(id, changes, expected),
    saveOutbound: (record) => storeDown ? down() : memory.saveOutbound(record),
  });
  const simulator = new GatewaySimulator({ now: later, serverUrl: "http://gateway.test" });
  simulator.addInstance("sales", { open: true });
  const answers: ("refuse" | "deliver, then 500")[] = ["refuse", "deliver, then 500"];
  const error = (status: number) =>
    Response.json({ status, error: "x", response: { message: ["boom"] } }, { status });
  const gateway = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    if (!new URL(request.url).pathname.startsWith("/message/")) return await simulator.handle(request);
    const answer = answers.shift();
    if (answer === "refuse") return error(503);
    const delivered = await simulator.handle(request);
    return answer === undefined ? delivered : error(500);
  };
  const service = new GatewayService({
    server_url: "http://gateway.test",
    api_key: simulator.apiKey,
    instance: "sales",
    rate_limiting: { enabled: false },
    retry: { max_retries: 0 },
    store,
  }, { fetch: gateway, now: later, sleep: (ms) => (clock.now += ms, Promise.resolve()) });
  try {
    await rejects(service.messages().text("5511999999999", "pay 10", {}, { idempotencyKey: "pay-1" }));
    const [record] = await memory.listOutbound();
    storeDown = true;
    await rejects(service.messages().text("5511999999999", "pay 10", {}, { idempotencyKey: "pay-1" }), {
      name: "ConnectionException",
    });
    storeDown = false;
    deepStrictEqual([record.status, record.outcomeUnknown, simulator.sentMessages.length], [
      "failed",
      false,
      1,
    ]);

    clock.now += 120_000;
    const run = await retryFailedMessages({ service, store: memory, now: later });
    deepStrictEqual(run.results, [{
      id: record.id,
      status: "skipped",
      reason: "outcome_unknown",
      retryCount: 0,
    }]);
    strictEqual(simulator.sentMessages.length, 1);
    // The next run looks it up on the server, finds the caller's message and settles record and key.
    clock.now += 120_000;
    const next = await retryFailedMessages({ service, store: memory, now: later });
    strictEqual(next.reconciled, 1);
    strictEqual(simulator.sentMessages.length, 1);
    strictEqual((await memory.getOutbound(record.id))?.status, "sent");
  } finally {
    await simulator.close();
  }
});

Deno.test("retryFailedMessages: a record whose key was reused for another body is skipped untouched, and the run goes on", async () => {
  const memory = new MemoryStore({ now });
  const record = outbound("a", NOW - 2 * DAY, { idempotencyKey: "k" });
  await memory.saveOutbound(record);
  await memory.saveOutbound(outbound("b", NOW - DAY));
  // After the key's window, the key was used for another text.
  const claims = new IdempotencyClaims(memory.state, { now });
  const scope = { connection: "default", instance: "sales", key: "k" };
  const other = await claims.acquire(scope, {
    fingerprint: sendFingerprint(record.route, { number: "5511999999999", text: "other" }),
    recordId: "c",
    claimedUntil: NOW + 1000,
  });
  if (other.kind !== "owner") throw new Error(other.kind);
  await claims.settle(scope, other.version, { state: "done", response: { status: 201, body: {} } });
  const service = new FakeService();
  const run = await retryFailedMessages({ service, store: memory, now });
  deepStrictEqual(run.results, [
    {
      id: "a",
      status: "skipped",
      reason: "key_reused",
      error: 'Cannot send with idempotency key "k": it was used for a different request within its window',
      retryCount: 0,
    },
    { id: "b", status: "sent", messageId: "WA-hello b", retryCount: 1 },
  ]);
  const after = await memory.getOutbound("a");
  deepStrictEqual([after?.status, after?.retryCount, after?.claimedUntil, after?.outcomeUnknown], [
    "failed",
    0,
    undefined,
    false,
  ]);
  deepStrictEqual(service.requests.map((r) => (r.options.body as { text: string }).text), ["hello b"]);
});

Deno.test("retryFailedMessages: a record whose key holds its send is settled from the key, even at its retry limit and unseen by the lookup", async () => {
  // A resend settled its key `done`, then its run died before writing the record: the record is left
  // pending at its last retry, and this server keeps no sent messages (the lookup finds nothing).
  const memory = new MemoryStore({ now });
  const claims = new IdempotencyClaims(memory.state, { now });
  const scope = { connection: "default", instance: "sales", key: "order-9" };
  const record = outbound("a", NOW - DAY, {
    idempotencyKey: "order-9",
    status: "pending",
    retryCount: 1,
    claimedUntil: NOW - 1000,
  });
  await memory.saveOutbound(record);
  const taken = await claims.acquire(scope, {
    fingerprint: sendFingerprint(record.route, record.body),
    recordId: "a",
    claimedUntil: NOW - 1000,
  });
  if (taken.kind !== "owner") throw new Error(taken.kind);
  await claims.settle(scope, taken.version, {
    state: "done",
    response: { status: 201, body: { key: { id: "WA-1" } } },
    messageId: "WA-1",
  });
  const service = new FakeService();
  const run = await retryFailedMessages({ service, store: memory, now, maxRetries: 1 });
  deepStrictEqual(run.results, [{ id: "a", status: "reconciled", messageId: "WA-1", retryCount: 1 }]);
  const after = await memory.getOutbound("a");
  deepStrictEqual([after?.status, after?.messageId, after?.outcomeUnknown], ["sent", "WA-1", false]);
  deepStrictEqual([service.requests.length, service.lookups.length], [0, 0]);
});
