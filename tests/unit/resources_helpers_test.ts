import { deepStrictEqual, ok, rejects, strictEqual } from "node:assert/strict";
import {
  ConnectionException,
  GatewayApiException,
  InstanceNotFoundException,
  ValidationException,
} from "../../mod.ts";
import { defaultAnswer, makeService, STORED_PRIVACY, STORED_SETTINGS } from "../fixtures/resources_server.ts";

/** A fake clock that the fake sleep advances: no real waiting. */
function fakeTime(start = 1_000_000) {
  let now = start;
  const sleeps: number[] = [];
  return {
    now: () => now,
    sleep: (ms: number, signal?: AbortSignal) => {
      signal?.throwIfAborted();
      sleeps.push(ms);
      now += ms;
      return Promise.resolve();
    },
    sleeps,
  };
}

function stateAnswer(states: string[]) {
  let index = 0;
  return () => ({
    status: 200,
    body: { instance: { instanceName: "sales", state: states[Math.min(index++, states.length - 1)] } },
  });
}

Deno.test("waitForConnection polls until open, sleeping intervalMs between polls", async () => {
  const time = fakeTime();
  const { gw, calls } = makeService({
    handler: stateAnswer(["close", "connecting", "open"]),
    dependencies: time,
  });
  const state = await gw.instances().waitForConnection(undefined, { intervalMs: 500, sleep: time.sleep });
  deepStrictEqual(state, { instance: { instanceName: "sales", state: "open" } });
  strictEqual(calls.length, 3);
  deepStrictEqual(time.sleeps, [500, 500]);
});

Deno.test("waitForConnection gives up after timeoutMs with a ConnectionException naming the last state", async () => {
  const time = fakeTime();
  const { gw, calls } = makeService({ handler: stateAnswer(["connecting"]), dependencies: time });
  await rejects(
    gw.instances().waitForConnection("shop", { timeoutMs: 5000, intervalMs: 2000, sleep: time.sleep }),
    (error) => {
      ok(error instanceof ConnectionException);
      strictEqual(error.reason, "timeout");
      strictEqual(error.timedOut, true);
      strictEqual(error.instance, "shop");
      strictEqual(error.message, 'Instance "shop" did not connect within 5000 ms (last state "connecting")');
      return true;
    },
  );
  deepStrictEqual(time.sleeps, [2000, 2000, 1000]);
  strictEqual(calls.length, 4);
});

Deno.test("waitForConnection refuses a timeoutMs or intervalMs that makes no sense, before any request", async () => {
  const time = fakeTime();
  const { gw, calls } = makeService({ handler: stateAnswer(["connecting"]), dependencies: time });
  // NaN or a string polled for ever; an interval of 0 or below polled in a tight loop.
  const bad: [Record<string, unknown>, string][] = [
    [{ timeoutMs: NaN }, "timeoutMs must be a number"],
    [{ timeoutMs: "5000" }, "timeoutMs must be a number"],
    [{ timeoutMs: -1 }, "timeoutMs must be at least 0"],
    [{ intervalMs: NaN }, "intervalMs must be a number"],
    [{ intervalMs: 0 }, "intervalMs must be at least 1"],
    [{ intervalMs: -5 }, "intervalMs must be at least 1"],
  ];
  for (const [options, message] of bad) {
    await rejects(
      gw.instances().waitForConnection("sales", { sleep: time.sleep, ...options }),
      (error) => {
        ok(error instanceof ValidationException, String(error));
        strictEqual(error.message, `Invalid waitForConnection options: ${message}`);
        return true;
      },
    );
  }
  strictEqual(calls.length, 0);
  deepStrictEqual(time.sleeps, []);
});

Deno.test("waitForConnection stops at once when its signal aborts", async () => {
  const time = fakeTime();
  const controller = new AbortController();
  const { gw } = makeService({ handler: stateAnswer(["connecting"]), dependencies: time });
  const sleep = (ms: number, signal?: AbortSignal) => {
    controller.abort(new Error("stop"));
    return time.sleep(ms, signal);
  };
  await rejects(
    gw.instances().waitForConnection(undefined, { signal: controller.signal, sleep }),
    { message: "stop" },
  );
});

Deno.test("waitForConnection uses the service's injected sleep when none is given", async () => {
  const time = fakeTime();
  const { gw } = makeService({ handler: stateAnswer(["connecting", "open"]), dependencies: time });
  await gw.instances().waitForConnection(undefined, { intervalMs: 10 });
  deepStrictEqual(time.sleeps, [10]);
});

Deno.test("isConnected is false unless the state is open", async () => {
  const { gw } = makeService({ handler: stateAnswer(["connecting"]) });
  strictEqual(await gw.instances().isConnected(), false);
  const open = makeService();
  strictEqual(await open.gw.instances().isConnected(), true);
});

Deno.test("getQrCode returns the QR object, or null when the instance is already open", async () => {
  const { gw } = makeService();
  deepStrictEqual(await gw.instances().getQrCode(), {
    pairingCode: null,
    code: "2@qr",
    base64: "data:image/png;base64,iVBORw0KGgo=",
    count: 1,
  });
  const open = makeService({
    handler: () => ({ status: 200, body: { instance: { instanceName: "sales", state: "open" } } }),
  });
  strictEqual(await open.gw.instances().getQrCode(), null);
});

Deno.test("connect answering 200 {error:true} rejects with a GatewayApiException", async () => {
  const { gw } = makeService({
    handler: () => ({ status: 200, body: { error: true, message: "[object Object]" } }),
  });
  await rejects(gw.instances().restart("shop"), GatewayApiException);
});

Deno.test("instances().fetch(name) returns the row, or throws InstanceNotFoundException", async () => {
  const { gw } = makeService();
  deepStrictEqual(await gw.instances().fetch("sales"), { id: "i1", name: "sales", connectionStatus: "open" });
  const empty = makeService({ handler: () => ({ status: 200, body: [] }) });
  await rejects(empty.gw.instances().fetch("nope"), InstanceNotFoundException);
  const missing = makeService({
    handler: () => ({
      status: 404,
      body: { status: 404, error: "Not Found", response: { message: ['Instance "nope" not found'] } },
    }),
  });
  await rejects(missing.gw.instances().fetch("nope"), InstanceNotFoundException);
});

Deno.test("create returns the typed answer with the instance key", async () => {
  const { gw } = makeService({
    handler: () => ({
      status: 201,
      body: {
        instance: {
          instanceName: "shop",
          instanceId: "u1",
          integration: "WHATSAPP-BAILEYS",
          status: "close",
        },
        hash: "TOKEN",
      },
    }),
  });
  const res = await gw.instances().create({ instanceName: "shop", token: "TOKEN" });
  strictEqual(res.status, 201);
  strictEqual(res.data.hash, "TOKEN");
  strictEqual(res.json("instance.status"), "close");
});

Deno.test("isOnWhatsApp is false when the server says exists:false", async () => {
  const { gw } = makeService({
    handler: () => ({
      status: 200,
      body: [{ jid: "5511999999999@s.whatsapp.net", exists: false, number: "5511999999999" }],
    }),
  });
  strictEqual(await gw.chats().isOnWhatsApp("5511999999999"), false);
});

Deno.test("iterateMessages follows the server's pages until the last one", async () => {
  const pages = [["a", "b"], ["c", "d"], ["e"]];
  const { gw, calls } = makeService({
    handler: (request) => {
      const page = (request.body as { page: number }).page;
      return {
        status: 200,
        body: {
          messages: {
            total: 5,
            pages: 3,
            currentPage: page,
            records: pages[page - 1].map((id) => ({ id, key: { id } })),
          },
        },
      };
    },
  });
  const ids: string[] = [];
  for await (
    const record of gw.chats().iterateMessages({ where: { messageType: "conversation" }, offset: 2 })
  ) {
    ids.push(record.id);
  }
  deepStrictEqual(ids, ["a", "b", "c", "d", "e"]);
  deepStrictEqual(
    calls.map((call) => call.body),
    [1, 2, 3].map((page) => ({
      where: { messageType: "conversation" },
      page,
      offset: 2,
    })),
  );
  deepStrictEqual((await gw.chats().findAllMessages({ offset: 2 })).map((record) => record.id), ids);
});

Deno.test("iterateMessages stops on an empty page even if the server claims more pages", async () => {
  const { gw, calls } = makeService({
    handler: () => ({ status: 200, body: { messages: { total: 9, pages: 9, currentPage: 1, records: [] } } }),
  });
  deepStrictEqual(await gw.chats().findAllMessages(), []);
  strictEqual(calls.length, 1);
});

Deno.test("webhooks.update with no stored webhook needs a url", async () => {
  const { gw, calls } = makeService({
    handler: (request) => request.method === "GET" ? { status: 200 } : defaultAnswer(request),
  });
  await rejects(gw.webhooks().update({ byEvents: true }), (error) => {
    ok(error instanceof ValidationException);
    deepStrictEqual(error.messages, ["url is required"]);
    return true;
  });
  strictEqual(calls.length, 1);
  await gw.webhooks().update({ url: "https://example.com/new" });
  deepStrictEqual(calls[2].body, {
    webhook: {
      enabled: true,
      url: "https://example.com/new",
      headers: {},
      byEvents: false,
      base64: false,
      events: [],
    },
  });
});

Deno.test("settings.update with every required field sends at once; partial settings merge with get()", async () => {
  const { gw, calls } = makeService();
  const full = { ...STORED_SETTINGS, rejectCall: false };
  await gw.settings().update(full);
  deepStrictEqual(calls.map((call) => `${call.method} ${call.path}`), ["POST /settings/set/sales"]);
  deepStrictEqual(calls[0].body, full);
  const none = makeService({
    handler: (request) => request.method === "GET" ? { status: 200 } : defaultAnswer(request),
  });
  await none.gw.settings().update({ alwaysOnline: true, msgCall: "Later" });
  deepStrictEqual(none.calls[1].body, {
    rejectCall: false,
    msgCall: "Later",
    groupsIgnore: false,
    alwaysOnline: true,
    readMessages: false,
    readStatus: false,
    syncFullHistory: false,
  });
});

Deno.test("updatePrivacySettings with all six sends at once; bad values are refused before sending", async () => {
  const { gw, calls } = makeService();
  await gw.profile().updatePrivacySettings({ ...STORED_PRIVACY, online: "match_last_seen" });
  strictEqual(calls.length, 1);
  await rejects(gw.profile().updatePrivacySettings({ last: "everyone" as "all" }), (error) => {
    ok(error instanceof ValidationException);
    deepStrictEqual(error.messages, ['last must be one of "all", "contacts", "contact_blacklist", "none"']);
    return true;
  });
});

Deno.test("argument checks name the bad field before any request", async () => {
  const { gw, calls } = makeService();
  const cases: [Promise<unknown>, string[]][] = [
    [gw.groups().findInfo("not a group"), [
      'groupJid must be a group id like "120363025246125888@g.us"; got "not a group"',
    ]],
    [gw.groups().inviteInfo("short"), [
      'inviteCode must be 22 letters and digits (or a chat.whatsapp.com link); got "short"',
    ]],
    [gw.groups().toggleEphemeral("120363025246125888", 5), [
      "expiration must be one of 0, 86400, 604800, 7776000",
    ]],
    [gw.groups().updateParticipant("120363025246125888", "kick" as "add", ["123"]), [
      'action must be one of "add", "remove", "promote", "demote"',
      'participants[0] must be a phone number in international form (e.g. "5511999999999") or a JID ending in @s.whatsapp.net, @g.us or @lid; got "123"',
    ]],
    [gw.instances().setPresence("away" as "available"), [
      'presence must be one of "unavailable", "available", "composing", "recording", "paused"',
    ]],
    [gw.chats().markAsRead([]), ["readMessages must have at least 1 item"]],
    [gw.chats().markAsRead({ remoteJid: "x", id: "", fromMe: "no" as unknown as boolean }), [
      "readMessages.id must not be empty",
      "readMessages.fromMe must be true or false",
    ]],
    [gw.chats().sendPresence("5511999999999", "composing", -1), ["delay must be between 0 and 300000"]],
    [gw.profile().updateName("  "), ["name must not be empty"]],
    [gw.profile().updatePicture("data:image/png;base64,AAAA"), [
      'picture must be an http(s) URL or raw base64, not a data URI: strip the "data:...;base64," prefix',
    ]],
    [gw.labels().handle("5511999999999", "", "tag" as "add"), [
      "labelId must not be empty",
      'action must be one of "add", "remove"',
    ]],
    [gw.calls().offer("5511999999999", { callDuration: 20 }), ["callDuration must be between 1 and 15"]],
    [gw.s3().getMediaUrl({ id: "" }), ["id must not be empty"]],
    [gw.instances().connect("", {}), ["name must not be empty"]],
  ];
  for (const [promise, messages] of cases) {
    await rejects(promise, (error) => {
      ok(error instanceof ValidationException, String(error));
      deepStrictEqual(error.messages, messages);
      return true;
    });
  }
  strictEqual(calls.length, 0);
});
