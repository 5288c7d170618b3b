import { deepStrictEqual, rejects, strictEqual } from "node:assert/strict";
import { MessageStatusChanged, MessageStuck } from "../../src/delivery/status_events.ts";
import { MessageStatusTracker } from "../../src/delivery/status_tracker.ts";
import { MessageStatusException } from "../../src/errors.ts";
import { MessageSent } from "../../src/events.ts";
import { KvStore } from "../../src/backends/kv/store.ts";
import { MemoryStore } from "../../src/backends/memory/store.ts";
import { WebhookPayloadDto } from "../../src/webhooks/payload.ts";
import { WebhookProcessor } from "../../src/webhooks/processor.ts";
import { runDeliveryWorker } from "../helpers/run_worker.ts";
import { BASE, call, KEY, newSim } from "../helpers/simulator.ts";
import { GatewayService } from "../../src/service.ts";

function update(keyId: string, status: string | number): WebhookPayloadDto {
  return WebhookPayloadDto.from({
    event: "messages.update",
    instance: "sales",
    data: { keyId, remoteJid: "5511999998888@s.whatsapp.net", fromMe: true, status, messageId: "row-9" },
  })!;
}

function changesOf(tracker: MessageStatusTracker): string[] {
  const seen: string[] = [];
  tracker.events.addEventListener(MessageStatusChanged.type, (event) => {
    const changed = event as MessageStatusChanged;
    seen.push(`${changed.previous ?? "-"}>${changed.status}`);
  });
  return seen;
}

Deno.test("MessageStatusTracker: out-of-order and duplicate updates never move a status backwards", async () => {
  const tracker = new MessageStatusTracker({ store: new MemoryStore() });
  const seen = changesOf(tracker);
  for (
    const status of ["READ", "DELIVERY_ACK", "SERVER_ACK", "READ", "DELETED", 5, "DELIVERY_ACK", "ERROR"]
  ) {
    await tracker.observe(update("3EB0A", status));
  }
  strictEqual((await tracker.get("3EB0A"))?.status, "PLAYED");
  deepStrictEqual(seen, ["->READ", "READ>PLAYED"]);
});

Deno.test("MessageStatusTracker: ERROR is terminal and only follows PENDING or SERVER_ACK", async () => {
  const tracker = new MessageStatusTracker();
  const seen = changesOf(tracker);
  await tracker.observe({ messageId: "A", status: "PENDING" });
  await tracker.observe({ messageId: "A", status: 0 });
  await tracker.observe({ messageId: "A", status: "READ" });
  strictEqual((await tracker.get("A"))?.status, "ERROR");
  await tracker.observe({ messageId: "B", status: "DELIVERY_ACK" });
  await tracker.observe({ messageId: "B", status: "ERROR" });
  strictEqual((await tracker.get("B"))?.status, "DELIVERY_ACK");
  deepStrictEqual(seen, ["->PENDING", "PENDING>ERROR", "->DELIVERY_ACK"]);
});

Deno.test("MessageStatusTracker: send.message, MessageSent and messages.upsert from us start at their status; the server's row id is not the key", async () => {
  const tracker = new MessageStatusTracker();
  await tracker.observe(
    WebhookPayloadDto.from({
      event: "send.message",
      instance: "sales",
      data: { key: { remoteJid: "5511999998888@s.whatsapp.net", fromMe: true, id: "S1" }, status: "PENDING" },
    })!,
  );
  await tracker.observe(
    new MessageSent({
      messageId: "S2",
      instance: "sales",
      connection: "default",
      to: "5511999998888",
      messageType: "text",
      response: { key: { remoteJid: "5511999998888@s.whatsapp.net", id: "S2" }, status: "PENDING" },
    }),
  );
  const s1 = await tracker.get("S1");
  deepStrictEqual([s1?.status, s1?.instance, s1?.remoteJid], [
    "PENDING",
    "sales",
    "5511999998888@s.whatsapp.net",
  ]);
  strictEqual((await tracker.get("S2"))?.status, "PENDING");
  await tracker.observe(update("S1", "SERVER_ACK"));
  strictEqual((await tracker.get("S1"))?.status, "SERVER_ACK");
  strictEqual(await tracker.get("row-9"), null);
});

Deno.test("MessageStatusTracker: two KV handles on one file applying updates concurrently end at the furthest status", async () => {
  const dir = await Deno.makeTempDir();
  const a = await Deno.openKv(`${dir}/s.kv`);
  const b = await Deno.openKv(`${dir}/s.kv`);
  try {
    const trackers = [
      new MessageStatusTracker({ store: new KvStore(a) }),
      new MessageStatusTracker({ store: new KvStore(b) }),
    ];
    const order = ["PLAYED", "SERVER_ACK", "READ", "DELIVERY_ACK", "PENDING"];
    const moves: string[] = [];
    for (const tracker of trackers) {
      tracker.events.addEventListener(MessageStatusChanged.type, (event) => {
        moves.push((event as MessageStatusChanged).status);
      });
    }
    await Promise.all(
      Array.from(
        { length: 40 },
        (_, i) => trackers[i % 2].observe({ messageId: "C", status: order[i % order.length] }),
      ),
    );
    strictEqual((await trackers[0].get("C"))?.status, "PLAYED");
    strictEqual((await trackers[1].get("C"))?.status, "PLAYED");
    // Every committed move went forward.
    const rank = ["PENDING", "SERVER_ACK", "DELIVERY_ACK", "READ", "PLAYED"];
    for (let i = 1; i < moves.length; i++) {
      strictEqual(rank.indexOf(moves[i]) > rank.indexOf(moves[i - 1]), true);
    }
  } finally {
    a.close();
    b.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("MessageStatusTracker.waitFor: resolves on a messages.update processed later by another process on the same KV file", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/gateway.kv`;
  const kv = await Deno.openKv(path);
  try {
    let sleeps = 0;
    const tracker = new MessageStatusTracker({
      store: new KvStore(kv),
      // The first pause is when the other process receives the webhook.
      sleep: async () => {
        if (sleeps++ === 0) {
          strictEqual(await runDeliveryWorker("status", path, "3EB0W", "DELIVERY_ACK"), "done");
        }
      },
    });
    await tracker.observe({ messageId: "3EB0W", status: "PENDING", instance: "sales" });
    const record = await tracker.waitFor("3EB0W", "SERVER_ACK", { timeoutMs: 60_000 });
    strictEqual(record.status, "DELIVERY_ACK");
    strictEqual(sleeps, 1);
  } finally {
    kv.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("MessageStatusTracker.waitFor: a local change ends the pause; timeout and ERROR reject with MessageStatusException", async () => {
  let now = 0;
  let paused: () => void = () => {};
  const tracker = new MessageStatusTracker({
    now: () => now,
    pollIntervalMs: 1000,
    // Before the clock reaches 2000 a pause ends only when woken (a local change); after, it moves the clock.
    sleep: (ms, signal) =>
      new Promise<void>((resolve) => {
        if (now >= 2000) {
          now += ms;
          return resolve();
        }
        signal.addEventListener("abort", () => resolve(), { once: true });
        paused();
      }),
  });
  await tracker.observe({ messageId: "L", status: "PENDING", instance: "sales", remoteJid: "123@lid" });
  const pausing = new Promise<void>((resolve) => paused = resolve);
  const waiting = tracker.waitFor("L", "READ", { timeoutMs: 5000 });
  await pausing;
  await tracker.observe({ messageId: "L", status: "READ" });
  strictEqual((await waiting).status, "READ");

  now = 2000;
  await tracker.observe({ messageId: "P", status: "PENDING", instance: "sales", remoteJid: "123@lid" });
  await rejects(() => tracker.waitFor("P", "DELIVERY_ACK", { timeoutMs: 3000 }), (error: unknown) => {
    return error instanceof MessageStatusException && error.deliveryStatus === "PENDING" &&
      error.message === 'Cannot confirm message "P": not DELIVERY_ACK after 3000 ms (last status PENDING)' &&
      JSON.stringify(error.causes) ===
        JSON.stringify(["lid_only_recipient", "instance_not_open", "recipient_not_on_whatsapp"]);
  });
  strictEqual(now, 5000);
  await tracker.observe({ messageId: "E", status: "ERROR" });
  await rejects(() => tracker.waitFor("E", "DELIVERY_ACK"), (error: unknown) => {
    return error instanceof MessageStatusException && error.deliveryStatus === "ERROR";
  });
  const aborted = new AbortController();
  aborted.abort(new Error("stop"));
  await rejects(() => tracker.waitFor("P", "READ", { signal: aborted.signal }), /stop/);
});

Deno.test("MessageStatusTracker.checkStuck: once per message pending too long, with the instance's last state first", async () => {
  let now = 0;
  const store = new MemoryStore({ now: () => now });
  const processor = new WebhookProcessor({ store, log: false });
  const tracker = new MessageStatusTracker({ store, stuckAfterMs: 60_000, now: () => now });
  const stuck: MessageStuck[] = [];
  tracker.events.addEventListener(MessageStuck.type, (event) => stuck.push(event as MessageStuck));
  await processor.process(
    WebhookPayloadDto.from({
      event: "connection.update",
      instance: "sales",
      data: { instance: "sales", state: "close", statusReason: 401 },
    })!,
  );
  await tracker.observe({
    messageId: "X",
    status: "PENDING",
    instance: "sales",
    remoteJid: "5511999998888@s.whatsapp.net",
  });
  await tracker.observe({ messageId: "Y", status: "PENDING", instance: "sales" });
  await tracker.observe({ messageId: "Y", status: "SERVER_ACK" });
  now = 59_999;
  deepStrictEqual(await tracker.checkStuck(), []);
  now = 60_000;
  const found = await tracker.checkStuck();
  deepStrictEqual(found.map((e) => [e.messageId, e.pendingForMs, e.causes]), [
    ["X", 60_000, ["instance_not_open", "recipient_not_on_whatsapp"]],
  ]);
  deepStrictEqual(stuck, found);
  deepStrictEqual(await tracker.checkStuck(), []);
});

Deno.test("WebhookProcessor with a store feeds messageStatus and dispatches MessageStatusChanged on its events", async () => {
  const processor = new WebhookProcessor({ store: new MemoryStore(), log: false });
  const seen: string[] = [];
  processor.events.addEventListener(MessageStatusChanged.type, (event) => {
    seen.push((event as MessageStatusChanged).status);
  });
  await processor.process(update("3EB0P", "SERVER_ACK"));
  await processor.process(update("3EB0P", "SERVER_ACK"));
  await processor.process(update("3EB0P", "READ"));
  strictEqual((await processor.messageStatus?.get("3EB0P"))?.status, "READ");
  deepStrictEqual(seen, ["SERVER_ACK", "READ"]);
});

Deno.test("status end to end: a send, then the server's send.message and messages.update webhooks, through the processor", async () => {
  const store = new MemoryStore();
  const processor = new WebhookProcessor({ store, log: false });
  const sim = newSim({
    sleep: () => Promise.resolve(),
    fetch: async (input, init) => {
      await processor.process(WebhookPayloadDto.from(await new Request(input, init).json())!);
      return new Response("ok");
    },
  });
  try {
    sim.addInstance("sales", { open: true });
    await call(sim, "POST", "/webhook/set/sales", {
      webhook: {
        enabled: true,
        url: "http://receiver.test/hook",
        events: ["SEND_MESSAGE", "MESSAGES_UPDATE"],
      },
    });
    const gw = new GatewayService({ server_url: BASE, api_key: KEY, instance: "sales" }, {
      fetch: sim.fetch,
    });
    const id = (await gw.messages().text("5511999998888", "Olá")).json<string>("key.id");
    await sim.flushWebhooks();
    const tracker = processor.messageStatus!;
    strictEqual((await tracker.get(id))?.status, "PENDING");
    sim.simulateStatusUpdate("sales", { messageId: id, status: "DELIVERY_ACK" });
    sim.simulateStatusUpdate("sales", { messageId: id, status: "READ" });
    await sim.flushWebhooks();
    const record = await tracker.waitFor(id, "READ", { timeoutMs: 1000 });
    deepStrictEqual([record.status, record.instance, record.remoteJid], [
      "READ",
      "sales",
      "5511999998888@s.whatsapp.net",
    ]);
  } finally {
    await sim.close();
  }
});
