import { deepStrictEqual, ok, strictEqual, throws } from "node:assert/strict";
import { INSTANCE_EVENTS } from "../../src/testing/mod.ts";
import { call, createInstance, newSim, openInstance } from "../helpers/simulator.ts";

Deno.test("simulator: create answers 201 with hash, status close, settings and the events it stored", async () => {
  const sim = newSim();
  const res = await call(sim, "POST", "/instance/create", {
    instanceName: "sales",
    integration: "WHATSAPP-BAILEYS",
    token: "sales-token",
    rejectCall: true,
    webhook: { url: "http://127.0.0.1:1/hook", byEvents: true, events: [] },
  });
  strictEqual(res.status, 201);
  strictEqual(res.body.hash, "sales-token");
  strictEqual(res.body.instance.instanceName, "sales");
  strictEqual(res.body.instance.integration, "WHATSAPP-BAILEYS");
  strictEqual(res.body.instance.status, "close");
  strictEqual(res.body.instance.webhookWaBusiness, null);
  strictEqual(res.body.instance.accessTokenWaBusiness, "");
  ok(/^[0-9a-f-]{36}$/.test(res.body.instance.instanceId));
  deepStrictEqual(res.body.webhook, { webhookUrl: "http://127.0.0.1:1/hook", webhookByEvents: true });
  deepStrictEqual(res.body.settings, {
    rejectCall: true,
    msgCall: "",
    groupsIgnore: false,
    alwaysOnline: false,
    readMessages: false,
    readStatus: false,
    syncFullHistory: false,
    wavoipToken: "",
  });
  strictEqual(res.body.qrcode, undefined);
  const hook = await call(sim, "GET", "/webhook/find/sales");
  strictEqual(hook.body.enabled, true);
  deepStrictEqual(hook.body.events, [...INSTANCE_EVENTS]);
  deepStrictEqual(sim.events.map((e) => e.event), ["instance.create"]);
  deepStrictEqual(sim.events[0].data, { instanceName: "sales", instanceId: res.body.instance.instanceId });
  await sim.close();
});

Deno.test("simulator: create with a webhook but no events array fails like the server", async () => {
  const sim = newSim();
  const res = await call(sim, "POST", "/instance/create", {
    instanceName: "sales",
    integration: "WHATSAPP-BAILEYS",
    webhook: { url: "http://x" },
  });
  strictEqual(res.status, 400);
  deepStrictEqual(res.body.response.message, ["Cannot read properties of undefined (reading 'length')"]);
  await sim.close();
});

Deno.test("simulator: create with qrcode:true is connecting and carries the QR", async () => {
  const sim = newSim();
  const res = await call(sim, "POST", "/instance/create", {
    instanceName: "sales",
    integration: "WHATSAPP-BAILEYS",
    qrcode: true,
  });
  strictEqual(res.body.instance.status, "connecting");
  strictEqual(res.body.qrcode.count, 1);
  ok(res.body.qrcode.base64.startsWith("data:image/png;base64,"));
  strictEqual(sim.instance("sales")?.state, "connecting");
  await sim.close();
});

Deno.test("simulator: connect gives a QR, scan opens, connectionState follows", async () => {
  const sim = newSim();
  await createInstance(sim, "sales");
  const qr = await call(sim, "GET", "/instance/connect/sales");
  strictEqual(qr.status, 200);
  deepStrictEqual(Object.keys(qr.body), ["pairingCode", "code", "base64", "count"]);
  strictEqual(qr.body.pairingCode, null);
  ok(qr.body.code.startsWith("2@"));
  ok(qr.body.base64.startsWith("data:image/png;base64,"));
  strictEqual(qr.body.count, 1);
  deepStrictEqual((await call(sim, "GET", "/instance/connectionState/sales")).body, {
    instance: { instanceName: "sales", state: "connecting" },
  });
  // Still connecting: the same QR comes back.
  strictEqual((await call(sim, "GET", "/instance/connect/sales")).body.code, qr.body.code);

  sim.simulateScan("sales", { number: "5511988887777", profileName: "Sales" });
  deepStrictEqual((await call(sim, "GET", "/instance/connectionState/sales")).body, {
    instance: { instanceName: "sales", state: "open" },
  });
  deepStrictEqual((await call(sim, "GET", "/instance/connect/sales")).body, {
    instance: { instanceName: "sales", state: "open" },
  });
  deepStrictEqual(sim.events.map((e) => e.event), [
    "instance.create",
    "connection.update",
    "qrcode.updated",
    "connection.update",
  ]);
  deepStrictEqual(sim.events[1].data, { instance: "sales", state: "connecting", statusReason: 200 });
  deepStrictEqual(sim.events[2].data, {
    qrcode: { instance: "sales", pairingCode: null, code: qr.body.code, base64: qr.body.base64 },
  });
  deepStrictEqual(sim.events[3].data, {
    instance: "sales",
    wuid: "5511988887777@s.whatsapp.net",
    profileName: "Sales",
    profilePictureUrl: null,
    state: "open",
    statusReason: 200,
  });
  await sim.close();
});

Deno.test("simulator: connect with a number returns a pairing code", async () => {
  const sim = newSim();
  await createInstance(sim, "sales");
  const qr = await call(sim, "GET", "/instance/connect/sales?number=5511988887777");
  ok(/^[A-Z0-9]{8}$/.test(qr.body.pairingCode), qr.body.pairingCode);
  await sim.close();
});

Deno.test("simulator: autoConnectMs 0 opens right after connect, with no timer", async () => {
  const sim = newSim({ autoConnectMs: 0 });
  await createInstance(sim, "sales");
  const qr = await call(sim, "GET", "/instance/connect/sales");
  strictEqual(qr.body.count, 1);
  strictEqual((await call(sim, "GET", "/instance/connectionState/sales")).body.instance.state, "open");
  await sim.close();
});

Deno.test("simulator: autoConnectMs > 0 opens after the delay; close() clears pending timers", async () => {
  const opened = Promise.withResolvers<unknown>();
  const fetch = ((_input: RequestInfo | URL, init?: RequestInit) => {
    const body = JSON.parse(String(init?.body));
    if (body.event === "connection.update" && body.data.state === "open") opened.resolve(body.data);
    return Promise.resolve(new Response("ok"));
  }) as typeof globalThis.fetch;
  const sim = newSim({ autoConnectMs: 5, fetch });
  await createInstance(sim, "a", {
    webhook: { url: "http://127.0.0.1:9/hook", events: ["CONNECTION_UPDATE"] },
  });
  await call(sim, "GET", "/instance/connect/a");
  strictEqual(sim.instance("a")?.state, "connecting");
  // Event-driven wait: the open state arrives through the webhook.
  const data = await opened.promise as { state: string; instance: string };
  strictEqual(data.instance, "a");
  strictEqual(sim.instance("a")?.state, "open");
  // A second instance left connecting: its timer must not outlive close().
  await createInstance(sim, "b");
  await call(sim, "GET", "/instance/connect/b");
  await sim.close();
  strictEqual(sim.instance("b")?.state, "connecting");
});

Deno.test("simulator: simulateScan on an unknown instance throws", async () => {
  const sim = newSim();
  throws(() => sim.simulateScan("ghost"), /Cannot simulate scan: instance "ghost" does not exist/);
  await sim.close();
});

Deno.test("simulator: restart follows the state", async () => {
  const sim = newSim();
  await createInstance(sim, "sales");
  const closed = await call(sim, "POST", "/instance/restart/sales");
  strictEqual(closed.status, 200);
  deepStrictEqual(closed.body, { error: true, message: "[object Object]" });
  await call(sim, "GET", "/instance/connect/sales");
  const connecting = await call(sim, "POST", "/instance/restart/sales");
  strictEqual(connecting.body.count, 2);
  sim.simulateScan("sales");
  deepStrictEqual((await call(sim, "POST", "/instance/restart/sales")).body, {
    instance: { instanceName: "sales", state: "open" },
  });
  await sim.close();
});

Deno.test("simulator: logout closes an open instance and is 400 when closed", async () => {
  const sim = newSim();
  await openInstance(sim, "sales");
  const first = await call(sim, "DELETE", "/instance/logout/sales");
  strictEqual(first.status, 200);
  deepStrictEqual(first.body, {
    status: "SUCCESS",
    error: false,
    response: { message: "Instance logged out" },
  });
  strictEqual(sim.instance("sales")?.state, "close");
  const events = sim.events.slice(-2);
  deepStrictEqual(events.map((e) => [e.event, e.data]), [
    ["logout.instance", null],
    ["connection.update", { instance: "sales", state: "close", statusReason: 401 }],
  ]);
  const second = await call(sim, "DELETE", "/instance/logout/sales");
  strictEqual(second.status, 400);
  deepStrictEqual(second.body, {
    status: 400,
    error: "Bad Request",
    response: { message: ['The "sales" instance is not connected'] },
  });
  const row = (await call(sim, "GET", "/instance/fetchInstances")).body[0];
  strictEqual(row.connectionStatus, "close");
  strictEqual(row.disconnectionReasonCode, 401);
  await sim.close();
});

Deno.test("simulator: delete logs out first, emits its events and removes the instance at once", async () => {
  const sim = newSim();
  await createInstance(sim, "sales");
  await call(sim, "GET", "/instance/connect/sales");
  const res = await call(sim, "DELETE", "/instance/delete/sales");
  strictEqual(res.status, 200);
  deepStrictEqual(res.body, { status: "SUCCESS", error: false, response: { message: "Instance deleted" } });
  deepStrictEqual(sim.events.slice(-4).map((e) => e.event), [
    "logout.instance",
    "connection.update",
    "instance.delete",
    "remove.instance",
  ]);
  strictEqual((await call(sim, "GET", "/instance/connectionState/sales")).status, 404);
  await sim.close();
});

Deno.test("simulator: setPresence validates, needs the socket and echoes the presence", async () => {
  const sim = newSim();
  await createInstance(sim, "sales");
  const invalid = await call(sim, "POST", "/instance/setPresence/sales", { presence: "sleeping" });
  strictEqual(invalid.status, 400);
  deepStrictEqual(invalid.body.response.message, [[
    "presence is not one of enum values: unavailable,available,composing,recording,paused",
  ]]);
  const closed = await call(sim, "POST", "/instance/setPresence/sales", { presence: "available" });
  strictEqual(closed.status, 400);
  deepStrictEqual(closed.body.response.message, [
    "TypeError: Cannot read properties of undefined (reading 'sendPresenceUpdate')",
  ]);
  await call(sim, "GET", "/instance/connect/sales");
  sim.simulateScan("sales");
  const res = await call(sim, "POST", "/instance/setPresence/sales", { presence: "available" });
  strictEqual(res.status, 201);
  deepStrictEqual(res.body, { presence: "available" });
  await sim.close();
});

Deno.test("simulator: fetchInstances rows carry the Prisma columns and counts", async () => {
  const sim = newSim();
  const token = await openInstance(sim, "sales");
  await call(sim, "POST", "/message/sendText/sales", { number: "5511999999999", text: "hi" });
  const [row] = (await call(sim, "GET", "/instance/fetchInstances")).body;
  deepStrictEqual(Object.keys(row), [
    "id",
    "name",
    "connectionStatus",
    "ownerJid",
    "profileName",
    "profilePicUrl",
    "integration",
    "number",
    "businessId",
    "token",
    "clientName",
    "disconnectionReasonCode",
    "disconnectionObject",
    "disconnectionAt",
    "createdAt",
    "updatedAt",
    "Chatwoot",
    "Proxy",
    "Rabbitmq",
    "Nats",
    "Sqs",
    "Websocket",
    "Setting",
    "_count",
  ]);
  strictEqual(row.name, "sales");
  strictEqual(row.connectionStatus, "open");
  strictEqual(row.ownerJid, "5511988887777@s.whatsapp.net");
  strictEqual(row.profileName, "Sales");
  strictEqual(row.token, token);
  deepStrictEqual(row._count, { Message: 1, Contact: 0, Chat: 1 });
  strictEqual(row.Setting.rejectCall, false);
  await sim.close();
});

Deno.test("simulator: a WHATSAPP-BUSINESS instance is usable at once", async () => {
  const sim = newSim({ serverUrl: "http://gw.example" });
  const res = await call(sim, "POST", "/instance/create", {
    instanceName: "biz",
    integration: "WHATSAPP-BUSINESS",
    token: "meta-token",
    number: "5511977776666",
  });
  strictEqual(res.status, 201);
  strictEqual(res.body.instance.webhookWaBusiness, "http://gw.example/webhook/meta");
  strictEqual(sim.instance("biz")?.state, "open");
  await sim.close();
});

Deno.test("simulator: addInstance seeds an instance directly", async () => {
  const sim = newSim();
  const info = sim.addInstance("sales", { token: "t", open: true, number: "5511911112222" });
  deepStrictEqual({ ...info, id: "" }, {
    name: "sales",
    id: "",
    token: "t",
    state: "open",
    ownerJid: "5511911112222@s.whatsapp.net",
    integration: "WHATSAPP-BAILEYS",
  });
  throws(() => sim.addInstance("sales"), /Cannot add instance: name "sales" is already in use/);
  strictEqual(
    (await call(sim, "POST", "/message/sendText/sales", { number: "1", text: "x" }, { key: "t" })).status,
    201,
  );
  await sim.close();
});
