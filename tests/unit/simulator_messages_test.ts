import { deepStrictEqual, ok, strictEqual } from "node:assert/strict";
import { call, createInstance, newSim, openInstance } from "../helpers/simulator.ts";

const CLOSED = { status: 500, error: "Internal Server Error", response: { message: "Connection Closed" } };

Deno.test("simulator: sendText answers 201 with the messageRaw", async () => {
  const sim = newSim({ now: () => 1_700_000_000_123 });
  await openInstance(sim);
  const res = await call(sim, "POST", "/message/sendText/sales", {
    number: "+55 (11) 99999-9999",
    text: "Hello",
  });
  strictEqual(res.status, 201);
  const raw = res.body;
  deepStrictEqual(Object.keys(raw), [
    "key",
    "pushName",
    "status",
    "message",
    "contextInfo",
    "messageType",
    "messageTimestamp",
    "instanceId",
    "source",
  ]);
  strictEqual(raw.key.remoteJid, "5511999999999@s.whatsapp.net");
  strictEqual(raw.key.fromMe, true);
  ok(/^[0-9A-F]{20,32}$/.test(raw.key.id), raw.key.id);
  strictEqual(raw.pushName, "Você");
  strictEqual(raw.status, "PENDING");
  deepStrictEqual(raw.message, { conversation: "Hello" });
  strictEqual(raw.messageType, "conversation");
  strictEqual(raw.messageTimestamp, 1_700_000_000);
  strictEqual(raw.instanceId, sim.instance("sales")?.id);
  strictEqual(raw.source, "web");
  // Logged, stored and emitted.
  strictEqual(sim.sentMessages.length, 1);
  strictEqual(sim.sentMessages[0].operation, "sendText");
  strictEqual(sim.sentMessages[0].text, "Hello");
  strictEqual(sim.sentMessages[0].remoteJid, "5511999999999@s.whatsapp.net");
  const event = sim.events.at(-1)!;
  strictEqual(event.event, "send.message");
  deepStrictEqual(event.data, raw);
  await sim.close();
});

Deno.test("simulator: message ids are unique", async () => {
  const sim = newSim();
  await openInstance(sim);
  const ids = new Set<string>();
  for (let i = 0; i < 50; i++) {
    ids.add(
      (await call(sim, "POST", "/message/sendText/sales", { number: "5511999999999", text: `m${i}` })).body
        .key.id,
    );
  }
  strictEqual(ids.size, 50);
  await sim.close();
});

Deno.test("simulator: sendText validation errors are nested arrays", async () => {
  const sim = newSim();
  await openInstance(sim);
  const missing = await call(sim, "POST", "/message/sendText/sales", { number: "5511999999999" });
  strictEqual(missing.status, 400);
  deepStrictEqual(missing.body, {
    status: 400,
    error: "Bad Request",
    response: { message: [['instance requires property "text"']] },
  });
  const both = await call(sim, "POST", "/message/sendText/sales", {});
  deepStrictEqual(both.body.response.message, [[
    'instance requires property "number"',
    'instance requires property "text"',
  ]]);
  const badNumber = await call(sim, "POST", "/message/sendText/sales", { number: 5511, text: "x" });
  deepStrictEqual(badNumber.body.response.message, [["Invalid format"]]);
  const badDelay = await call(sim, "POST", "/message/sendText/sales", { number: "1", text: "x", delay: 1.5 });
  deepStrictEqual(badDelay.body.response.message, [["Enter a value in milliseconds"]]);
  const blank = await call(sim, "POST", "/message/sendText/sales", { number: "1", text: "   " });
  deepStrictEqual(blank.body.response.message, ["Text is required"]);
  strictEqual(sim.sentMessages.length, 0);
  await sim.close();
});

Deno.test("simulator: sends fail with the server's errors when the instance is not open", async () => {
  const sim = newSim();
  await createInstance(sim, "sales");
  const never = await call(sim, "POST", "/message/sendText/sales", { number: "5511999999999", text: "x" });
  strictEqual(never.status, 500);
  deepStrictEqual(never.body, {
    status: 500,
    error: "Internal Server Error",
    response: { message: "Cannot read properties of undefined (reading 'onWhatsApp')" },
  });
  await call(sim, "GET", "/instance/connect/sales");
  const connecting = await call(sim, "POST", "/message/sendText/sales", {
    number: "5511999999999",
    text: "x",
  });
  strictEqual(connecting.status, 500);
  deepStrictEqual(connecting.body, CLOSED);
  sim.simulateScan("sales");
  await call(sim, "DELETE", "/instance/logout/sales");
  deepStrictEqual(
    (await call(sim, "POST", "/message/sendText/sales", { number: "1", text: "x" })).body,
    CLOSED,
  );
  // Validation still comes first.
  strictEqual((await call(sim, "POST", "/message/sendText/sales", { number: "1" })).status, 400);
  await sim.close();
});

Deno.test("simulator: numbers marked not on WhatsApp fail with exists:false", async () => {
  const sim = newSim();
  await openInstance(sim);
  sim.setNotOnWhatsApp("5511000000000");
  const res = await call(sim, "POST", "/message/sendText/sales", { number: "5511000000000", text: "x" });
  strictEqual(res.status, 400);
  deepStrictEqual(res.body, {
    status: 400,
    error: "Bad Request",
    response: { message: [{ jid: "5511000000000@s.whatsapp.net", exists: false, number: "5511000000000" }] },
  });
  sim.setOnWhatsApp("5511000000000");
  strictEqual(
    (await call(sim, "POST", "/message/sendText/sales", { number: "5511000000000", text: "x" })).status,
    201,
  );
  await sim.close();
});

Deno.test("simulator: numbers are normalised like createJid", async () => {
  const sim = newSim();
  await openInstance(sim);
  const send = async (number: string) =>
    (await call(sim, "POST", "/message/sendText/sales", { number, text: "x" })).body.key.remoteJid;
  strictEqual(await send("5531999998888"), "553199998888@s.whatsapp.net");
  strictEqual(await send("5511999998888"), "5511999998888@s.whatsapp.net");
  strictEqual(await send("5215512345678"), "525512345678@s.whatsapp.net");
  strictEqual(await send("123456@lid"), "123456@lid");
  await sim.close();
});

Deno.test("simulator: group sends need a known group", async () => {
  const sim = newSim();
  await openInstance(sim);
  const unknown = await call(sim, "POST", "/message/sendText/sales", {
    number: "120363000000000001@g.us",
    text: "x",
  });
  strictEqual(unknown.status, 400);
  deepStrictEqual(unknown.body.response.message, ["[object Object]"]);
  const group = await call(sim, "POST", "/group/create/sales", {
    subject: "Team",
    participants: ["5511911112222"],
  });
  const res = await call(sim, "POST", "/message/sendText/sales", {
    number: group.body.id,
    text: "hi all",
    mentionsEveryOne: true,
  });
  strictEqual(res.status, 201);
  strictEqual(res.body.key.remoteJid, group.body.id);
  deepStrictEqual(res.body.contextInfo.mentionedJid, [
    "5511988887777@s.whatsapp.net",
    "5511911112222@s.whatsapp.net",
  ]);
  await sim.close();
});

Deno.test("simulator: sendMedia checks the media source and builds the typed message", async () => {
  const sim = newSim();
  await openInstance(sim);
  const base = { number: "5511999999999", mediatype: "document" };
  const noFileName = await call(sim, "POST", "/message/sendMedia/sales", { ...base, media: "aGVsbG8=" });
  deepStrictEqual(noFileName.body.response.message, ["For base64 the file name must be informed."]);
  const dataUri = await call(sim, "POST", "/message/sendMedia/sales", {
    ...base,
    media: "data:application/pdf;base64,aGVsbG8=",
  });
  deepStrictEqual(dataUri.body.response.message, ["Owned media must be a url or base64"]);
  const badType = await call(sim, "POST", "/message/sendMedia/sales", {
    ...base,
    mediatype: "gif",
    media: "x",
  });
  deepStrictEqual(badType.body.response.message, [[
    "mediatype is not one of enum values: image,document,video,audio",
  ]]);
  const res = await call(sim, "POST", "/message/sendMedia/sales", {
    number: "5511999999999",
    mediatype: "image",
    media: "https://example.com/cat.jpg",
    caption: "A cat",
  });
  strictEqual(res.status, 201);
  strictEqual(res.body.messageType, "imageMessage");
  strictEqual(res.body.message.imageMessage.caption, "A cat");
  strictEqual(res.body.message.imageMessage.fileName, "image.png");
  strictEqual(res.body.message.imageMessage.mimetype, "image/png");
  const doc = await call(sim, "POST", "/message/sendMedia/sales", {
    ...base,
    media: "aGVsbG8=",
    fileName: "report.pdf",
  });
  strictEqual(doc.body.message.documentMessage.mimetype, "application/pdf");
  strictEqual(doc.body.message.documentMessage.fileLength, "5");
  await sim.close();
});

Deno.test("simulator: sendMedia accepts a multipart file", async () => {
  const sim = newSim();
  await openInstance(sim);
  const form = new FormData();
  form.append("number", "5511999999999");
  form.append("mediatype", "document");
  form.append("file", new File([new TextEncoder().encode("hello")], "hello.txt", { type: "text/plain" }));
  const res = await sim.handle(
    new Request("http://gateway.test/message/sendMedia/sales", {
      method: "POST",
      headers: { apikey: sim.apiKey },
      body: form,
    }),
  );
  strictEqual(res.status, 201);
  const body = await res.json();
  strictEqual(body.message.documentMessage.fileName, "hello.txt");
  strictEqual(body.message.documentMessage.mimetype, "text/plain");
  await sim.close();
});

Deno.test("simulator: the other media sends", async () => {
  const sim = newSim();
  await openInstance(sim);
  const n = { number: "5511999999999" };
  const url = "https://example.com/a.bin";
  const ptv = await call(sim, "POST", "/message/sendPtv/sales", { ...n, video: url });
  strictEqual(ptv.body.messageType, "ptvMessage");
  const audio = await call(sim, "POST", "/message/sendWhatsAppAudio/sales", { ...n, audio: url });
  strictEqual(audio.body.messageType, "audioMessage");
  strictEqual(audio.body.message.audioMessage.ptt, true);
  const noAudio = await call(sim, "POST", "/message/sendWhatsAppAudio/sales", n);
  deepStrictEqual(noAudio.body.response.message, [
    "Owned media must be a url, base64, or valid file with buffer",
  ]);
  const sticker = await call(sim, "POST", "/message/sendSticker/sales", { ...n, sticker: url });
  strictEqual(sticker.body.messageType, "stickerMessage");
  strictEqual((await call(sim, "POST", "/message/sendSticker/sales", n)).status, 400);
  await sim.close();
});

Deno.test("simulator: sendLocation, sendContact, sendPoll, sendList", async () => {
  const sim = newSim();
  await openInstance(sim);
  const n = { number: "5511999999999" };
  const loc = await call(sim, "POST", "/message/sendLocation/sales", {
    ...n,
    latitude: -23.5,
    longitude: -46.6,
    name: "Office",
    address: "Av. Paulista",
  });
  strictEqual(loc.status, 201);
  deepStrictEqual(loc.body.message.locationMessage, {
    degreesLatitude: -23.5,
    degreesLongitude: -46.6,
    name: "Office",
    address: "Av. Paulista",
  });
  const locMissing = await call(sim, "POST", "/message/sendLocation/sales", { ...n, latitude: 1 });
  deepStrictEqual(locMissing.body.response.message, [[
    'instance requires property "longitude"',
    'instance requires property "name"',
    'instance requires property "address"',
  ]]);
  const contact = await call(sim, "POST", "/message/sendContact/sales", {
    ...n,
    contact: [{ fullName: "Ana", phoneNumber: "5511977776666" }],
  });
  strictEqual(contact.body.messageType, "contactMessage");
  ok(contact.body.message.contactMessage.vcard.includes("FN:Ana"));
  const shortPhone = await call(sim, "POST", "/message/sendContact/sales", {
    ...n,
    contact: [{ fullName: "Ana", phoneNumber: "123" }],
  });
  deepStrictEqual(shortPhone.body.response.message, [[
    "contact[0].phoneNumber does not meet minimum length of 10",
  ]]);
  const poll = await call(sim, "POST", "/message/sendPoll/sales", {
    ...n,
    name: "Lunch?",
    selectableCount: 1,
    values: ["Yes", "No"],
  });
  strictEqual(poll.body.messageType, "pollCreationMessageV3");
  const pollBad = await call(sim, "POST", "/message/sendPoll/sales", {
    ...n,
    name: "Lunch?",
    selectableCount: 11,
    values: ["Yes"],
  });
  deepStrictEqual(pollBad.body.response.message, [[
    "selectableCount must be less than or equal to 10",
    "values does not meet minimum length of 2",
  ]]);
  const list = await call(sim, "POST", "/message/sendList/sales", {
    ...n,
    title: "Menu",
    footerText: "f",
    buttonText: "Open",
    sections: [{ title: "S", rows: [{ title: "R", rowId: "r1" }] }],
  });
  strictEqual(list.status, 201);
  strictEqual(list.body.message.listMessage.listType, 2);
  await sim.close();
});

Deno.test("simulator: sendReaction targets key.remoteJid and checks the emoji", async () => {
  const sim = newSim();
  await openInstance(sim);
  const key = { id: "3EB0ABC", remoteJid: "5511999999999@s.whatsapp.net", fromMe: false };
  const res = await call(sim, "POST", "/message/sendReaction/sales", { key, reaction: "👍" });
  strictEqual(res.status, 201);
  strictEqual(res.body.key.remoteJid, "5511999999999@s.whatsapp.net");
  strictEqual(res.body.messageType, "reactionMessage");
  strictEqual((await call(sim, "POST", "/message/sendReaction/sales", { key, reaction: "" })).status, 201);
  const word = await call(sim, "POST", "/message/sendReaction/sales", { key, reaction: "ok" });
  deepStrictEqual(word.body.response.message, ['"reaction" must be an emoji']);
  const noKey = await call(sim, "POST", "/message/sendReaction/sales", { key: { id: "x" }, reaction: "👍" });
  deepStrictEqual(noKey.body.response.message, [[
    'key requires property "remoteJid"',
    'key requires property "fromMe"',
  ]]);
  await sim.close();
});

Deno.test("simulator: sendButtons enforces the button rules", async () => {
  const sim = newSim();
  await openInstance(sim);
  const n = { number: "5511999999999", title: "Pick" };
  const reply = (id: string) => ({ type: "reply", displayText: id, id });
  const send = (buttons: unknown) => call(sim, "POST", "/message/sendButtons/sales", { ...n, buttons });
  deepStrictEqual(
    (await send(undefined)).body.response.message,
    "Cannot read properties of undefined (reading 'length')",
  );
  deepStrictEqual((await send([])).body.response.message, ["At least one button is required"]);
  deepStrictEqual((await send(["a", "b", "c", "d"].map(reply))).body.response.message, [
    "Maximum of 3 reply buttons allowed",
  ]);
  deepStrictEqual(
    (await send([reply("a"), { type: "url", displayText: "x", url: "https://x" }])).body.response.message,
    [
      "Reply buttons cannot be mixed with other button types",
    ],
  );
  deepStrictEqual((await send([{ type: "pix" }, { type: "pix" }])).body.response.message, [
    "Only one PIX button is allowed",
  ]);
  const ok201 = await send([reply("a"), reply("b")]);
  strictEqual(ok201.status, 201);
  strictEqual(ok201.body.messageType, "interactiveMessage");
  await sim.close();
});

Deno.test("simulator: sendStatus rules and the status@broadcast target", async () => {
  const sim = newSim();
  await openInstance(sim);
  const send = (body: unknown) => call(sim, "POST", "/message/sendStatus/sales", body);
  deepStrictEqual((await send({})).body.response.message, [['instance requires property "type"']]);
  deepStrictEqual((await send({ type: "text" })).body.response.message, ["Content is required"]);
  deepStrictEqual((await send({ type: "text", content: "hi" })).body.response.message, [
    "StatusJidList is required",
  ]);
  deepStrictEqual(
    (await send({ type: "text", content: "hi", statusJidList: ["5511"] })).body.response.message,
    [
      "Background color is required",
    ],
  );
  deepStrictEqual((await send({ type: "text", content: "hi", allContacts: true })).body.response.message, [
    "Contacts not found",
  ]);
  deepStrictEqual(
    (await send({ type: "text", content: "hi", statusJidList: ["5511"], backgroundColor: "#000", font: 0 }))
      .body
      .response.message,
    ["Font is required"],
  );
  const res = await send({
    type: "text",
    content: "hi",
    statusJidList: ["5511"],
    backgroundColor: "#000",
    font: 1,
  });
  strictEqual(res.status, 201);
  strictEqual(res.body.key.remoteJid, "status@broadcast");
  await sim.close();
});

Deno.test("simulator: sendTemplate is for Cloud API instances only", async () => {
  const sim = newSim();
  await openInstance(sim);
  const missing = await call(sim, "POST", "/message/sendTemplate/sales", { number: "1" });
  deepStrictEqual(missing.body.response.message, [[
    'instance requires property "name"',
    'instance requires property "language"',
  ]]);
  const baileys = await call(sim, "POST", "/message/sendTemplate/sales", {
    number: "1",
    name: "t",
    language: "en",
  });
  strictEqual(baileys.status, 500);
  strictEqual(baileys.body.response.message, "Method not available in the Baileys service");
  await call(sim, "POST", "/instance/create", {
    instanceName: "biz",
    integration: "WHATSAPP-BUSINESS",
    token: "meta",
    number: "5511977776666",
  });
  const meta = await call(sim, "POST", "/message/sendTemplate/biz", {
    number: "5511999999999",
    name: "t",
    language: "en",
  });
  strictEqual(meta.status, 201);
  strictEqual(meta.body.messageType, "templateMessage");
  await sim.close();
});

Deno.test("simulator: quoted messages are looked up and put in contextInfo", async () => {
  const sim = newSim();
  await openInstance(sim);
  const first = await call(sim, "POST", "/message/sendText/sales", { number: "5511999999999", text: "one" });
  const reply = await call(sim, "POST", "/message/sendText/sales", {
    number: "5511999999999",
    text: "two",
    quoted: { key: { id: first.body.key.id } },
  });
  strictEqual(reply.body.contextInfo.stanzaId, first.body.key.id);
  deepStrictEqual(reply.body.contextInfo.quotedMessage, { conversation: "one" });
  await sim.close();
});
