import { deepStrictEqual, ok, strictEqual } from "node:assert/strict";
import { INSTANCE_EVENTS } from "../../src/testing/mod.ts";
import { call, createInstance, newSim, openInstance } from "../helpers/simulator.ts";

Deno.test("simulator: webhook/find is null until set; set answers 201 with the stored row", async () => {
  const sim = newSim();
  await createInstance(sim, "sales");
  const none = await call(sim, "GET", "/webhook/find/sales");
  strictEqual(none.status, 200);
  strictEqual(none.body, null);
  const res = await call(sim, "POST", "/webhook/set/sales", {
    webhook: {
      enabled: true,
      url: "http://127.0.0.1:9/hook",
      headers: { "x-tenant": "acme" },
      byEvents: true,
      base64: false,
      events: ["SEND_MESSAGE", "MESSAGES_UPSERT"],
    },
  });
  strictEqual(res.status, 201);
  deepStrictEqual(Object.keys(res.body), [
    "id",
    "url",
    "headers",
    "enabled",
    "events",
    "webhookByEvents",
    "webhookBase64",
    "createdAt",
    "updatedAt",
    "instanceId",
  ]);
  strictEqual(res.body.url, "http://127.0.0.1:9/hook");
  deepStrictEqual(res.body.headers, { "x-tenant": "acme" });
  deepStrictEqual(res.body.events, ["SEND_MESSAGE", "MESSAGES_UPSERT"]);
  strictEqual(res.body.webhookByEvents, true);
  strictEqual(res.body.webhookBase64, false);
  strictEqual(res.body.instanceId, sim.instance("sales")?.id);
  deepStrictEqual((await call(sim, "GET", "/webhook/find/sales")).body, res.body);
  await sim.close();
});

Deno.test("simulator: webhook/set events rules", async () => {
  const sim = newSim();
  await createInstance(sim, "sales");
  const set = (webhook: unknown) => call(sim, "POST", "/webhook/set/sales", { webhook });
  const unwrapped = await call(sim, "POST", "/webhook/set/sales", { enabled: true, url: "http://x" });
  deepStrictEqual(unwrapped.body.response.message, [['instance requires property "webhook"']]);
  const noEnabled = await set({ url: "http://x" });
  strictEqual(noEnabled.status, 400);
  deepStrictEqual(noEnabled.body, {
    status: 400,
    error: "Bad Request",
    response: { message: [['webhook requires property "enabled"']] },
  });
  const badEvent = await set({ enabled: true, url: "http://x", events: ["SEND_MESSAGE", "NOPE"] });
  deepStrictEqual(badEvent.body.response.message, [[
    `webhook.events[1] is not one of enum values: ${INSTANCE_EVENTS.join(",")}`,
  ]]);
  const disabled = await set({ enabled: false, url: "http://x", events: ["SEND_MESSAGE"] });
  strictEqual(disabled.status, 201);
  deepStrictEqual(disabled.body.events, []);
  const all = await set({ enabled: true, url: "http://x", events: [] });
  deepStrictEqual(all.body.events, [...INSTANCE_EVENTS]);
  const noEvents = await set({ enabled: true, url: "http://x" });
  strictEqual(noEvents.status, 500);
  deepStrictEqual(noEvents.body, {
    status: 500,
    error: "Internal Server Error",
    response: { message: "Cannot read properties of undefined (reading 'length')" },
  });
  await sim.close();
});

Deno.test("simulator: settings set needs every required field; find returns them", async () => {
  const sim = newSim();
  await createInstance(sim, "sales", { alwaysOnline: true });
  deepStrictEqual((await call(sim, "GET", "/settings/find/sales")).body, {
    rejectCall: false,
    msgCall: "",
    groupsIgnore: false,
    alwaysOnline: true,
    readMessages: false,
    readStatus: false,
    syncFullHistory: false,
    wavoipToken: "",
  });
  const partial = await call(sim, "POST", "/settings/set/sales", { rejectCall: true, msgCall: "busy" });
  strictEqual(partial.status, 400);
  deepStrictEqual(partial.body.response.message, [[
    'instance requires property "groupsIgnore"',
    'instance requires property "alwaysOnline"',
    'instance requires property "readMessages"',
    'instance requires property "readStatus"',
    'instance requires property "syncFullHistory"',
  ]]);
  const full = {
    rejectCall: true,
    msgCall: "busy",
    groupsIgnore: true,
    alwaysOnline: false,
    readMessages: true,
    readStatus: false,
    syncFullHistory: false,
  };
  const res = await call(sim, "POST", "/settings/set/sales", full);
  strictEqual(res.status, 201);
  deepStrictEqual(res.body, { settings: { instanceName: "sales", settings: full } });
  deepStrictEqual((await call(sim, "GET", "/settings/find/sales")).body, { ...full, wavoipToken: "" });
  await sim.close();
});

Deno.test("simulator: settings/find is null for an instance that has no settings row", async () => {
  const sim = newSim();
  sim.addInstance("seeded");
  const res = await call(sim, "GET", "/settings/find/seeded");
  strictEqual(res.status, 200);
  strictEqual(res.body, null);
  await sim.close();
});

Deno.test("simulator: proxy set/find and the failed live test", async () => {
  const sim = newSim();
  await createInstance(sim, "sales");
  strictEqual((await call(sim, "GET", "/proxy/find/sales")).body, null);
  const missing = await call(sim, "POST", "/proxy/set/sales", { enabled: true, host: "p" });
  deepStrictEqual(missing.body.response.message, [[
    'instance requires property "port"',
    'instance requires property "protocol"',
  ]]);
  const proxy = { enabled: true, host: "proxy.local", port: "3128", protocol: "http" };
  const res = await call(sim, "POST", "/proxy/set/sales", proxy);
  strictEqual(res.status, 201);
  deepStrictEqual(res.body, {
    proxy: { instanceName: "sales", proxy: { ...proxy, username: "", password: "" } },
  });
  strictEqual((await call(sim, "GET", "/proxy/find/sales")).body.host, "proxy.local");
  sim.setProxyTestResult(false);
  const bad = await call(sim, "POST", "/proxy/set/sales", proxy);
  strictEqual(bad.status, 400);
  deepStrictEqual(bad.body.response.message, ["Invalid proxy"]);
  await sim.close();
});

Deno.test("simulator: labels are listed and handled", async () => {
  const sim = newSim();
  await openInstance(sim);
  const labels = await call(sim, "GET", "/label/findLabels/sales");
  strictEqual(labels.status, 200);
  deepStrictEqual(Object.keys(labels.body[0]), ["color", "name", "id", "predefinedId"]);
  const add = await call(sim, "POST", "/label/handleLabel/sales", {
    number: "5511999999999",
    labelId: "1",
    action: "add",
  });
  strictEqual(add.status, 200);
  deepStrictEqual(add.body, { numberJid: "5511999999999@s.whatsapp.net", labelId: "1", add: true });
  deepStrictEqual(sim.events.at(-1)?.data, {
    instance: "sales",
    type: "add",
    chatId: "5511999999999@s.whatsapp.net",
    labelId: "1",
  });
  const remove = await call(sim, "POST", "/label/handleLabel/sales", {
    number: "5511999999999",
    labelId: "1",
    action: "remove",
  });
  deepStrictEqual(remove.body, { numberJid: "5511999999999@s.whatsapp.net", labelId: "1", remove: true });
  sim.setNotOnWhatsApp("5511000000000");
  const unknown = await call(sim, "POST", "/label/handleLabel/sales", {
    number: "5511000000000",
    labelId: "1",
    action: "add",
  });
  strictEqual(unknown.status, 404);
  await sim.close();
});

Deno.test("simulator: templates are Meta-only and fail in the Meta error shape", async () => {
  const sim = newSim();
  await openInstance(sim);
  const template = { name: "welcome", category: "UTILITY", language: "en_US", components: [] };
  const baileys = await call(sim, "POST", "/template/create/sales", template);
  strictEqual(baileys.status, 400);
  deepStrictEqual(Object.keys(baileys.body), ["status", "error", "message", "details", "timestamp"]);
  strictEqual(baileys.body.details.type, "whatsapp_api_error");
  strictEqual(baileys.body.details.whatsapp_code, 190);
  strictEqual((await call(sim, "GET", "/template/find/sales")).status, 400);
  await call(sim, "POST", "/instance/create", {
    instanceName: "biz",
    integration: "WHATSAPP-BUSINESS",
    token: "meta",
    number: "5511977776666",
  });
  const created = await call(sim, "POST", "/template/create/biz", template);
  strictEqual(created.status, 201);
  strictEqual(created.body.name, "welcome");
  strictEqual(created.body.template.status, "PENDING");
  const found = await call(sim, "GET", "/template/find/biz");
  strictEqual(found.status, 200);
  strictEqual(found.body.data[0].name, "welcome");
  await sim.close();
});

Deno.test("simulator: S3 media rows follow media sends", async () => {
  const sim = newSim();
  await openInstance(sim);
  deepStrictEqual((await call(sim, "POST", "/s3/getMedia/sales", {})).body.response.message, [
    "Media not found",
  ]);
  await call(sim, "POST", "/message/sendMedia/sales", {
    number: "5511999999999",
    mediatype: "image",
    media: "https://example.com/cat.png",
  });
  const media = await call(sim, "POST", "/s3/getMedia/sales", { type: "image" });
  strictEqual(media.status, 201);
  strictEqual(media.body.length, 1);
  strictEqual(media.body[0].mimetype, "image/png");
  const url = await call(sim, "POST", "/s3/getMediaUrl/sales", { id: media.body[0].id });
  strictEqual(url.status, 200);
  ok(url.body.mediaUrl.includes(media.body[0].fileName));
  deepStrictEqual((await call(sim, "POST", "/s3/getMediaUrl/sales", {})).body.response.message, [
    ['instance requires property "id"'],
  ]);
  await sim.close();
});

Deno.test("simulator: business catalog and call offer", async () => {
  const sim = newSim();
  await createInstance(sim, "sales");
  await call(sim, "GET", "/instance/connect/sales");
  const closed = await call(sim, "POST", "/business/getCatalog/sales", {});
  strictEqual(closed.status, 400);
  strictEqual(closed.body.message, "Connection Closed");
  strictEqual(closed.body.details.context, "getCatalog");
  sim.simulateScan("sales");
  const catalog = await call(sim, "POST", "/business/getCatalog/sales", { number: "5511999999999" });
  strictEqual(catalog.status, 200);
  deepStrictEqual(catalog.body, {
    wuid: "5511999999999@s.whatsapp.net",
    numberExists: true,
    isBusiness: false,
    catalogLength: 0,
    catalog: [],
  });
  const collections = await call(sim, "POST", "/business/getCollections/sales", {});
  strictEqual(collections.body.collectionsLength, 0);
  const offer = await call(sim, "POST", "/call/offer/sales", {
    number: "5511999999999",
    callDuration: 5,
    isVideo: true,
  });
  strictEqual(offer.status, 201);
  deepStrictEqual(offer.body, {
    id: "123",
    jid: "5511999999999@s.whatsapp.net",
    isVideo: true,
    callDuration: 5,
  });
  const tooLong = await call(sim, "POST", "/call/offer/sales", { number: "5511999999999", callDuration: 20 });
  deepStrictEqual(tooLong.body.response.message, [["callDuration must be less than or equal to 15"]]);
  await sim.close();
});
