import { deepStrictEqual, ok, rejects, strictEqual } from "node:assert/strict";
import {
  ConnectionException,
  GatewayService,
  type GatewayStore,
  KvState,
  MemoryState,
  MemoryStore,
  MessageSent,
  OutcomeUnknownException,
  type StateStore,
  ValidationException,
} from "../../mod.ts";
import { reconcileSends, retryFailedMessages } from "../../src/tasks/mod.ts";
import { IdempotencyClaims, sendFingerprint } from "../../src/store/idempotency.ts";
import { GatewaySimulator } from "../../src/testing/mod.ts";
import { deferred } from "../fixtures/tasks_fixtures.ts";

const NOW = 1_800_000_000_000;
const TO = "5511999999999";

/** What the scripted server does with the next send. */
type Step = "ok" | "500_after_send" | "500_before_send" | "503";

function errorAnswer(status: number): Response {
  return Response.json({ status, error: "Server Error", response: { message: ["boom"] } }, { status });
}

/** A service over the simulator with an injected clock and sleep, and a script of send failures. */
function harness(options: {
  store?: GatewayStore;
  windowMs?: number;
  deadlineMs?: number;
  sleep?: (ms: number) => Promise<void>;
  beforeSend?: () => Promise<void>;
} = {}) {
  const clock = { now: NOW };
  const now = () => clock.now;
  const simulator = new GatewaySimulator({ now, serverUrl: "http://gateway.test" });
  simulator.addInstance("sales", { open: true });
  const script: Step[] = [];
  const sleeps: number[] = [];
  let sendAttempts = 0;
  const fetcher = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    if (!new URL(request.url).pathname.startsWith("/message/")) return await simulator.handle(request);
    sendAttempts++;
    await options.beforeSend?.();
    const step = script.shift() ?? "ok";
    if (step === "503") return errorAnswer(503);
    if (step === "500_before_send") return errorAnswer(500);
    const answer = await simulator.handle(request);
    return step === "500_after_send" ? errorAnswer(500) : answer;
  };
  const service = new GatewayService({
    server_url: "http://gateway.test",
    api_key: simulator.apiKey,
    instance: "sales",
    rate_limiting: { enabled: false },
    retry: { max_retries: 0, idempotency_window_ms: options.windowMs },
    http: { deadline_ms: options.deadlineMs },
    store: options.store,
  }, {
    fetch: fetcher,
    now,
    sleep: options.sleep ?? ((ms) => {
      sleeps.push(ms);
      clock.now += ms;
      return Promise.resolve();
    }),
  });
  /** Send requests that left the client (scripted failures included). */
  const sendRequests = () => sendAttempts;
  return { service, simulator, clock, now, script, sleeps, sendRequests };
}

Deno.test("idempotent send: a later call replays the first answer without a request", async () => {
  const store = new MemoryStore({ now: () => NOW });
  const { service, simulator, sendRequests } = harness({ store });
  const events: MessageSent[] = [];
  service.events.addEventListener(MessageSent.type, (event) => events.push(event as MessageSent));
  try {
    const first = await service.messages().text(TO, "order 42 shipped", {}, { idempotencyKey: "order-42" });
    const second = await service.messages().text(TO, "order 42 shipped", {}, { idempotencyKey: "order-42" });
    strictEqual(first.replayed, false);
    strictEqual(second.replayed, true);
    strictEqual(second.status, 201);
    strictEqual(second.headers.get("idempotent-replayed"), "true");
    strictEqual(second.attempts, 0);
    deepStrictEqual(second.data, first.data);
    strictEqual(second.json("key.id"), first.json("key.id"));
    strictEqual(sendRequests(), 1);
    strictEqual(simulator.sentMessages.length, 1);
    // One send, one record, one event: the replay announces nothing.
    const records = await store.listOutbound();
    deepStrictEqual(records.map((r) => [r.status, r.idempotencyKey, r.messageId]), [
      ["sent", "order-42", first.json("key.id")],
    ]);
    strictEqual(events.length, 1);
    // The same key on another instance is another send.
    await service.messages().text(TO, "order 42 shipped", {}, {
      idempotencyKey: "order-42",
      instance: "other",
    })
      .catch(() => {});
    strictEqual(sendRequests(), 2);
  } finally {
    await simulator.close();
  }
});

Deno.test("idempotent send: 20 concurrent calls in one process without a store send once", async () => {
  const sleeping = deferred();
  const released = deferred();
  let waiters = 0;
  const { service, simulator, sendRequests } = harness({
    // Every caller but the owner waits here until the owner's call has finished.
    sleep: () => {
      if (++waiters === 19) sleeping.resolve();
      return released.promise;
    },
    // The owner's request goes out only once the 19 others are waiting on its claim.
    beforeSend: () => sleeping.promise,
  });
  try {
    const calls = Array.from(
      { length: 20 },
      () => service.messages().text(TO, "once", {}, { idempotencyKey: "k-20" }),
    );
    await Promise.race(calls);
    released.resolve();
    const answers = await Promise.all(calls);
    strictEqual(sendRequests(), 1);
    strictEqual(new Set(answers.map((a) => a.json("key.id"))).size, 1);
    deepStrictEqual(answers.map((a) => a.replayed).filter((replayed) => !replayed).length, 1);
  } finally {
    await simulator.close();
  }
});

Deno.test("idempotent send: after an unknown outcome later calls are refused without a request until reconciled", async () => {
  const store = new MemoryStore({ now: () => NOW });
  const { service, simulator, clock, now, script, sendRequests } = harness({ store });
  try {
    script.push("500_after_send");
    const first = await rejects(
      service.messages().text(TO, "pay 10", {}, { idempotencyKey: "pay-1" }),
      (error) => {
        ok(error instanceof ConnectionException && error.outcomeUnknown);
        return true;
      },
    );
    strictEqual(first, undefined);
    const [record] = await store.listOutbound();
    deepStrictEqual([record.status, record.outcomeUnknown, record.idempotencyKey], ["failed", true, "pay-1"]);
    await rejects(service.messages().text(TO, "pay 10", {}, { idempotencyKey: "pay-1" }), (error) => {
      ok(error instanceof OutcomeUnknownException);
      strictEqual(error.recordId, record.id);
      strictEqual(error.inFlight, false);
      strictEqual(error.outcomeUnknown, true);
      strictEqual(
        error.message,
        `Cannot send with idempotency key "pay-1": an earlier send with this key has an unknown outcome (record "${record.id}"); reconcile it first`,
      );
      return true;
    });
    strictEqual(sendRequests(), 1);

    // Reconciled: the server has it, so the key replays the real message.
    clock.now += 120_000;
    const settled = await reconcileSends({ service, store, now });
    deepStrictEqual([settled.sent, settled.notSent], [1, 0]);
    const delivered = simulator.sentMessages[0].message as { key: { id: string } };
    strictEqual((await store.getOutbound(record.id))?.messageId, delivered.key.id);
    const replay = await service.messages().text(TO, "pay 10", {}, { idempotencyKey: "pay-1" });
    strictEqual(replay.replayed, true);
    strictEqual(replay.json("key.id"), delivered.key.id);
    strictEqual(sendRequests(), 1);
  } finally {
    await simulator.close();
  }
});

Deno.test("idempotent send: the 500-then-503 sequence never sends twice, through retryFailedMessages too", async () => {
  const store = new MemoryStore({ now: () => NOW });
  const { service, simulator, clock, now, script } = harness({ store });
  try {
    // The first call's body reached the server, which sent it and then failed (500); the caller retries
    // with the same key and the server would answer 503.
    script.push("500_after_send", "503");
    await rejects(
      service.messages().text(TO, "refund", {}, { idempotencyKey: "refund-7" }),
      ConnectionException,
    );
    await rejects(
      service.messages().text(TO, "refund", {}, { idempotencyKey: "refund-7" }),
      OutcomeUnknownException,
    );
    // The retry never reached the server: the scripted 503 is still unused.
    deepStrictEqual(script, ["503"]);
    const [record] = await store.listOutbound();
    deepStrictEqual([record.status, record.outcomeUnknown, record.retryCount], ["failed", true, 0]);

    clock.now += 120_000;
    const retried = await retryFailedMessages({ service, store, now });
    deepStrictEqual(retried.results.map((r) => [r.status, r.messageId]), [[
      "reconciled",
      (simulator.sentMessages[0].message as { key: { id: string } }).key.id,
    ]]);
    const again = await retryFailedMessages({ service, store, now });
    strictEqual(again.results.length, 0);
    strictEqual(simulator.sentMessages.length, 1);
    strictEqual(
      (await service.messages().text(TO, "refund", {}, { idempotencyKey: "refund-7" })).replayed,
      true,
    );
    strictEqual(simulator.sentMessages.length, 1);
  } finally {
    await simulator.close();
  }
});

Deno.test("idempotent send: a 500 before anything was sent is found missing and resent exactly once", async () => {
  const store = new MemoryStore({ now: () => NOW });
  const { service, simulator, clock, now, script } = harness({ store });
  try {
    script.push("500_before_send");
    await rejects(service.messages().text(TO, "hello", {}, { idempotencyKey: "h-1" }), ConnectionException);
    await rejects(
      service.messages().text(TO, "hello", {}, { idempotencyKey: "h-1" }),
      OutcomeUnknownException,
    );
    clock.now += 120_000;
    const retried = await retryFailedMessages({ service, store, now });
    deepStrictEqual(retried.results.map((r) => r.status), ["sent"]);
    strictEqual(simulator.sentMessages.length, 1);
    // The key now replays the resend's answer; the record is the same one.
    const replay = await service.messages().text(TO, "hello", {}, { idempotencyKey: "h-1" });
    strictEqual(replay.replayed, true);
    strictEqual(replay.json("key.id"), retried.results[0].messageId);
    strictEqual((await store.listOutbound()).length, 1);
    strictEqual(simulator.sentMessages.length, 1);
  } finally {
    await simulator.close();
  }
});

Deno.test("idempotent send: a failure before sending releases the key; the next call sends and keeps one record", async () => {
  const store = new MemoryStore({ now: () => NOW });
  const { service, simulator, script, sendRequests } = harness({ store });
  try {
    script.push("503");
    await rejects(service.messages().text(TO, "retry me", {}, { idempotencyKey: "r-1" }), (error) => {
      ok(error instanceof ConnectionException && !error.outcomeUnknown);
      return true;
    });
    const sent = await service.messages().text(TO, "retry me", {}, { idempotencyKey: "r-1" });
    strictEqual(sent.replayed, false);
    strictEqual(sendRequests(), 2);
    strictEqual(simulator.sentMessages.length, 1);
    const records = await store.listOutbound();
    deepStrictEqual(records.map((r) => [r.status, r.idempotencyKey, r.messageId, r.lastError]), [
      ["sent", "r-1", sent.json("key.id"), undefined],
    ]);
    // Nothing left for the retry task to resend.
    strictEqual((await retryFailedMessages({ service, store })).attempted, 0);
  } finally {
    await simulator.close();
  }
});

Deno.test("idempotent send: a call while another holds the key waits, bounded by its own deadline", async () => {
  const store = new MemoryStore({ now: () => NOW });
  const state = store.state;
  const { service, simulator, sleeps, sendRequests } = harness({ store, deadlineMs: 1_000 });
  try {
    // Another process holds the key for a long send.
    const other = new IdempotencyClaims(state, { now: () => NOW });
    const body = { number: TO, text: "slow" };
    await other.acquire({ connection: "default", instance: "sales", key: "slow-1" }, {
      fingerprint: sendFingerprint("/message/sendText/{instance}", body),
      recordId: "elsewhere",
      claimedUntil: NOW + 600_000,
    });
    await rejects(service.messages().text(TO, "slow", {}, { idempotencyKey: "slow-1" }), (error) => {
      ok(error instanceof OutcomeUnknownException);
      strictEqual(error.inFlight, true);
      strictEqual(error.recordId, "elsewhere");
      return true;
    });
    // Polled with a growing interval, never past its own deadline, and nothing was sent.
    deepStrictEqual(sleeps, [20, 40, 80, 160, 250, 250, 200]);
    strictEqual(sendRequests(), 0);
  } finally {
    await simulator.close();
  }
});

Deno.test("idempotent send: a holder past its claimedUntil died mid-send: its outcome is unknown", async () => {
  const store = new MemoryStore({ now: () => NOW });
  const state = store.state;
  const { service, simulator, clock, sendRequests } = harness({ store });
  try {
    await new IdempotencyClaims(state, { now: () => clock.now }).acquire(
      { connection: "default", instance: "sales", key: "dead-1" },
      {
        fingerprint: sendFingerprint("/message/sendText/{instance}", { number: TO, text: "x" }),
        recordId: "r-dead",
        claimedUntil: NOW + 10,
      },
    );
    clock.now += 11;
    await rejects(service.messages().text(TO, "x", {}, { idempotencyKey: "dead-1" }), (error) => {
      ok(error instanceof OutcomeUnknownException);
      strictEqual(error.inFlight, false);
      return true;
    });
    strictEqual(sendRequests(), 0);
  } finally {
    await simulator.close();
  }
});

Deno.test("idempotent send: the key holds for its window, then sends again", async () => {
  const { service, simulator, clock, sendRequests } = harness({ windowMs: 60_000 });
  try {
    await service.messages().text(TO, "daily", {}, { idempotencyKey: "day-1" });
    clock.now += 59_999;
    strictEqual((await service.messages().text(TO, "daily", {}, { idempotencyKey: "day-1" })).replayed, true);
    clock.now += 1;
    strictEqual(
      (await service.messages().text(TO, "daily", {}, { idempotencyKey: "day-1" })).replayed,
      false,
    );
    strictEqual(sendRequests(), 2);
  } finally {
    await simulator.close();
  }
});

Deno.test("idempotent send: bad keys and a key reused for another request are refused before any request", async () => {
  const { service, simulator, sendRequests } = harness();
  try {
    await service.messages().text(TO, "first", {}, { idempotencyKey: "same" });
    await rejects(service.messages().text(TO, "second", {}, { idempotencyKey: "same" }), {
      name: "ValidationException",
      message:
        'Cannot send with idempotency key "same": it was used for a different request within its window',
    });
    await rejects(service.messages().text(TO, "x", {}, { idempotencyKey: "" }), ValidationException);
    await rejects(
      service.messages().text(TO, "x", {}, { idempotencyKey: "k".repeat(256) }),
      ValidationException,
    );
    strictEqual(sendRequests(), 1);
  } finally {
    await simulator.close();
  }
});

Deno.test("idempotency config: a window that is not a positive number is refused", () => {
  let error: unknown;
  try {
    new GatewayService({
      server_url: "http://gateway.test",
      api_key: "k",
      retry: { idempotency_window_ms: 0 },
    });
  } catch (caught) {
    error = caught;
  }
  ok(error instanceof Error);
  ok(error.message.includes('"retry.idempotency_window_ms"'));
});

// --- the claims themselves, on each state engine

const ENGINES: { name: string; open(): Promise<{ state: StateStore; close(): void }> }[] = [
  { name: "MemoryState", open: () => Promise.resolve({ state: new MemoryState(), close: () => {} }) },
  {
    name: "KvState",
    open: async () => {
      const kv = await Deno.openKv(":memory:");
      return { state: new KvState(kv), close: () => kv.close() };
    },
  },
];

for (const engine of ENGINES) {
  Deno.test(`IdempotencyClaims (${engine.name}): one owner among concurrent takers; settle moves it once`, async () => {
    const { state, close } = await engine.open();
    try {
      const claims = new IdempotencyClaims(state);
      const scope = { connection: "c", instance: "i", key: "k/with/slashes" };
      const request = { fingerprint: "f", recordId: "r1", claimedUntil: Date.now() + 60_000 };
      const taken = await Promise.all(Array.from({ length: 10 }, () => claims.acquire(scope, request)));
      const owners = taken.filter((t) => t.kind === "owner");
      strictEqual(owners.length, 1);
      deepStrictEqual(taken.filter((t) => t.kind === "in_flight").length, 9);
      const owner = owners[0];
      if (owner.kind !== "owner") throw new Error("unreachable");
      const done = await claims.settle(scope, owner.version, {
        state: "done",
        response: { status: 201, body: { key: { id: "M1" } } },
        messageId: "M1",
      });
      ok(done !== null);
      // A stale version cannot settle it again, also when the claim it held is given (no read).
      strictEqual(await claims.settle(scope, owner.version, { state: "released" }), null);
      strictEqual(await claims.settle(scope, owner.version, { state: "released" }, owner.claim), null);
      const later = await claims.acquire(scope, request);
      strictEqual(later.kind, "done");
      deepStrictEqual(later.claim.response, { status: 201, body: { key: { id: "M1" } } });
      strictEqual(later.claim.messageId, "M1");
      // Another scope with the same key is independent; settled with the claim it holds, it lasts the window.
      const other = await claims.acquire({ ...scope, instance: "j" }, request);
      if (other.kind !== "owner") throw new Error("expected to own the other scope");
      ok(await claims.settle({ ...scope, instance: "j" }, other.version, { state: "unknown" }, other.claim));
      const read = await claims.read({ ...scope, instance: "j" });
      deepStrictEqual(read?.value, { ...other.claim, state: "unknown", updatedAt: read!.value.updatedAt });
      strictEqual(read?.expiresAt, other.claim.windowEndsAt);
    } finally {
      close();
    }
  });
}
