import { deepStrictEqual, ok, rejects, strictEqual, throws } from "node:assert/strict";
import { ConfigurationException } from "../../src/errors.ts";
import { WebhookReceived } from "../../src/events.ts";
import { GatewayService } from "../../src/service.ts";
import { MemoryStore } from "../../src/backends/memory/store.ts";
import { WebhookPayloadDto } from "../../src/webhooks/payload.ts";
import {
  type InboundMiddleware,
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
  // The store features are observers (inbound middleware), not handlers.
  strictEqual(processor.handlerCount(), 0);
});

Deno.test("inbound middleware (ctx, next) runs in order before the handlers, sees their outcome, and may end the update", async () => {
  const order: string[] = [];
  const processor = new WebhookProcessor({ log: false })
    .onAny(() => void order.push("handler:any"))
    .use(async (ctx, next) => {
      order.push(`outer:${ctx.payload.event}`);
      await next();
      order.push("outer:after");
    }, async (ctx, next) => {
      if (ctx.payload.instance === "muted") return; // the handlers do not run
      order.push("inner");
      await next();
    })
    .on("call", async () => {
      await Promise.resolve();
      order.push("handler:call");
    });
  await processor.process(payload("call", { id: "C1", from: "1@s.whatsapp.net", status: "offer" }));
  deepStrictEqual(order, ["outer:CALL", "inner", "handler:any", "handler:call", "outer:after"]);
  order.length = 0;
  await processor.process(WebhookPayloadDto.from({ event: "call", instance: "muted", data: {} })!);
  deepStrictEqual(order, ["outer:CALL", "outer:after"]);
  // Middleware are not handlers.
  strictEqual(processor.handlerCount("call"), 2);
});

Deno.test("the store observers' writes run beside the handlers and settle with the webhook", async () => {
  const order: string[] = [];
  let release!: () => void;
  const store = new MemoryStore();
  const saveInbound = store.saveInbound.bind(store);
  store.saveInbound = (record) => {
    order.push("observer:start");
    return new Promise<void>((resolve) => release = resolve).then(() => saveInbound(record))
      .then(() => void order.push("observer:done"));
  };
  const processor = new WebhookProcessor({ log: false, store }).on("messages.upsert", async () => {
    await Promise.resolve();
    order.push("handler");
  });
  const processing = processor.process(payload("messages.upsert", {
    key: { id: "IN1", remoteJid: "5511999999999@s.whatsapp.net", fromMe: false },
  }));
  await new Promise((resolve) => setTimeout(resolve, 0));
  deepStrictEqual(order, ["observer:start", "handler"]);
  release();
  await processing;
  deepStrictEqual(order, ["observer:start", "handler", "observer:done"]);
  strictEqual((await store.getInbound("sales", "IN1"))?.remoteJid, "5511999999999@s.whatsapp.net");
});

Deno.test("failing middleware, a failing observer and failing listeners fail the webhook, each failure counted", async () => {
  const store = new MemoryStore();
  store.saveInbound = () => Promise.reject(new Error("store down"));
  const processor = new WebhookProcessor({ log: false, store })
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
  const inbound = payload("messages.upsert", {
    key: { id: "IN2", remoteJid: "5511999999999@s.whatsapp.net", fromMe: false },
  });
  await rejects(processor.process(inbound), (e: unknown) => {
    ok(e instanceof WebhookProcessingException);
    deepStrictEqual(
      e.errors.map((error) => (error as Error).message),
      // The handlers' failures, then the observers' from the last to the first (each settles after the rest
      // of the chain; the events observe from their first listener on, after the store's).
      ["handler down", "listener one down", "listener two down", "store down"],
    );
    return true;
  });
  const failing = new WebhookProcessor({ log: false }).use(() => {
    throw new Error("middleware down");
  });
  await rejects(failing.process(payload("call", {})), (e: unknown) => {
    ok(e instanceof WebhookProcessingException);
    deepStrictEqual(e.errors.map((error) => (error as Error).message), ["middleware down"]);
    return true;
  });
  const twice = new WebhookProcessor({ log: false }).use(async (_ctx, next) => {
    await next();
    await next();
  });
  await rejects(twice.process(payload("call", {})), /Cannot call next\(\) twice in one middleware/);
});

Deno.test("the synchronous fast path: no promise when there is no middleware and every handler finished at once", () => {
  let calls = 0;
  const processor = new WebhookProcessor().on("messages.upsert", () => void calls++);
  strictEqual(processor[PROCESS](payload("messages.upsert", { key: { id: "A", fromMe: true } })), undefined);
  strictEqual(calls, 1);
  throws(
    () => processor.use({} as InboundMiddleware),
    /Cannot use inbound middleware: expected a function \(ctx, next\)/,
  );
  ok(processor.use(async (_ctx, next) => await next())[PROCESS](payload("call", {})) instanceof Promise);
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
    'Invalid webhook processor options: "stor" is not an option; the options are store, connection, now, log, lines, claims',
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
