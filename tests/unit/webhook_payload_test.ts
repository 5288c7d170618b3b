import { deepStrictEqual, strictEqual } from "node:assert/strict";
import {
  dottedWebhookEvent,
  normalizeWebhookEvent,
  WEBHOOK_EVENTS,
  WebhookPayloadDto,
} from "../../src/webhooks/payload.ts";

Deno.test("normalizeWebhookEvent: dotted, kebab, snake and UPPER_SNAKE give the same kind", () => {
  for (
    const name of [
      "messages.upsert",
      "messages-upsert",
      "messages_upsert",
      "MESSAGES_UPSERT",
      " Messages.Upsert ",
    ]
  ) {
    strictEqual(normalizeWebhookEvent(name), "MESSAGES_UPSERT", name);
  }
  strictEqual(normalizeWebhookEvent("group-participants.update"), "GROUP_PARTICIPANTS_UPDATE");
  strictEqual(normalizeWebhookEvent("group-participants-update"), "GROUP_PARTICIPANTS_UPDATE");
  strictEqual(normalizeWebhookEvent("typebot.change-status"), "TYPEBOT_CHANGE_STATUS");
  strictEqual(normalizeWebhookEvent("typebot-change-status"), "TYPEBOT_CHANGE_STATUS");
  strictEqual(normalizeWebhookEvent("send.message.update"), "SEND_MESSAGE_UPDATE");
  strictEqual(normalizeWebhookEvent("qrcode-updated"), "QRCODE_UPDATED");
  strictEqual(normalizeWebhookEvent("call"), "CALL");
  strictEqual(normalizeWebhookEvent("messaging-history.set"), "MESSAGING_HISTORY_SET");
});

Deno.test("normalizeWebhookEvent: GROUP_UPDATE and GROUPS_UPDATE are one kind (the server's own mismatch)", () => {
  for (const name of ["GROUP_UPDATE", "group_update", "GROUPS_UPDATE", "groups.update", "groups-update"]) {
    strictEqual(normalizeWebhookEvent(name), "GROUPS_UPDATE", name);
  }
});

Deno.test("normalizeWebhookEvent: every known dotted name and its byEvents kebab map back to the kind", () => {
  for (const [kind, dotted] of Object.entries(WEBHOOK_EVENTS)) {
    strictEqual(normalizeWebhookEvent(dotted), kind);
    const kebab = dotted.replace(/[._]/g, "-").toLowerCase();
    strictEqual(normalizeWebhookEvent(kebab), kind);
    strictEqual(dottedWebhookEvent(kind), dotted);
  }
  strictEqual(dottedWebhookEvent("GROUP_UPDATE"), "groups.update");
  strictEqual(dottedWebhookEvent("brand.new"), null);
});

Deno.test("normalizeWebhookEvent: rejects what is not an event name", () => {
  for (
    const name of [
      "",
      "../x",
      "a/b",
      "1abc",
      "x".repeat(65),
      "messages..",
      ".messages",
      "a\u0000b",
      "é",
      "a b;c",
    ]
  ) {
    strictEqual(normalizeWebhookEvent(name), null, JSON.stringify(name));
  }
  strictEqual(normalizeWebhookEvent("brand.new-event"), "BRAND_NEW_EVENT");
});

const upsert = (key: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  event: "messages.upsert",
  instance: "sales",
  data: { key: { id: "3EB0", fromMe: false, ...key }, pushName: "Ana", ...extra },
  destination: "http://app/gateway/webhook/sales",
  date_time: "2025-10-21T11:40:39.123Z",
  sender: "5511000000000@s.whatsapp.net",
  server_url: "http://gw:8080",
  apikey: "instance-token",
});

Deno.test("WebhookPayloadDto: envelope fields and typed accessors", () => {
  const payload = WebhookPayloadDto.from(
    upsert({ remoteJid: "5511999999999@s.whatsapp.net" }, {
      message: { conversation: "olá 👋" },
      messageType: "conversation",
      messageTimestamp: 1_760_000_000,
    }),
    { instance: "from-url", deliveryId: "d1", receivedAt: 42 },
  )!;
  strictEqual(payload.event, "MESSAGES_UPSERT");
  strictEqual(payload.rawEvent, "messages.upsert");
  strictEqual(payload.instance, "sales");
  strictEqual(payload.destination, "http://app/gateway/webhook/sales");
  strictEqual(payload.dateTime, "2025-10-21T11:40:39.123Z");
  strictEqual(payload.sender, "5511000000000@s.whatsapp.net");
  strictEqual(payload.serverUrl, "http://gw:8080");
  strictEqual(payload.apikey, "instance-token");
  strictEqual(payload.deliveryId, "d1");
  strictEqual(payload.receivedAt, 42);
  strictEqual(payload.messageId, "3EB0");
  strictEqual(payload.remoteJid, "5511999999999@s.whatsapp.net");
  strictEqual(payload.fromMe, false);
  strictEqual(payload.text, "olá 👋");
  strictEqual(payload.messageType, "conversation");
  strictEqual(payload.messageTimestamp, 1_760_000_000_000);
  strictEqual(payload.pushName, "Ana");
  strictEqual(payload.isGroup, false);
  strictEqual(payload.isInboundMessage, true);
  strictEqual(payload.senderJid, "5511999999999@s.whatsapp.net");
  strictEqual(payload.senderPhone, "5511999999999");
  strictEqual(payload.is("messages-upsert"), true);
  strictEqual(payload.is("send.message"), false);
  strictEqual((payload.toJSON() as { apikey: string }).apikey, "[REDACTED]");
  strictEqual(JSON.stringify(payload).includes("instance-token"), false);
});

Deno.test("WebhookPayloadDto: @lid private message resolves to the phone-number JID (remoteJidAlt)", () => {
  const payload = WebhookPayloadDto.from(
    upsert({
      remoteJid: "123456789012345@lid",
      remoteJidAlt: "5511999999999@s.whatsapp.net",
      addressingMode: "lid",
    }),
  )!;
  strictEqual(payload.remoteJid, "123456789012345@lid");
  strictEqual(payload.chatJid, "5511999999999@s.whatsapp.net");
  strictEqual(payload.senderJid, "5511999999999@s.whatsapp.net");
  strictEqual(payload.senderLid, "123456789012345@lid");
  strictEqual(payload.senderPhone, "5511999999999");
  strictEqual(payload.addressingMode, "lid");
});

Deno.test("WebhookPayloadDto: pn addressing with the lid as alternate, and older senderPn", () => {
  const pn = WebhookPayloadDto.from(
    upsert({ remoteJid: "5511999999999@s.whatsapp.net", remoteJidAlt: "123@lid", addressingMode: "pn" }),
  )!;
  strictEqual(pn.senderJid, "5511999999999@s.whatsapp.net");
  strictEqual(pn.senderLid, "123@lid");
  const older = WebhookPayloadDto.from(
    upsert({ remoteJid: "123@lid", senderPn: "5511888888888@s.whatsapp.net" }),
  )!;
  strictEqual(older.chatJid, "5511888888888@s.whatsapp.net");
  strictEqual(older.senderJid, "5511888888888@s.whatsapp.net");
  const lidOnly = WebhookPayloadDto.from(upsert({ remoteJid: "123@lid" }))!;
  strictEqual(lidOnly.senderJid, "123@lid");
  strictEqual(lidOnly.senderPhone, undefined);
});

Deno.test("WebhookPayloadDto: group sender from participant / participantAlt", () => {
  const group = WebhookPayloadDto.from(
    upsert({
      remoteJid: "1203630@g.us",
      participant: "999@lid",
      participantAlt: "5511777777777@s.whatsapp.net",
    }),
  )!;
  strictEqual(group.isGroup, true);
  strictEqual(group.chatJid, "1203630@g.us");
  strictEqual(group.senderJid, "5511777777777@s.whatsapp.net");
  strictEqual(group.senderLid, "999@lid");
  const plain = WebhookPayloadDto.from(
    upsert({ remoteJid: "1203630@g.us", participant: "5511@s.whatsapp.net" }),
  )!;
  strictEqual(plain.senderJid, "5511@s.whatsapp.net");
});

Deno.test("WebhookPayloadDto: fromMe messages are not inbound; the sender is the instance", () => {
  const payload = WebhookPayloadDto.from(upsert({ remoteJid: "5511@s.whatsapp.net", fromMe: true }))!;
  strictEqual(payload.isInboundMessage, false);
  strictEqual(payload.senderJid, "5511000000000@s.whatsapp.net");
});

Deno.test("WebhookPayloadDto: captions, extended text and message type fallback", () => {
  const image = WebhookPayloadDto.from(
    upsert({ remoteJid: "1@s.whatsapp.net" }, {
      message: { messageContextInfo: {}, imageMessage: { caption: "look", mimetype: "image/jpeg" } },
    }),
  )!;
  strictEqual(image.text, "look");
  strictEqual(image.messageType, "imageMessage");
  const extended = WebhookPayloadDto.from(
    upsert({ remoteJid: "1@s.whatsapp.net" }, { message: { extendedTextMessage: { text: "long" } } }),
  )!;
  strictEqual(extended.text, "long");
  const none = WebhookPayloadDto.from({ event: "call", data: { id: "c1", from: "x" } })!;
  strictEqual(none.text, undefined);
  strictEqual(none.messageType, undefined);
  strictEqual(none.isInboundMessage, false);
  strictEqual(none.instance, "");
});

Deno.test("WebhookPayloadDto: connection, QR code and status accessors", () => {
  const connection = WebhookPayloadDto.from({
    event: "connection.update",
    instance: "sales",
    data: { instance: "sales", state: "close", statusReason: 401 },
  })!;
  strictEqual(connection.connectionState, "close");
  strictEqual(connection.statusReason, 401);
  const qr = WebhookPayloadDto.from({
    event: "qrcode.updated",
    instance: "sales",
    data: {
      qrcode: { instance: "sales", pairingCode: null, code: "2@abc", base64: "data:image/png;base64,AAA" },
    },
  })!;
  strictEqual(qr.qrCode, "2@abc");
  strictEqual(qr.qrCodeBase64, "data:image/png;base64,AAA");
  strictEqual(qr.pairingCode, undefined);
  strictEqual(qr.connectionState, undefined);
  const update = WebhookPayloadDto.from({
    event: "messages.update",
    data: { keyId: "K1", remoteJid: "1@s.whatsapp.net", fromMe: true, status: "READ" },
  })!;
  strictEqual(update.messageId, "K1");
  strictEqual(update.status, "READ");
  strictEqual(update.fromMe, true);
  const logout = WebhookPayloadDto.from({ event: "logout.instance", instance: "sales", data: null })!;
  strictEqual(logout.data, null);
  deepStrictEqual(logout.dataObject, {});
});

Deno.test("WebhookPayloadDto.from: the instance and event from the URL fill in when the body has none", () => {
  const payload = WebhookPayloadDto.from({ data: {} }, { instance: "sales", event: "messages-upsert" })!;
  strictEqual(payload.event, "MESSAGES_UPSERT");
  strictEqual(payload.rawEvent, "messages-upsert");
  strictEqual(payload.instance, "sales");
  const bodyWins = WebhookPayloadDto.from({ event: "call", instance: "a", data: {} }, {
    instance: "b",
    event: "x",
  })!;
  strictEqual(bodyWins.event, "CALL");
  strictEqual(bodyWins.instance, "a");
});

Deno.test("WebhookPayloadDto.from: null for bodies that are not an envelope", () => {
  for (
    const body of [null, 1, "x", [], [{ event: "call" }], {}, { event: 5 }, { event: "" }, { event: "../x" }]
  ) {
    strictEqual(WebhookPayloadDto.from(body), null, JSON.stringify(body));
  }
  strictEqual(WebhookPayloadDto.from({ event: "call", instance: 7 }), null);
  strictEqual(WebhookPayloadDto.from({ event: null }, { event: "call" }), null);
});

Deno.test("WebhookPayloadDto: senderPhone is the number before a device suffix, and only digits are a number", () => {
  const phoneOf = (remoteJid: string) => WebhookPayloadDto.from(upsert({ remoteJid }))!.senderPhone;
  strictEqual(phoneOf("5511999999999:12@s.whatsapp.net"), "5511999999999");
  strictEqual(phoneOf("5511999999999@s.whatsapp.net"), "5511999999999");
  strictEqual(phoneOf(":12@s.whatsapp.net"), undefined);
  strictEqual(phoneOf("55119x9999999@s.whatsapp.net"), undefined);
  strictEqual(phoneOf("@s.whatsapp.net"), undefined);
  strictEqual(phoneOf("5511999999999@lid"), undefined);
});
