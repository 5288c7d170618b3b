import { deepStrictEqual, ok, rejects, strictEqual } from "node:assert/strict";
import { ChatsResource, MessagesResource } from "../../src/resources/mod.ts";
import {
  ConnectionException,
  ConnectionManager,
  GatewayClient,
  MemoryStore,
  MessageException,
  MessageSent,
  MetricsCollector,
  ValidationException,
} from "../../mod.ts";
import { CASES, REQUEST_FORM_CASES } from "../fixtures/resources_cases.ts";
import {
  defaultAnswer,
  fakeFetch,
  makeService,
  MESSAGE_ID,
  SEND_RESPONSE,
} from "../fixtures/resources_server.ts";

function collect(target: EventTarget): MessageSent[] {
  const events: MessageSent[] = [];
  target.addEventListener(MessageSent.type, (event) => events.push(event as MessageSent));
  return events;
}

Deno.test("every message send dispatches MessageSent exactly once with the response's key.id", async () => {
  // resolveRecipient is a lookup (whatsappNumbers), not a send; sendMany answers with its report (checked in
  // send_many_test.ts), not the server's response.
  const sends = [...CASES, ...REQUEST_FORM_CASES].filter((testCase) =>
    testCase.id.startsWith("messages.") && testCase.id !== "messages.resolveRecipient" &&
    testCase.id !== "messages.sendMany"
  );
  strictEqual(sends.length, 30);
  for (const testCase of sends) {
    const { gw, calls } = makeService();
    const events = collect(gw.events);
    const res = await testCase.call(gw) as { json: (path: string) => unknown };
    strictEqual(res.json("key.id"), MESSAGE_ID);
    strictEqual(calls.length, 1);
    strictEqual(events.length, 1, testCase.id);
    strictEqual(events[0].messageId, MESSAGE_ID);
    strictEqual(events[0].instance, "sales");
    strictEqual(events[0].connection, "default");
    deepStrictEqual(events[0].response, SEND_RESPONSE);
  }
});

Deno.test("MessageSent carries the message kind and the normalised recipient", async () => {
  const { gw } = makeService();
  const events = collect(gw.events);
  await gw.messages().text("+55 11 99999-9999", "Hi");
  await gw.messages().document("5511999999999", "https://example.com/a.pdf");
  await gw.messages().audio("5511999999999", "https://example.com/a.ogg");
  await gw.messages().reaction({ remoteJid: "120363025246125888@g.us", id: "X", fromMe: false }, "👍");
  await gw.messages().status({ type: "video", content: "https://example.com/v.mp4", allContacts: true });
  deepStrictEqual(events.map((event) => [event.messageType, event.to]), [
    ["text", "5511999999999"],
    ["document", "5511999999999"],
    ["audio", "5511999999999"],
    ["reaction", "120363025246125888@g.us"],
    ["status", "status@broadcast"],
  ]);
});

Deno.test("a send retried after a 503 (server did not act) still dispatches MessageSent once", async () => {
  const { gw, calls } = makeService({
    config: { retry: { max_retries: 2 } },
    handler: (request, index) =>
      index === 0 ? { status: 503, body: { message: "busy" } } : defaultAnswer(request),
  });
  const events = collect(gw.events);
  const res = await gw.messages().text("5511999999999", "Hi");
  strictEqual(calls.length, 2);
  strictEqual(res.attempts, 2);
  strictEqual(events.length, 1);
  strictEqual(gw.getMetrics().total("gateway_messages_sent_total"), 1);
});

Deno.test("a send is not retried after a 500: outcome unknown, no event, store record failed", async () => {
  const store = new MemoryStore();
  const { gw, calls } = makeService({
    config: { retry: { max_retries: 3 }, store },
    handler: () => ({
      status: 500,
      body: { status: 500, error: "Internal Server Error", response: { message: "x" } },
    }),
  });
  const events = collect(gw.events);
  await rejects(gw.messages().text("5511999999999", "Hi"), ConnectionException);
  strictEqual(calls.length, 1);
  strictEqual(events.length, 0);
  const records = await store.listOutbound();
  strictEqual(records.length, 1);
  strictEqual(records[0].status, "failed");
  strictEqual(records[0].recipient, "5511999999999");
});

Deno.test("the store records a successful send as sent with the server's message id", async () => {
  const store = new MemoryStore();
  const { gw } = makeService({ config: { store } });
  await gw.messages().poll("5511999999999", "Lunch?", ["Pizza", "Sushi"], {}, { idempotencyKey: "order-42" });
  const records = await store.listOutbound();
  strictEqual(records.length, 1);
  const record = records[0];
  // The key is linked to the record, never its id: a later call with the key cannot overwrite it.
  strictEqual(record.idempotencyKey, "order-42");
  strictEqual(record.claimedUntil, undefined);
  strictEqual(record.status, "sent");
  strictEqual(record.messageId, MESSAGE_ID);
  strictEqual(record.type, "poll");
  strictEqual(record.route, "/message/sendPoll/{instance}");
  strictEqual(record.instance, "sales");
  deepStrictEqual(record.body, {
    number: "5511999999999",
    name: "Lunch?",
    selectableCount: 1,
    values: ["Pizza", "Sushi"],
  });
});

Deno.test("a recipient not on WhatsApp rejects with MessageException and dispatches nothing", async () => {
  const { gw } = makeService({
    handler: () => ({
      status: 400,
      body: {
        status: 400,
        error: "Bad Request",
        response: {
          message: [{ jid: "5511999999999@s.whatsapp.net", exists: false, number: "5511999999999" }],
        },
      },
    }),
  });
  const events = collect(gw.events);
  await rejects(gw.messages().text("5511999999999", "Hi"), (error) => {
    ok(error instanceof MessageException);
    strictEqual(error.reason, "not_on_whatsapp");
    return true;
  });
  strictEqual(events.length, 0);
});

Deno.test("invalid sends reject with ValidationException before any request or store write", async () => {
  const store = new MemoryStore();
  const { gw, calls } = makeService({ config: { store } });
  await rejects(gw.messages().text("abc", ""), (error) => {
    ok(error instanceof ValidationException);
    deepStrictEqual(error.messages, [
      'number must be a phone number in international form (e.g. "5511999999999") or a JID ending in @s.whatsapp.net, @g.us or @lid; got "abc"',
      "text must not be empty",
    ]);
    return true;
  });
  await rejects(
    gw.messages().image("5511999999999", "data:image/png;base64,iVBORw0KGgo="),
    ValidationException,
  );
  await rejects(gw.messages().poll("5511999999999", "Q", ["A"]), ValidationException);
  strictEqual(calls.length, 0);
  deepStrictEqual(await store.listOutbound(), []);
});

Deno.test("sends ask the rate limiter for the messages bucket, media sends for the media bucket", async () => {
  const buckets: string[] = [];
  const { fetch } = fakeFetch();
  const client = new GatewayClient({}, {
    connections: new ConnectionManager({ server_url: "http://127.0.0.1:9", api_key: "k", instance: "sales" }),
    fetch,
    gate: {
      acquire: (request) => {
        buckets.push(request.bucket);
        return Promise.resolve();
      },
    },
  });
  const context = { client, events: new EventTarget(), metrics: new MetricsCollector(), now: Date.now };
  const messages = new MessagesResource(context);
  await messages.text("5511999999999", "Hi");
  await messages.image("5511999999999", "https://example.com/a.png");
  await messages.audio("5511999999999", "https://example.com/a.ogg");
  await messages.ptv("5511999999999", "https://example.com/v.mp4");
  await messages.sticker("5511999999999", "https://example.com/s.webp");
  await messages.status({
    type: "text",
    content: "Hi",
    font: 1,
    backgroundColor: "#000000",
    allContacts: true,
  });
  await messages.status({ type: "image", content: "https://example.com/a.png", allContacts: true });
  await messages.location("5511999999999", 1, 2);
  await new ChatsResource(context).findContacts();
  deepStrictEqual(buckets, [
    "messages",
    "media",
    "media",
    "media",
    "media",
    "messages",
    "media",
    "messages",
    "default",
  ]);
});
