import { deepStrictEqual, strictEqual, throws } from "node:assert/strict";
import { WebhookException } from "../../src/errors.ts";
import { WEBHOOK_CONFIG_EVENTS } from "../../src/webhooks/events/names.ts";
import {
  WEBHOOK_CONFIG_EVENTS as CONFIG_FROM_TABLE,
  WEBHOOK_EVENT_NAMES,
  WEBHOOK_EVENT_TABLE,
  WEBHOOK_EVENTS,
  type WebhookEventName,
  type WebhookEventNameOf,
} from "../../src/webhooks/events/names.ts";
import { AbstractWebhookHandler } from "../../src/webhooks/handler_base.ts";
import { dottedWebhookEvent, WebhookPayloadDto } from "../../src/webhooks/payload.ts";
import { WebhookProcessor } from "../../src/webhooks/processor.ts";

function payload(event: string, data: unknown): WebhookPayloadDto {
  return WebhookPayloadDto.from({ event, instance: "sales", data }, { receivedAt: 1000 })!;
}

// The server's 2.3.6 configuration enum (EventController.events), in its order.
const SERVER_CONFIG_NAMES = [
  "APPLICATION_STARTUP",
  "QRCODE_UPDATED",
  "MESSAGES_SET",
  "MESSAGES_UPSERT",
  "MESSAGES_EDITED",
  "MESSAGES_UPDATE",
  "MESSAGES_DELETE",
  "SEND_MESSAGE",
  "SEND_MESSAGE_UPDATE",
  "CONTACTS_SET",
  "CONTACTS_UPSERT",
  "CONTACTS_UPDATE",
  "PRESENCE_UPDATE",
  "CHATS_SET",
  "CHATS_UPSERT",
  "CHATS_UPDATE",
  "CHATS_DELETE",
  "GROUPS_UPSERT",
  "GROUP_UPDATE",
  "GROUP_PARTICIPANTS_UPDATE",
  "CONNECTION_UPDATE",
  "LABELS_EDIT",
  "LABELS_ASSOCIATION",
  "CALL",
  "TYPEBOT_START",
  "TYPEBOT_CHANGE_STATUS",
  "REMOVE_INSTANCE",
  "LOGOUT_INSTANCE",
  "INSTANCE_CREATE",
  "INSTANCE_DELETE",
  "STATUS_INSTANCE",
];

Deno.test("event table: every alias follows the server's spelling rules; the config list is derived from it", () => {
  for (const name of WEBHOOK_EVENT_NAMES) {
    const row = WEBHOOK_EVENT_TABLE[name];
    // The server's byEvents suffix: dots and underscores to dashes, lower case.
    strictEqual(row.path, name.replace(/[._]/g, "-").toLowerCase(), name);
    strictEqual(row.kind, name.replace(/[.-]/g, "_").toUpperCase(), name);
    strictEqual(row.config, name === "groups.update" ? "GROUP_UPDATE" : row.kind, name);
    strictEqual(WEBHOOK_EVENTS[row.kind], name);
  }
  deepStrictEqual(Object.keys(WEBHOOK_CONFIG_EVENTS), SERVER_CONFIG_NAMES);
  strictEqual(WEBHOOK_CONFIG_EVENTS, CONFIG_FROM_TABLE);
  strictEqual(WEBHOOK_CONFIG_EVENTS.GROUP_UPDATE, "groups.update");
  strictEqual(WEBHOOK_EVENT_NAMES.length, 32);
  strictEqual(WEBHOOK_EVENTS.MESSAGING_HISTORY_SET, "messaging-history.set");
  strictEqual(Object.hasOwn(WEBHOOK_CONFIG_EVENTS, "MESSAGING_HISTORY_SET"), false);
  strictEqual(dottedWebhookEvent("GROUP_UPDATE"), "groups.update");
  strictEqual(dottedWebhookEvent("group-participants-update"), "group-participants.update");
  strictEqual(dottedWebhookEvent("made.up"), null);
});

Deno.test("on(): the payload is typed by the event name, every spelling included", async () => {
  const seen: string[] = [];
  const processor = new WebhookProcessor({ log: false })
    .on("messages.upsert", (p) => {
      const id: string | undefined = p.data.key.id;
      const kind: "MESSAGES_UPSERT" = p.event;
      // @ts-expect-error status is optional on messages.upsert: not a string for sure
      const status: string = p.data.status;
      seen.push(`${kind}:${id}:${status}`);
    })
    .on("MESSAGES_UPDATE", (p) => void seen.push(`${p.data.keyId}:${p.data.status}`))
    .on("connection-update", (p) => void seen.push(`${p.data.state}:${p.data.statusReason}`))
    .on("group_participants_update", (p) => void seen.push(`${p.data.action}:${p.data.participants.join()}`))
    .on("GROUP_UPDATE", (p) => void seen.push(p.data.map((group) => group.subject).join()))
    .on(["qrcode.updated", "call"], (p) => {
      if (p.event === "QRCODE_UPDATED") seen.push(`qr:${p.data.qrcode?.code}`);
      else seen.push(`call:${p.data.from}:${p.data.status}`);
    });
  await processor.process(payload("messages.upsert", { key: { id: "M1" }, status: "DELIVERY_ACK" }));
  await processor.process(payload("messages.update", { keyId: "M1", status: "READ" }));
  await processor.process(payload("connection.update", { state: "close", statusReason: 401 }));
  await processor.process(
    payload("group-participants.update", { id: "1@g.us", participants: ["2@lid", "3@lid"], action: "add" }),
  );
  await processor.process(payload("groups.update", [{ id: "1@g.us", subject: "Team" }]));
  await processor.process(payload("qrcode.updated", { qrcode: { code: "2@abc" } }));
  await processor.process(payload("call", { id: "C1", from: "5511@s.whatsapp.net", status: "offer" }));
  deepStrictEqual(seen, [
    "MESSAGES_UPSERT:M1:DELIVERY_ACK",
    "M1:READ",
    "close:401",
    "add:2@lid,3@lid",
    "Team",
    "qr:2@abc",
    "call:5511@s.whatsapp.net:offer",
  ]);
  const name: WebhookEventNameOf<"GROUP_UPDATE"> = "groups.update";
  strictEqual(name satisfies WebhookEventName, "groups.update");
});

Deno.test("is(): a type guard for known names", () => {
  const p = payload("messages.update", { keyId: "M9", status: "PLAYED" });
  if (p.is("messages-update")) {
    const id: string = p.data.keyId;
    strictEqual(id, "M9");
  } else {
    throw new Error("messages.update is messages-update");
  }
  const unknownName: string = "made.up";
  strictEqual(p.is(unknownName), false);
});

const VALID = WEBHOOK_EVENT_NAMES.join(", ");

Deno.test("a misspelt event name is a type error and a runtime error listing the valid names", () => {
  const processor = new WebhookProcessor({ log: false });
  throws(
    // @ts-expect-error "mesages.upsert" is not an event name
    () => processor.on("mesages.upsert", () => {}),
    (e: unknown) => {
      strictEqual(e instanceof WebhookException, true);
      strictEqual(
        (e as Error).message,
        `Cannot register webhook handler: "mesages.upsert" is not an event name; valid names: ${VALID}`,
      );
      return true;
    },
  );
  // @ts-expect-error one misspelt name in a list
  throws(() => processor.on(["call", "calls"], () => {}), /"calls" is not an event name; valid names: /);
  // Well-formed but unknown: refused too (it would never match).
  class Typo extends AbstractWebhookHandler {
    protected events = ["message.upsert"];
    handle(): void {}
  }
  throws(() => processor.registerHandler(new Typo()), /"message.upsert" is not an event name; valid names: /);
  strictEqual(processor.handlerCount(), 0);
  // Unknown kinds still arrive (the server adds events) and reach catch-all handlers.
  processor.onAny(() => {});
  strictEqual(processor.handlerCount("made.up"), 1);
});

Deno.test("docs/webhooks.md lists every event of the table with its aliases, in the server's order", async () => {
  const docs = await Deno.readTextFile(new URL("../../docs/webhooks.md", import.meta.url));
  const section = docs.slice(docs.indexOf("### Event names"), docs.indexOf("### Registering handlers"));
  const rows = [...section.matchAll(/^\| `([^`]+)` +\| `([^`]+)` +\| `([^`]+)` +\| `\/([^`]+)` +\|/gm)];
  deepStrictEqual(
    rows.map((row) => row.slice(1, 5)),
    WEBHOOK_EVENT_NAMES.map((name) => {
      const { kind, config, path } = WEBHOOK_EVENT_TABLE[name];
      return [name, kind, config, path];
    }),
  );
});
