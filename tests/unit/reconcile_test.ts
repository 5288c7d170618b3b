import { deepStrictEqual, strictEqual } from "node:assert/strict";
import { reconcileInboundMessages } from "../../src/delivery/reconcile.ts";
import { GatewayService } from "../../src/service.ts";
import { MemoryStore } from "../../src/backends/memory/store.ts";
import type { GatewaySimulator } from "../../src/testing/mod.ts";
import { WebhookPayloadDto } from "../../src/webhooks/payload.ts";
import { WebhookProcessor } from "../../src/webhooks/processor.ts";
import { BASE, call, KEY, newSim } from "../helpers/simulator.ts";

const NOW = Date.UTC(2026, 10, 23, 12, 0, 0);
const CHATS = ["5511900000001", "5511900000002", "5511900000003", "5511900000004", "5511900000005"];

interface World {
  sim: GatewaySimulator;
  gw: GatewayService;
  store: MemoryStore;
  processor: WebhookProcessor;
  /** How many times the handler saw each message id. */
  seen: Map<string, number>;
  ids: string[];
}

/** A receiver on the simulator's webhooks, 100 inbound messages over 5 chats, 30 of their webhooks dropped. */
async function world(options: { failOnce?: string } = {}): Promise<World> {
  const store = new MemoryStore({ now: () => NOW });
  // Every collaborator on the one fake clock: the processor's claims are read back on it.
  const processor = new WebhookProcessor({ store, log: false, now: () => NOW });
  const seen = new Map<string, number>();
  let failed = false;
  processor.on("messages.upsert", (payload) => {
    const id = payload.messageId!;
    if (id === options.failOnce && !failed) {
      failed = true;
      throw new Error("handler down");
    }
    seen.set(id, (seen.get(id) ?? 0) + 1);
  });
  const sim = newSim({
    now: () => NOW,
    sleep: () => Promise.resolve(),
    // The receiver: every delivered webhook goes through the processor.
    fetch: async (input, init) => {
      const request = new Request(input, init);
      await processor.process(WebhookPayloadDto.from(await request.json())!);
      return new Response("ok");
    },
  });
  sim.addInstance("sales", { open: true });
  strictEqual(
    (await call(sim, "POST", "/webhook/set/sales", {
      webhook: { enabled: true, url: "http://receiver.test/hook", events: ["MESSAGES_UPSERT"] },
    })).status,
    201,
  );
  sim.dropWebhooks({ event: "messages.upsert", share: 0.3 });
  const ids: string[] = [];
  for (let i = 0; i < 100; i++) {
    const id = `IN${String(i).padStart(3, "0")}`;
    ids.push(id);
    sim.simulateInboundMessage("sales", {
      from: CHATS[i % CHATS.length],
      text: `message ${i}`,
      id,
      // Spread over the last hour; some share a second.
      timestamp: Math.floor(NOW / 1000) - 3600 + Math.floor(i / 2) * 10,
    });
  }
  await sim.flushWebhooks();
  const gw = new GatewayService({ server_url: BASE, api_key: KEY, instance: "sales", store }, {
    fetch: sim.fetch,
    now: () => NOW,
  });
  return { sim, gw, store, processor, seen, ids };
}

function exactlyOnce(w: World): void {
  deepStrictEqual([...w.seen.keys()].sort(), w.ids);
  deepStrictEqual([...w.seen.values()].filter((n) => n !== 1), []);
}

Deno.test("reconcile: 30 of 100 inbound webhooks dropped → every message reaches the handler exactly once; a second run recovers nothing", async () => {
  const w = await world();
  try {
    strictEqual(w.sim.droppedWebhooks.length, 30);
    strictEqual(w.seen.size, 70);
    const first = await reconcileInboundMessages(w.gw, { processor: w.processor, now: () => NOW });
    deepStrictEqual(
      first.instances.map((r) => [r.instance, r.chats, r.seen, r.recovered, r.complete, r.errors]),
      [["sales", 5, 100, 30, true, []]],
    );
    exactlyOnce(w);
    strictEqual(w.gw.getMetrics().total("gateway_reconcile_messages_total", { result: "recovered" }), 30);
    strictEqual(w.gw.getMetrics().total("gateway_reconcile_messages_total", { result: "seen" }), 100);
    // Stored like webhook messages (ProcessIncomingMessage), with the text.
    const droppedId = (w.sim.droppedWebhooks[0].data as { key: { id: string } }).key.id;
    strictEqual((await w.store.getInbound("sales", droppedId))?.text, `message ${w.ids.indexOf(droppedId)}`);

    const second = await reconcileInboundMessages(w.gw, { processor: w.processor, now: () => NOW + 60_000 });
    strictEqual(second.recovered, 0);
    exactlyOnce(w);

    // A message delivered by webhook after a run is not handled twice when the next run sees it.
    w.sim.simulateInboundMessage("sales", {
      from: CHATS[0],
      text: "late",
      id: "LATE1",
      timestamp: NOW / 1000 + 30,
    });
    await w.sim.flushWebhooks();
    const third = await reconcileInboundMessages(w.gw, { processor: w.processor, now: () => NOW + 120_000 });
    strictEqual(third.recovered, 0);
    strictEqual(w.seen.get("LATE1"), 1);
  } finally {
    await w.sim.close();
  }
});

Deno.test("reconcile: a run cut off by its budget resumes where it stopped", async () => {
  const w = await world();
  try {
    const first = await reconcileInboundMessages(w.gw, {
      processor: w.processor,
      maxMessages: 45,
      now: () => NOW,
    });
    strictEqual(first.instances[0].complete, false);
    strictEqual(first.seen, 45);
    const second = await reconcileInboundMessages(w.gw, {
      processor: w.processor,
      maxMessages: 45,
      now: () => NOW,
    });
    const third = await reconcileInboundMessages(w.gw, {
      processor: w.processor,
      maxMessages: 45,
      now: () => NOW,
    });
    strictEqual(third.instances[0].complete, true);
    strictEqual(first.recovered + second.recovered + third.recovered, 30);
    exactlyOnce(w);
    // Each run moved on: the first two checked a full budget of messages not checked before.
    strictEqual(second.seen >= 45, true);
  } finally {
    await w.sim.close();
  }
});

Deno.test("reconcile: a run cut off by a failing handler keeps its place; the next run recovers the rest once", async () => {
  const dropped = await (async () => {
    const probe = await world();
    await probe.sim.close();
    return probe.sim.droppedWebhooks.map((d) => (d.data as { key: { id: string } }).key.id);
  })();
  const w = await world({ failOnce: dropped[10] });
  try {
    const first = await reconcileInboundMessages(w.gw, { processor: w.processor, now: () => NOW });
    strictEqual(first.instances[0].complete, false);
    strictEqual(first.instances[0].errors.length, 1);
    strictEqual(w.seen.has(dropped[10]), false);
    const second = await reconcileInboundMessages(w.gw, { processor: w.processor, now: () => NOW });
    strictEqual(second.instances[0].complete, true);
    strictEqual(first.recovered + second.recovered, 30);
    exactlyOnce(w);
  } finally {
    await w.sim.close();
  }
});

Deno.test("reconcile: refuses to run without a store, an instance, or with a processor on another store", async () => {
  await using sim = newSim();
  const gw = new GatewayService({ server_url: BASE, api_key: KEY }, { fetch: sim.fetch });
  const processor = new WebhookProcessor({ log: false });
  await reconcileInboundMessages(gw, { processor }).then(
    () => {
      throw new Error("expected a refusal");
    },
    (error: Error) =>
      strictEqual(
        error.message,
        "Cannot reconcile messages: no store (pass `store`, or configure one on the service)",
      ),
  );
  await reconcileInboundMessages(gw, { processor, store: new MemoryStore() }).then(
    () => {
      throw new Error("expected a refusal");
    },
    (error: Error) =>
      strictEqual(
        error.message,
        "Cannot reconcile messages: no instance (pass `instances`, or bind the service to one)",
      ),
  );
  const other = new WebhookProcessor({ store: new MemoryStore(), log: false });
  await reconcileInboundMessages(gw, { processor: other, store: new MemoryStore(), instances: ["sales"] })
    .then(
      () => {
        throw new Error("expected a refusal");
      },
      (error: Error) =>
        strictEqual(
          error.message,
          "Cannot reconcile messages: the processor uses another store than the reconciler",
        ),
    );
});

Deno.test("WebhookProcessor with a store: one run per inbound message id; a message held by another delivery fails the webhook", async () => {
  const store = new MemoryStore();
  const processor = new WebhookProcessor({ store, log: false });
  const texts: string[] = [];
  processor.on("messages.upsert", (payload) => {
    texts.push(payload.text!);
  });
  const message = (id: string, text: string) =>
    WebhookPayloadDto.from({
      event: "messages.upsert",
      instance: "sales",
      data: {
        key: { remoteJid: "5511999998888@s.whatsapp.net", fromMe: false, id },
        message: { conversation: text },
      },
    })!;
  await processor.process(message("A1", "first"));
  // The same message again, with another body (another delivery): skipped.
  await processor.process(message("A1", "first, redelivered"));
  deepStrictEqual(texts, ["first"]);
  // Held by a delivery still in progress: the webhook fails, so the server retries it later.
  await store.state.set("inbound_message", "sales/B1", { state: "processing" }, { expectedVersion: null });
  await processor.process(message("B1", "second")).then(
    () => {
      throw new Error("expected a failure");
    },
    (error: Error) =>
      strictEqual(error.message, 'Cannot process message "B1": another delivery is processing it'),
  );
  // A failing handler gives the claim back: the next delivery runs.
  let fail = true;
  processor.on("messages.upsert", () => {
    if (fail) throw new Error("down");
  });
  await processor.process(message("C1", "third")).catch(() => {});
  fail = false;
  await processor.process(message("C1", "third"));
  deepStrictEqual(texts, ["first", "third", "third"]);
});
