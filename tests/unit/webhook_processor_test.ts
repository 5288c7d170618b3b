import { deepStrictEqual, ok, rejects, strictEqual, throws } from "node:assert/strict";
import { type LogRecord, reset } from "@logtape/logtape";
import { WebhookException } from "../../src/errors.ts";
import { MessageReceived, WebhookReceived } from "../../src/events.ts";
import { MemoryStore } from "../../src/backends/memory/store.ts";
import type { InboundMessageRecord } from "../../src/store/store.ts";
import { AbstractWebhookHandler } from "../../src/webhooks/handler_base.ts";
import { LogWebhookEvent } from "../../src/webhooks/plugins/log.ts";
import { ProcessIncomingMessage } from "../../src/webhooks/plugins/inbound_records.ts";
import { WebhookPayloadDto } from "../../src/webhooks/payload.ts";
import { WebhookProcessingException, WebhookProcessor } from "../../src/webhooks/processor.ts";
import { captureLogs } from "../helpers/logs.ts";

function payload(event: string, data: unknown = {}, extra: Record<string, unknown> = {}): WebhookPayloadDto {
  return WebhookPayloadDto.from({ event, instance: "sales", data, ...extra }, { receivedAt: 1000 })!;
}

const inbound = () =>
  payload("messages.upsert", {
    key: { id: "M1", remoteJid: "77@lid", remoteJidAlt: "5511999999999@s.whatsapp.net", fromMe: false },
    message: { conversation: "hello" },
    messageType: "conversation",
    messageTimestamp: 1_700_000_000,
  }, { apikey: "instance-token-xyz" });

class Recorder extends AbstractWebhookHandler {
  protected events: string[];
  constructor(readonly name: string, kinds: string[], readonly calls: string[]) {
    super();
    this.events = kinds;
  }
  handle(payload: WebhookPayloadDto): void {
    this.calls.push(`${this.name}:${payload.event}`);
  }
}

Deno.test("handlers run in registration order across on, onAny and registerHandler, filtered by kind", async () => {
  const calls: string[] = [];
  const processor = new WebhookProcessor({ log: false })
    .onAny((p) => void calls.push(`any1:${p.event}`))
    .on("messages.upsert", (p) => void calls.push(`on-dotted:${p.event}`))
    .registerHandler(new Recorder("obj-kebab", ["messages-upsert", "connection.update"], calls))
    .on(["CONNECTION_UPDATE"], (p) => void calls.push(`on-conn:${p.event}`))
    .onAny((p) => void calls.push(`any2:${p.event}`))
    .registerHandler(new Recorder("obj-all", [], calls))
    .on("messages_upsert", async (p) => {
      await Promise.resolve();
      calls.push(`on-async:${p.event}`);
    });
  await processor.process(payload("messages.upsert"));
  deepStrictEqual(calls, [
    "any1:MESSAGES_UPSERT",
    "on-dotted:MESSAGES_UPSERT",
    "obj-kebab:MESSAGES_UPSERT",
    "any2:MESSAGES_UPSERT",
    "obj-all:MESSAGES_UPSERT",
    "on-async:MESSAGES_UPSERT",
  ]);
  calls.length = 0;
  await processor.process(payload("connection.update"));
  deepStrictEqual(calls, [
    "any1:CONNECTION_UPDATE",
    "obj-kebab:CONNECTION_UPDATE",
    "on-conn:CONNECTION_UPDATE",
    "any2:CONNECTION_UPDATE",
    "obj-all:CONNECTION_UPDATE",
  ]);
  calls.length = 0;
  await processor.process(payload("qrcode.updated"));
  deepStrictEqual(calls, ["any1:QRCODE_UPDATED", "any2:QRCODE_UPDATED", "obj-all:QRCODE_UPDATED"]);
  strictEqual(processor.handlerCount(), 7);
  strictEqual(processor.handlerCount("messages-upsert"), 6);
  strictEqual(processor.handlerCount("call"), 3);
});

Deno.test("GROUP_UPDATE handlers receive groups.update webhooks", async () => {
  const seen: string[] = [];
  const processor = new WebhookProcessor({ log: false }).on(
    "GROUP_UPDATE",
    (p) => void seen.push(p.rawEvent),
  );
  processor.registerHandler(new Recorder("r", ["GROUPS_UPDATE"], seen));
  await processor.process(payload("groups.update"));
  deepStrictEqual(seen, ["groups.update", "r:GROUPS_UPDATE"]);
  const handler = new Recorder("r", ["group_update"], []);
  strictEqual(handler.handles("groups.update"), true);
  strictEqual(handler.handles("groups.upsert"), false);
  deepStrictEqual(handler.handledEvents(), ["GROUPS_UPDATE"]);
});

Deno.test("every handler runs even when some fail; the failures are reported together", async () => {
  const calls: string[] = [];
  const processor = new WebhookProcessor({ log: false })
    .onAny(() => {
      throw new Error("first down");
    })
    .onAny(() => void calls.push("second"))
    .onAny(() => Promise.reject(new Error("third down")))
    .onAny(() => void calls.push("fourth"));
  const error = await rejects(processor.process(payload("call")), (e: unknown) => {
    ok(e instanceof WebhookProcessingException);
    strictEqual(e.errors.length, 2);
    strictEqual(e.message, 'Cannot process webhook "CALL": first down (and 1 more)');
    strictEqual(e.status, 500);
    return true;
  });
  strictEqual(error, undefined);
  deepStrictEqual(calls, ["second", "fourth"]);
});

Deno.test("registration refuses names that are not events and non-functions", () => {
  const processor = new WebhookProcessor({ log: false });
  // @ts-expect-error not an event name
  throws(() => processor.on("../x", () => {}), WebhookException);
  throws(() => processor.on([], () => {}), WebhookException);
  throws(() => processor.on("call", "x" as unknown as () => void), WebhookException);
  throws(() => processor.onAny(null as unknown as () => void), WebhookException);
  throws(() => processor.registerHandler(new Recorder("r", ["not an/event"], [])), WebhookException);
  throws(() => processor.registerHandler({} as AbstractWebhookHandler), WebhookException);
  strictEqual(processor.handlerCount(), 0);
});

Deno.test("removeHandler removes a function or an object from every kind", async () => {
  const calls: string[] = [];
  const fn = () => void calls.push("fn");
  const object = new Recorder("obj", ["call"], calls);
  const processor = new WebhookProcessor({ log: false }).on("call", fn).onAny(fn).registerHandler(object);
  strictEqual(processor.removeHandler(fn), true);
  strictEqual(processor.removeHandler(fn), false);
  await processor.process(payload("call"));
  deepStrictEqual(calls, ["obj:CALL"]);
  strictEqual(processor.removeHandler(object), true);
  strictEqual(processor.handlerCount(), 0);
});

Deno.test("events: WebhookReceived for every webhook before the handlers, MessageReceived for inbound only", async () => {
  const order: string[] = [];
  const processor = new WebhookProcessor({ log: false }).onAny((p) => void order.push(`handler:${p.event}`));
  processor.events.addEventListener(WebhookReceived.type, (event) => {
    const received = event as WebhookReceived;
    order.push(`received:${received.event}:${received.instance}`);
  });
  let message: MessageReceived | undefined;
  processor.events.addEventListener(MessageReceived.type, (event) => {
    message = event as MessageReceived;
    order.push("message");
  });
  await processor.process(inbound());
  await processor.process(
    payload("messages.upsert", { key: { id: "M2", remoteJid: "1@s.whatsapp.net", fromMe: true } }),
  );
  await processor.process(
    payload("send.message", { key: { id: "M3", remoteJid: "1@s.whatsapp.net", fromMe: true } }),
  );
  deepStrictEqual(order, [
    "received:MESSAGES_UPSERT:sales",
    "message",
    "handler:MESSAGES_UPSERT",
    "received:MESSAGES_UPSERT:sales",
    "handler:MESSAGES_UPSERT",
    "received:SEND_MESSAGE:sales",
    "handler:SEND_MESSAGE",
  ]);
  ok(message !== undefined);
  strictEqual(message.messageId, "M1");
  strictEqual(message.remoteJid, "77@lid");
  strictEqual(message.sender, "5511999999999@s.whatsapp.net");
  strictEqual(message.chat, "5511999999999@s.whatsapp.net");
  strictEqual(message.text, "hello");
  strictEqual(message.messageType, "conversation");
  strictEqual(message.payload.event, "MESSAGES_UPSERT");
});

Deno.test("events: a throwing or rejecting listener fails the webhook instead of crashing the process", async () => {
  const processor = new WebhookProcessor({ log: false });
  const throwing = () => {
    throw new Error("listener down");
  };
  processor.events.addEventListener(WebhookReceived.type, throwing);
  await rejects(processor.process(payload("call")), /listener down/);
  processor.events.removeEventListener(WebhookReceived.type, throwing);
  await processor.process(payload("call"));
  const rejecting = { handleEvent: () => Promise.reject(new Error("async listener down")) };
  processor.events.addEventListener(MessageReceived.type, rejecting);
  await rejects(processor.process(inbound()), /async listener down/);
  await processor.process(payload("call"));
});

Deno.test("events: waitUntil work is awaited before process resolves", async () => {
  const processor = new WebhookProcessor({ log: false });
  let release!: () => void;
  let done = false;
  processor.events.addEventListener(WebhookReceived.type, (event) => {
    (event as WebhookReceived).waitUntil(
      new Promise<void>((resolve) => release = resolve).then(() => done = true),
    );
  });
  const processing = processor.process(payload("call"));
  await Promise.resolve();
  strictEqual(done, false);
  release();
  await processing;
  strictEqual(done, true);
});

Deno.test("LogWebhookEvent: one info record per webhook, without the body or the apikey", async () => {
  const records: LogRecord[] = [];
  await captureLogs(records, ["gateway", "webhook"], "info");
  try {
    const processor = new WebhookProcessor();
    await processor.process(inbound());
    strictEqual(records.length, 1);
    deepStrictEqual(records[0].category, ["gateway", "webhook"]);
    strictEqual(records[0].level, "info");
    deepStrictEqual(records[0].properties, {
      event: "MESSAGES_UPSERT",
      rawEvent: "messages.upsert",
      instance: "sales",
      deliveryId: undefined,
      messageId: "M1",
    });
    strictEqual(JSON.stringify(records).includes("instance-token-xyz"), false);
    strictEqual(JSON.stringify(records).includes("hello"), false);
    new LogWebhookEvent().handleEvent(new Event("other"));
    strictEqual(records.length, 1);
  } finally {
    await reset();
  }
});

Deno.test("ProcessIncomingMessage: inbound messages are stored with the resolved sender", async () => {
  const store = new MemoryStore();
  const processor = new WebhookProcessor({ log: false, store });
  strictEqual(processor.store, store);
  processor.useStore(new MemoryStore());
  strictEqual(processor.store, store);
  await processor.process(inbound());
  await processor.process(
    payload("messages.upsert", { key: { id: "OUT", remoteJid: "1@s.whatsapp.net", fromMe: true } }),
  );
  const record = await store.getInbound("sales", "M1");
  deepStrictEqual(
    record,
    {
      id: "M1",
      instance: "sales",
      remoteJid: "77@lid",
      sender: "5511999999999@s.whatsapp.net",
      messageType: "conversation",
      text: "hello",
      timestamp: 1_700_000_000_000,
      payload: inbound().data,
      receivedAt: 1000,
    } satisfies InboundMessageRecord,
  );
  strictEqual(await store.getInbound("sales", "OUT"), null);
});

Deno.test("ProcessIncomingMessage: a failing store fails the webhook (so it is retried, not lost)", async () => {
  const store = new MemoryStore();
  store.saveInbound = () => Promise.reject(new Error("disk full"));
  const processor = new WebhookProcessor({ log: false, store });
  await rejects(processor.process(inbound()), /disk full/);
  await processor.process(payload("call"));
  const listener = new ProcessIncomingMessage(new MemoryStore());
  listener.handleEvent(new WebhookReceived(payload("call")));
});

Deno.test("events: once, AbortSignal, duplicates and capture behave as on any EventTarget", async () => {
  const processor = new WebhookProcessor({ log: false });
  const calls: string[] = [];
  const once = () => void calls.push("once");
  const plain = () => void calls.push("plain");
  const controller = new AbortController();
  const aborted = () => void calls.push("aborted");
  processor.events.addEventListener(WebhookReceived.type, once, { once: true });
  processor.events.addEventListener(WebhookReceived.type, plain);
  processor.events.addEventListener(WebhookReceived.type, plain); // a duplicate is ignored
  processor.events.addEventListener(WebhookReceived.type, plain, { capture: true }); // another registration
  processor.events.addEventListener(WebhookReceived.type, aborted, { signal: controller.signal });
  await processor.process(payload("call"));
  deepStrictEqual(calls.sort(), ["aborted", "once", "plain", "plain"]);
  calls.length = 0;
  controller.abort();
  processor.events.removeEventListener(WebhookReceived.type, plain, { capture: true });
  await processor.process(payload("call"));
  deepStrictEqual(calls, ["plain"]);
  calls.length = 0;
  processor.events.removeEventListener(WebhookReceived.type, plain);
  processor.events.addEventListener(WebhookReceived.type, once, { once: true });
  await processor.process(payload("call"));
  await processor.process(payload("call"));
  deepStrictEqual(calls, ["once"]);
  const signal = AbortSignal.abort();
  processor.events.addEventListener(WebhookReceived.type, aborted, { signal });
  await processor.process(payload("call"));
  deepStrictEqual(calls, ["once"]);
});

Deno.test("LogWebhookEvent is skipped cheaply when its level is off, and runs when it is on", async () => {
  const processor = new WebhookProcessor();
  await processor.process(inbound());
  const records: LogRecord[] = [];
  await captureLogs(records, ["gateway", "webhook"], "info");
  try {
    await processor.process(inbound());
    strictEqual(records.length, 1);
  } finally {
    await reset();
  }
});
