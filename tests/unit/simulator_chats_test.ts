import { deepStrictEqual, ok, strictEqual, throws } from "node:assert/strict";
import { call, createInstance, newSim, openInstance } from "../helpers/simulator.ts";

const PHONE = "5511999999999";
const JID = `${PHONE}@s.whatsapp.net`;

Deno.test("simulator: inbound messages are emitted as messages.upsert and stored", async () => {
  const sim = newSim({ now: () => 1_700_000_000_000 });
  await openInstance(sim);
  const raw = sim.simulateInboundMessage("sales", { from: PHONE, text: "Hi there", pushName: "Ana" });
  strictEqual((raw.key as Record<string, unknown>).fromMe, false);
  strictEqual((raw.key as Record<string, unknown>).remoteJid, JID);
  ok(/^[0-9A-F]{32}$/.test(String((raw.key as Record<string, unknown>).id)));
  strictEqual(raw.pushName, "Ana");
  strictEqual(raw.status, "DELIVERY_ACK");
  deepStrictEqual(raw.message, { conversation: "Hi there" });
  strictEqual(raw.messageType, "conversation");
  strictEqual(raw.messageTimestamp, 1_700_000_000);
  const event = sim.events.at(-1)!;
  strictEqual(event.event, "messages.upsert");
  deepStrictEqual(event.data, raw);

  const chats = await call(sim, "POST", "/chat/findChats/sales", {});
  strictEqual(chats.status, 200);
  strictEqual(chats.body.length, 1);
  strictEqual(chats.body[0].remoteJid, JID);
  strictEqual(chats.body[0].pushName, "Ana");
  strictEqual(chats.body[0].unreadCount, 1);
  strictEqual(chats.body[0].lastMessage.key.id, (raw.key as Record<string, unknown>).id);
  const contacts = await call(sim, "POST", "/chat/findContacts/sales", {});
  strictEqual(contacts.body.length, 1);
  strictEqual(contacts.body[0].remoteJid, JID);
  strictEqual(contacts.body[0].pushName, "Ana");
  strictEqual(contacts.body[0].type, "contact");
  await sim.close();
});

Deno.test("simulator: inbound messages can use LID addressing", async () => {
  const sim = newSim();
  await openInstance(sim);
  const raw = sim.simulateInboundMessage("sales", { from: PHONE, text: "Hi", fromLid: "123456789012345" });
  deepStrictEqual({ ...raw.key as Record<string, unknown>, id: "" }, {
    remoteJid: "123456789012345@lid",
    fromMe: false,
    id: "",
    remoteJidAlt: JID,
    addressingMode: "lid",
  });
  await sim.close();
});

Deno.test("simulator: inbound needs an open instance", async () => {
  const sim = newSim();
  await createInstance(sim, "sales");
  throws(
    () => sim.simulateInboundMessage("sales", { from: PHONE, text: "x" }),
    /Cannot simulate inbound message: instance "sales" is not open/,
  );
  await sim.close();
});

Deno.test("simulator: findMessages pages with page/offset, newest first, and filters by key", async () => {
  let now = 1_700_000_000_000;
  const sim = newSim({ now: () => now });
  await openInstance(sim);
  for (let i = 0; i < 5; i++) {
    now += 1000;
    await call(sim, "POST", "/message/sendText/sales", { number: PHONE, text: `out ${i}` });
  }
  now += 1000;
  sim.simulateInboundMessage("sales", { from: "5511977776666", text: "in" });
  const page1 = await call(sim, "POST", "/chat/findMessages/sales", { page: 1, offset: 2 });
  strictEqual(page1.status, 200);
  strictEqual(page1.body.messages.total, 6);
  strictEqual(page1.body.messages.pages, 3);
  strictEqual(page1.body.messages.currentPage, 1);
  deepStrictEqual(
    page1.body.messages.records.map((r: { message: { conversation: string } }) => r.message.conversation),
    [
      "in",
      "out 4",
    ],
  );
  const page3 = await call(sim, "POST", "/chat/findMessages/sales", { page: 3, offset: 2 });
  deepStrictEqual(
    page3.body.messages.records.map((r: { message: { conversation: string } }) => r.message.conversation),
    [
      "out 1",
      "out 0",
    ],
  );
  const filtered = await call(sim, "POST", "/chat/findMessages/sales", {
    where: { key: { remoteJid: JID } },
  });
  strictEqual(filtered.body.messages.total, 5);
  strictEqual(filtered.body.messages.pages, 1);
  const inbound = await call(sim, "POST", "/chat/findMessages/sales", { where: { key: { fromMe: false } } });
  strictEqual(inbound.body.messages.total, 1);
  const record = inbound.body.messages.records[0];
  deepStrictEqual(Object.keys(record), [
    "id",
    "key",
    "pushName",
    "messageType",
    "message",
    "messageTimestamp",
    "instanceId",
    "source",
    "contextInfo",
    "MessageUpdate",
  ]);
  const ranged = await call(sim, "POST", "/chat/findMessages/sales", {
    where: { messageTimestamp: { gte: 1_700_000_002, lte: 1_700_000_003 } },
  });
  strictEqual(ranged.body.messages.total, 2);
  await sim.close();
});

Deno.test("simulator: status updates are emitted, stored and visible to the finders", async () => {
  const sim = newSim();
  await openInstance(sim);
  const sent = await call(sim, "POST", "/message/sendText/sales", { number: PHONE, text: "x" });
  sim.simulateStatusUpdate("sales", { messageId: sent.body.key.id, status: "READ" });
  const event = sim.events.at(-1)!;
  strictEqual(event.event, "messages.update");
  const data = event.data as Record<string, unknown>;
  strictEqual(data.keyId, sent.body.key.id);
  strictEqual(data.remoteJid, JID);
  strictEqual(data.fromMe, true);
  strictEqual(data.status, "READ");
  strictEqual(data.instanceId, sim.instance("sales")?.id);
  strictEqual(typeof data.messageId, "string");
  const rows = await call(sim, "POST", "/chat/findStatusMessage/sales", { where: { id: sent.body.key.id } });
  strictEqual(rows.body.length, 1);
  strictEqual(rows.body[0].status, "READ");
  const found = await call(sim, "POST", "/chat/findMessages/sales", {
    where: { key: { id: sent.body.key.id } },
  });
  deepStrictEqual(found.body.messages.records[0].MessageUpdate, [{ status: "READ" }]);
  throws(() => sim.simulateStatusUpdate("sales", { messageId: "NOPE", status: "READ" }), /is not stored/);
  await sim.close();
});

Deno.test("simulator: findChatByRemoteJid needs the query and answers a row or null", async () => {
  const sim = newSim();
  await openInstance(sim);
  const missing = await call(sim, "GET", "/chat/findChatByRemoteJid/sales");
  strictEqual(missing.status, 400);
  deepStrictEqual(missing.body, { error: "remoteJid is a required query parameter" });
  strictEqual((await call(sim, "GET", `/chat/findChatByRemoteJid/sales?remoteJid=${JID}`)).body, null);
  await call(sim, "POST", "/message/sendText/sales", { number: PHONE, text: "x" });
  strictEqual(
    (await call(sim, "GET", `/chat/findChatByRemoteJid/sales?remoteJid=${JID}`)).body.remoteJid,
    JID,
  );
  await sim.close();
});

Deno.test("simulator: whatsappNumbers answers per number and errors unwrapped", async () => {
  const sim = newSim();
  await createInstance(sim, "sales");
  const never = await call(sim, "POST", "/chat/whatsappNumbers/sales", { numbers: [PHONE] });
  strictEqual(never.status, 400);
  deepStrictEqual(never.body, {});
  await call(sim, "GET", "/instance/connect/sales");
  const closed = await call(sim, "POST", "/chat/whatsappNumbers/sales", { numbers: [PHONE] });
  strictEqual(closed.status, 400);
  strictEqual(closed.body.output.payload.message, "Connection Closed");
  sim.simulateScan("sales");
  const invalid = await call(sim, "POST", "/chat/whatsappNumbers/sales", { numbers: [] });
  strictEqual(invalid.status, 400);
  deepStrictEqual(invalid.body, {
    status: 400,
    error: "Bad Request",
    message: [["numbers does not meet minimum length of 1"]],
  });
  sim.setNotOnWhatsApp("5511000000000");
  const res = await call(sim, "POST", "/chat/whatsappNumbers/sales", { numbers: [PHONE, "5511000000000"] });
  strictEqual(res.status, 200);
  deepStrictEqual(res.body, [
    { jid: JID, exists: true, number: PHONE },
    { jid: "5511000000000@s.whatsapp.net", exists: false, number: "5511000000000" },
  ]);
  await sim.close();
});

Deno.test("simulator: chat actions answer with their codes and bodies", async () => {
  const sim = newSim();
  await openInstance(sim);
  const inbound = sim.simulateInboundMessage("sales", { from: PHONE, text: "hi" });
  const key = inbound.key as { id: string; remoteJid: string; fromMe: boolean };
  const read = await call(sim, "POST", "/chat/markMessageAsRead/sales", { readMessages: [key] });
  strictEqual(read.status, 201);
  deepStrictEqual(read.body, { message: "Read messages", read: "success" });
  strictEqual((await call(sim, "POST", "/chat/findChats/sales", {})).body[0].unreadCount, 0);
  const archive = await call(sim, "POST", "/chat/archiveChat/sales", { chat: PHONE, archive: true });
  strictEqual(archive.status, 201);
  deepStrictEqual(archive.body, { chatId: JID, archived: true });
  const noArchive = await call(sim, "POST", "/chat/archiveChat/sales", { chat: PHONE });
  deepStrictEqual(noArchive.body.response.message, [['instance requires property "archive"']]);
  const unread = await call(sim, "POST", "/chat/markChatUnread/sales", {
    lastMessage: { key, messageTimestamp: 1 },
  });
  strictEqual(unread.status, 201);
  deepStrictEqual(unread.body, { chatId: JID, markedChatUnread: true });
  const presence = await call(sim, "POST", "/chat/sendPresence/sales", {
    number: PHONE,
    presence: "composing",
    delay: 0,
  });
  strictEqual(presence.status, 201);
  deepStrictEqual(presence.body, { presence: "composing" });
  const presenceMissing = await call(sim, "POST", "/chat/sendPresence/sales", {
    number: PHONE,
    presence: "composing",
  });
  deepStrictEqual(presenceMissing.body.response.message, [['instance requires property "delay"']]);
  const block = await call(sim, "POST", "/chat/updateBlockStatus/sales", { number: PHONE, status: "block" });
  strictEqual(block.status, 201);
  deepStrictEqual(block.body, { block: "success" });
  await sim.close();
});

Deno.test("simulator: deleteMessageForEveryone revokes and emits messages.delete", async () => {
  const sim = newSim();
  await openInstance(sim);
  const sent = await call(sim, "POST", "/message/sendText/sales", { number: PHONE, text: "oops" });
  const res = await call(sim, "DELETE", "/chat/deleteMessageForEveryone/sales", {
    id: sent.body.key.id,
    fromMe: true,
    remoteJid: JID,
  });
  strictEqual(res.status, 201);
  deepStrictEqual(res.body.message.protocolMessage, {
    key: { remoteJid: JID, fromMe: true, id: sent.body.key.id },
    type: "REVOKE",
  });
  const event = sim.events.at(-1)!;
  strictEqual(event.event, "messages.delete");
  strictEqual((event.data as { status: string }).status, "DELETED");
  await sim.close();
});

Deno.test("simulator: updateMessage edits own messages and emits send.message.update", async () => {
  const sim = newSim();
  await openInstance(sim);
  const sent = await call(sim, "POST", "/message/sendText/sales", { number: PHONE, text: "teh" });
  const res = await call(sim, "POST", "/chat/updateMessage/sales", {
    number: PHONE,
    key: sent.body.key,
    text: "the",
  });
  strictEqual(res.status, 200);
  strictEqual(res.body.message.protocolMessage.type, "MESSAGE_EDIT");
  deepStrictEqual(res.body.message.protocolMessage.editedMessage, { conversation: "the" });
  strictEqual(sim.events.at(-1)?.event, "send.message.update");
  const found = await call(sim, "POST", "/chat/findMessages/sales", {
    where: { key: { id: sent.body.key.id } },
  });
  deepStrictEqual(found.body.messages.records[0].message, { conversation: "the" });
  const missing = await call(sim, "POST", "/chat/updateMessage/sales", {
    number: PHONE,
    key: { id: "NOPE", remoteJid: JID, fromMe: true },
    text: "x",
  });
  strictEqual(missing.status, 404);
  const inbound = sim.simulateInboundMessage("sales", { from: PHONE, text: "theirs" });
  const others = await call(sim, "POST", "/chat/updateMessage/sales", {
    number: PHONE,
    key: inbound.key,
    text: "x",
  });
  deepStrictEqual(others.body.response.message, ["You cannot edit others messages"]);
  await sim.close();
});

Deno.test("simulator: getBase64FromMediaMessage returns the media that was sent", async () => {
  const sim = newSim();
  await openInstance(sim);
  const sent = await call(sim, "POST", "/message/sendMedia/sales", {
    number: PHONE,
    mediatype: "document",
    media: "aGVsbG8=",
    fileName: "hello.txt",
  });
  const res = await call(sim, "POST", "/chat/getBase64FromMediaMessage/sales", {
    message: { key: { id: sent.body.key.id } },
  });
  strictEqual(res.status, 201);
  strictEqual(res.body.mediaType, "document");
  strictEqual(res.body.fileName, "hello.txt");
  strictEqual(res.body.mimetype, "text/plain");
  strictEqual(res.body.base64, "aGVsbG8=");
  strictEqual(res.body.buffer, null);
  const text = await call(sim, "POST", "/message/sendText/sales", { number: PHONE, text: "x" });
  const notMedia = await call(sim, "POST", "/chat/getBase64FromMediaMessage/sales", {
    message: { key: { id: text.body.key.id } },
  });
  deepStrictEqual(notMedia.body.response.message, ["The message is not of the media type"]);
  await sim.close();
});

Deno.test("simulator: profile routes", async () => {
  const sim = newSim();
  await openInstance(sim);
  const own = await call(sim, "POST", "/chat/fetchProfile/sales", {});
  strictEqual(own.status, 200);
  strictEqual(own.body.wuid, "5511988887777@s.whatsapp.net");
  strictEqual(own.body.name, "Sales");
  strictEqual(own.body.numberExists, true);
  const name = await call(sim, "POST", "/chat/updateProfileName/sales", { name: "New Name" });
  strictEqual(name.status, 200);
  deepStrictEqual(name.body, { update: "success" });
  strictEqual((await call(sim, "POST", "/chat/fetchProfile/sales", {})).body.name, "New Name");
  deepStrictEqual((await call(sim, "POST", "/chat/updateProfileStatus/sales", { status: "Busy" })).body, {
    update: "success",
  });
  const pic = await call(sim, "POST", "/chat/updateProfilePicture/sales", {
    picture: "https://example.com/me.jpg",
  });
  deepStrictEqual(pic.body, { update: "success" });
  deepStrictEqual(
    (await call(sim, "POST", "/chat/fetchProfilePictureUrl/sales", { number: "5511988887777" })).body,
    {
      wuid: "5511988887777@s.whatsapp.net",
      profilePictureUrl: "https://example.com/me.jpg",
    },
  );
  strictEqual((await call(sim, "DELETE", "/chat/removeProfilePicture/sales")).status, 200);
  deepStrictEqual((await call(sim, "POST", "/chat/fetchProfilePictureUrl/sales", { number: PHONE })).body, {
    wuid: JID,
    profilePictureUrl: null,
  });
  const business = await call(sim, "POST", "/chat/fetchBusinessProfile/sales", { number: PHONE });
  deepStrictEqual(business.body, {
    isBusiness: false,
    message: "Not is business profile",
    exists: true,
    jid: JID,
    number: PHONE,
  });
  sim.setNotOnWhatsApp("5511000000000");
  const nobody = await call(sim, "POST", "/chat/fetchProfile/sales", { number: "5511000000000" });
  strictEqual(nobody.status, 400);
  strictEqual(nobody.body.response.message[0].exists, false);
  await sim.close();
});

Deno.test("simulator: privacy settings", async () => {
  const sim = newSim();
  await openInstance(sim);
  const current = await call(sim, "GET", "/chat/fetchPrivacySettings/sales");
  strictEqual(current.status, 200);
  deepStrictEqual(Object.keys(current.body), [
    "readreceipts",
    "profile",
    "status",
    "online",
    "last",
    "groupadd",
  ]);
  const partial = await call(sim, "POST", "/chat/updatePrivacySettings/sales", { readreceipts: "none" });
  strictEqual(partial.status, 400);
  strictEqual(partial.body.response.message[0].length, 5);
  const all = {
    readreceipts: "none",
    profile: "contacts",
    status: "none",
    online: "match_last_seen",
    last: "none",
    groupadd: "contacts",
  };
  const res = await call(sim, "POST", "/chat/updatePrivacySettings/sales", all);
  strictEqual(res.status, 201);
  deepStrictEqual(res.body, { update: "success", data: all });
  deepStrictEqual((await call(sim, "GET", "/chat/fetchPrivacySettings/sales")).body, all);
  await sim.close();
});

Deno.test("simulator: socket-bound chat routes fail like the server when closed", async () => {
  const sim = newSim();
  await createInstance(sim, "sales");
  await call(sim, "GET", "/instance/connect/sales");
  const privacy = await call(sim, "GET", "/chat/fetchPrivacySettings/sales");
  strictEqual(privacy.status, 500);
  strictEqual(privacy.body.response.message, "Connection Closed");
  const name = await call(sim, "POST", "/chat/updateProfileName/sales", { name: "x" });
  strictEqual(name.status, 500);
  deepStrictEqual(name.body.response.message, ["Error updating profile name", "Error: Connection Closed"]);
  const read = await call(sim, "POST", "/chat/markMessageAsRead/sales", {
    readMessages: [{ id: "A", fromMe: false, remoteJid: JID }],
  });
  deepStrictEqual(read.body.response.message, ["Read messages fail", "Error: Connection Closed"]);
  // Stored data stays readable.
  strictEqual((await call(sim, "POST", "/chat/findChats/sales", {})).status, 200);
  await sim.close();
});
