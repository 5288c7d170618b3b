import { deepStrictEqual, ok, rejects, strictEqual, throws } from "node:assert/strict";
import { ConfigurationException } from "../../src/errors.ts";
import { WebhookReceived } from "../../src/events.ts";
import { GatewayService } from "../../src/service.ts";
import { MemoryStore } from "../../src/backends/memory/store.ts";
import type { WebhookPlugin } from "../../src/webhooks/events/plugin.ts";
import { WebhookPayloadDto } from "../../src/webhooks/payload.ts";
import {
  PROCESS,
  WebhookProcessingException,
  WebhookProcessor,
  type WebhookProcessorOptions,
} from "../../src/webhooks/processor.ts";

function payload(event: string, data: unknown): WebhookPayloadDto {
  return WebhookPayloadDto.from({ event, instance: "sales", data }, { receivedAt: 1000 })!;
}

Deno.test("a processor given a store learns @lid pairs, statuses, inbound records and instance health by itself", async () => {
  let now = 5_000;
  const store = new MemoryStore({ now: () => now });
  const processor = new WebhookProcessor({ log: false, store, connection: "eu", now: () => now });
  await processor.process(payload("messages.upsert", {
    key: { id: "IN1", remoteJid: "123@lid", remoteJidAlt: "5511999999999@s.whatsapp.net", fromMe: false },
    message: { conversation: "hi" },
  }));
  await processor.process(payload("send.message", {
    key: { id: "OUT1", remoteJid: "5511999999999@s.whatsapp.net", fromMe: true },
    status: "PENDING",
  }));
  now = 6_000;
  await processor.process(payload("messages.update", { keyId: "OUT1", status: "READ" }));
  await processor.process(payload("connection.update", { state: "close", statusReason: 401 }));

  strictEqual(await processor.lidDirectory?.toPhone("123@lid"), "5511999999999");
  const status = await processor.messageStatus?.get("OUT1");
  deepStrictEqual([status?.status, status?.firstSeenAt, status?.updatedAt], ["READ", 5_000, 6_000]);
  strictEqual((await store.getInbound("sales", "IN1"))?.text, "hi");
  const health = await processor.instanceHealth!.get({ connection: "eu", instance: "sales" });
  deepStrictEqual([health.status, health.breaker, health.reason?.code], ["closed", "open", 401]);
  // A service over the same store sees that health: its sends stop before reaching the server.
  const gw = new GatewayService(
    { server_url: "http://127.0.0.1:9", api_key: "k", instance: "sales", store },
    { now: () => now },
  );
  strictEqual((await gw.health().get({ connection: "eu", instance: "sales" })).breaker, "open");
  // The store features are plug-ins, not handlers.
  strictEqual(processor.handlerCount(), 0);
});

Deno.test("plug-ins run before every handler; their promises run beside the handlers and settle with the webhook", async () => {
  const order: string[] = [];
  let release!: () => void;
  const slow: WebhookPlugin = {
    events: ["call"],
    observe: () => {
      order.push("plugin:start");
      return new Promise<void>((resolve) => release = resolve).then(() => void order.push("plugin:done"));
    },
  };
  const processor = new WebhookProcessor({ log: false })
    .onAny(() => void order.push("handler:any"))
    .use(slow)
    .on("call", async () => {
      await Promise.resolve();
      order.push("handler:call");
    });
  const processing = processor.process(
    payload("call", { id: "C1", from: "1@s.whatsapp.net", status: "offer" }),
  );
  await new Promise((resolve) => setTimeout(resolve, 0));
  deepStrictEqual(order, ["plugin:start", "handler:any", "handler:call"]);
  release();
  await processing;
  deepStrictEqual(order, ["plugin:start", "handler:any", "handler:call", "plugin:done"]);
  // A plug-in of other events does not run.
  order.length = 0;
  await processor.process(payload("qrcode.updated", {}));
  deepStrictEqual(order, ["handler:any"]);
  strictEqual(processor.handlerCount("call"), 2);
  strictEqual(processor.removeHandler(slow), true);
  strictEqual(processor.removeHandler(slow), false);
});

Deno.test("a failing plug-in and failing listeners fail the webhook, each failure counted", async () => {
  const processor = new WebhookProcessor({ log: false })
    .use({ observe: () => Promise.reject(new Error("store down")) })
    .onAny(() => {
      throw new Error("handler down");
    });
  processor.events.addEventListener(WebhookReceived.type, () => {
    throw new Error("listener one down");
  });
  processor.events.addEventListener(
    WebhookReceived.type,
    () => Promise.reject(new Error("listener two down")),
  );
  await rejects(processor.process(payload("call", {})), (e: unknown) => {
    ok(e instanceof WebhookProcessingException);
    deepStrictEqual(
      e.errors.map((error) => (error as Error).message),
      // Handlers' failures as they happen, then the plug-ins' in registration order (the events are a
      // plug-in from their first listener on).
      ["handler down", "store down", "listener one down", "listener two down"],
    );
    return true;
  });
});

Deno.test("the synchronous fast path: no promise when every handler and plug-in finished at once", () => {
  let calls = 0;
  const processor = new WebhookProcessor().on("messages.upsert", () => void calls++).use({
    observe: () => {},
  });
  strictEqual(processor[PROCESS](payload("messages.upsert", { key: { id: "A", fromMe: true } })), undefined);
  strictEqual(calls, 1);
  throws(
    () => processor.on("messages.upsert", () => {}).use({ events: ["cal" as "call"], observe: () => {} }),
    /"cal" is not an event name; valid names: application\.startup, /,
  );
  throws(
    () => processor.use({} as WebhookPlugin),
    /Cannot register webhook plug-in: it has no observe\(\) method/,
  );
});

Deno.test("processor options: a misspelt key or a wrong value is refused at creation", () => {
  const refused = (options: unknown, message: string) =>
    throws(() => new WebhookProcessor(options as WebhookProcessorOptions), (e: unknown) => {
      ok(e instanceof ConfigurationException);
      strictEqual(e.message, message);
      return true;
    });
  refused(
    { stor: new MemoryStore() },
    'Invalid webhook processor options: "stor" is not an option; the options are store, connection, now, log, lines',
  );
  refused({ connection: "" }, 'Invalid webhook processor options: "connection" must be a non-empty string');
  refused({ now: 5 }, 'Invalid webhook processor options: "now" must be a function returning epoch ms');
  refused({ log: "no" }, 'Invalid webhook processor options: "log" must be a boolean');
  refused({ store: {} }, 'Invalid webhook processor options: "store" must be a GatewayStore');
  refused(
    { lines: { read: () => ({ value: 1 }) } },
    'Invalid webhook processor options: "lines" must have read(payload) and arrive(read) functions',
  );
  refused(null, 'Invalid webhook processor options: "options" must be an object');
});
