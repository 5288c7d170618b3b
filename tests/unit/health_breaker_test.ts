import { deepStrictEqual, ok, rejects, strictEqual } from "node:assert/strict";
import {
  GatewayService,
  InstanceDisconnectedException,
  MemoryState,
  MemoryStore,
  MessageException,
  WebhookPayloadDto,
  WebhookProcessor,
} from "../../mod.ts";
import { disconnectReason, InstanceHealth } from "../../src/delivery/mod.ts";
import { watchInstanceHealth } from "../../src/health/watch.ts";
import { KEY, newSim } from "../helpers/simulator.ts";

function clock(start = 1_700_000_000_000) {
  let t = start;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

function service(sim: ReturnType<typeof newSim>, now: () => number, store?: MemoryStore) {
  return new GatewayService(
    { server_url: "http://gateway.test", api_key: KEY, instance: "sales", retry: { max_retries: 0 }, store },
    { fetch: sim.fetch, now, sleep: () => Promise.resolve() },
  );
}

const SALES = { connection: "default", instance: "sales" };

function sends(sim: ReturnType<typeof newSim>): number {
  return sim.requests.filter((r) => r.route === "POST /message/sendText").length;
}

Deno.test("disconnectReason maps every server code to what to do", () => {
  const kinds = [401, 403, 408, 411, 428, 440, 500, 503, 515].map((code) => {
    const reason = disconnectReason(code);
    return [code, reason.name, reason.kind];
  });
  deepStrictEqual(kinds, [
    [401, "logged_out", "needs_qr"],
    [403, "forbidden", "stop"],
    [408, "timed_out", "transient"],
    [411, "multidevice_mismatch", "needs_qr"],
    [428, "connection_closed", "transient"],
    [440, "connection_replaced", "stop"],
    [500, "bad_session", "needs_qr"],
    [503, "unavailable", "transient"],
    [515, "restart_required", "transient"],
  ]);
  deepStrictEqual(
    { ...disconnectReason(999), description: "" },
    { code: 999, name: "unknown", kind: "transient", description: "" },
  );
});

Deno.test("a server 'Connection Closed' is InstanceDisconnectedException: not sent, a MessageException", async () => {
  await using sim = newSim();
  sim.addInstance("sales", { open: true });
  const gw = service(sim, Date.now);
  await gw.instances().logout("sales");
  const error = await rejects(gw.messages().text("5511999999999", "Hi"), (e: unknown) => {
    ok(e instanceof InstanceDisconnectedException);
    ok(e instanceof MessageException);
    strictEqual(e.notSent, true);
    strictEqual(e.local, false);
    strictEqual(e.status, 500);
    strictEqual(e.reason, "not_connected");
    return true;
  });
  strictEqual(error, undefined);
});

Deno.test("two 'Connection Closed' sends make an open instance suspect and open the breaker", async () => {
  await using sim = newSim();
  sim.addInstance("sales", { open: true });
  const time = clock();
  const gw = service(sim, time.now);
  await gw.messages().text("5511999999999", "ok");
  strictEqual((await gw.health().get(SALES)).status, "open");
  // The server says open while its socket is gone: every send fails with "Connection Closed".
  sim.failNext({ route: "POST /message/sendText", status: 500, times: 2, body: connectionClosed() });
  await rejects(gw.messages().text("5511999999999", "a"), InstanceDisconnectedException);
  const afterOne = await gw.health().get(SALES);
  strictEqual(afterOne.status, "open");
  strictEqual(afterOne.consecutiveFailures, 1);
  strictEqual(afterOne.breaker, "closed");
  await rejects(gw.messages().text("5511999999999", "b"), InstanceDisconnectedException);
  const suspect = await gw.health().get(SALES);
  strictEqual(suspect.status, "suspect");
  strictEqual(suspect.breaker, "open");
  strictEqual(suspect.retryAt, time.now() + 30_000);
  strictEqual(sends(sim), 3);

  // Open: the third send fails locally, with no request.
  await rejects(gw.messages().text("5511999999999", "c"), (e: unknown) => {
    ok(e instanceof InstanceDisconnectedException);
    strictEqual(e.local, true);
    strictEqual(e.status, undefined);
    strictEqual(e.retryAt, time.now() + 30_000);
    ok(e.message.startsWith('Cannot send: instance "sales" is suspect: 2 sends failed in a row'), e.message);
    return true;
  });
  strictEqual(sends(sim), 3);

  // A poll saying "open" does not heal a suspect instance.
  await gw.instances().connectionState("sales");
  strictEqual((await gw.health().get(SALES)).status, "suspect");
});

Deno.test("the breaker half-opens after the cooldown, reopens with twice the wait on a failed probe, closes on success", async () => {
  await using sim = newSim();
  sim.addInstance("sales", { open: true });
  const time = clock();
  const gw = service(sim, time.now);
  sim.failNext({ route: "POST /message/sendText", status: 500, times: 3, body: connectionClosed() });
  for (const text of ["a", "b"]) {
    await rejects(gw.messages().text("5511999999999", text), InstanceDisconnectedException);
  }
  time.advance(30_000);
  strictEqual((await gw.health().get(SALES)).breaker, "half_open");
  // The probe goes to the server and fails: open again for 60 s.
  await rejects(gw.messages().text("5511999999999", "probe"), (e: unknown) => {
    ok(e instanceof InstanceDisconnectedException);
    return e.local === false;
  });
  strictEqual(sends(sim), 3);
  const reopened = await gw.health().get(SALES);
  strictEqual(reopened.breaker, "open");
  strictEqual(reopened.retryAt, time.now() + 60_000);
  time.advance(59_999);
  await rejects(gw.messages().text("5511999999999", "early"), InstanceDisconnectedException);
  strictEqual(sends(sim), 3);
  time.advance(1);
  const res = await gw.messages().text("5511999999999", "probe 2");
  strictEqual(res.status, 201);
  const healed = await gw.health().get(SALES);
  deepStrictEqual([healed.status, healed.breaker, healed.consecutiveFailures], ["open", "closed", 0]);
  await gw.messages().text("5511999999999", "after");
  strictEqual(sends(sim), 5);
});

Deno.test("only one caller gets the half-open probe; the others fail fast while it runs", async () => {
  const time = clock();
  const health = new InstanceHealth(new MemoryState({ now: time.now }), { now: time.now });
  const closed = new InstanceDisconnectedException("Connection Closed");
  await health.recordSendFailure(SALES, closed);
  await health.recordSendFailure(SALES, closed);
  time.advance(30_000);
  const results = await Promise.allSettled([health.admit(SALES), health.admit(SALES), health.admit(SALES)]);
  deepStrictEqual(results.map((r) => r.status), ["fulfilled", "rejected", "rejected"]);
  strictEqual((results[0] as PromiseFulfilledResult<string>).value, "probe_send");
  strictEqual((await health.get(SALES)).breaker, "open");
});

Deno.test("a 403 connection.update bans the instance: sends stop locally with the reason", async () => {
  await using sim = newSim();
  sim.addInstance("sales", { open: true });
  const time = clock();
  const gw = service(sim, time.now);
  const processor = new WebhookProcessor();
  watchInstanceHealth(processor, gw.health(), { connection: "default" });
  await processor.process(
    WebhookPayloadDto.from({
      event: "connection.update",
      instance: "sales",
      data: { instance: "sales", state: "close", statusReason: 403 },
    })!,
  );
  const record = await gw.health().get(SALES);
  deepStrictEqual([record.status, record.breaker, record.reason?.kind], ["banned", "open", "stop"]);
  await rejects(gw.messages().text("5511999999999", "Hi"), (e: unknown) => {
    ok(e instanceof InstanceDisconnectedException);
    strictEqual(e.local, true);
    strictEqual(e.disconnect?.code, 403);
    strictEqual(e.disconnect?.kind, "stop");
    strictEqual(
      e.message,
      'Cannot send: instance "sales" is banned: WhatsApp restricted or banned the number; stop sending and ' +
        `check the phone (statusReason 403); message not sent; next try after ${
          new Date(time.now() + 30_000).toISOString()
        } (check it: deno run -A jsr:@gw/gateway/cli status sales)`,
    );
    return true;
  });
  strictEqual(sends(sim), 0);
  // After the cooldown the probe is a state poll, not a message: the number stays banned while the
  // server says close, and no send is made.
  await gw.instances().logout("sales");
  time.advance(30_000);
  await rejects(gw.messages().text("5511999999999", "Hi"), InstanceDisconnectedException);
  strictEqual(sends(sim), 0);
  strictEqual(sim.requests.filter((r) => r.route === "GET /instance/connectionState").length, 1);
});

Deno.test("a send the breaker refuses leaves no record for the retry task to send into the down instance", async () => {
  await using sim = newSim();
  sim.addInstance("sales", { open: true });
  const time = clock();
  const store = new MemoryStore({ now: time.now });
  const gw = service(sim, time.now, store);
  const processor = new WebhookProcessor();
  watchInstanceHealth(processor, gw.health(), { connection: "default" });
  await processor.process(
    WebhookPayloadDto.from({
      event: "connection.update",
      instance: "sales",
      data: { instance: "sales", state: "close", statusReason: 403 },
    })!,
  );
  await rejects(gw.messages().text("5511999999999", "Hi"), InstanceDisconnectedException);
  deepStrictEqual(await store.listOutbound(), []);
  strictEqual(sends(sim), 0);
});

Deno.test("a 401 logout needs a new QR: refused until the instance is open again, then sends resume", async () => {
  await using sim = newSim();
  sim.addInstance("sales", { open: true });
  const time = clock();
  const gw = service(sim, time.now);
  await gw.health().recordConnectionUpdate(SALES, { state: "close", statusReason: 401 });
  await rejects(gw.messages().text("5511999999999", "Hi"), (e: unknown) => {
    ok(e instanceof InstanceDisconnectedException);
    strictEqual(e.disconnect?.kind, "needs_qr");
    ok(e.message.includes("pair again with a QR code or a pairing code (statusReason 401)"), e.message);
    return true;
  });
  strictEqual(sends(sim), 0);
  // Re-paired: the webhook's connection.update open closes the breaker.
  await gw.health().recordConnectionUpdate(SALES, { state: "open", statusReason: 200 });
  strictEqual((await gw.messages().text("5511999999999", "Hi")).status, 201);
});

Deno.test("health is shared through store.state: a second service sees the first one's breaker", async () => {
  await using sim = newSim();
  sim.addInstance("sales", { open: true });
  const time = clock();
  const store = new MemoryStore();
  const first = service(sim, time.now, store);
  const second = service(sim, time.now, store);
  await first.health().recordConnectionUpdate(SALES, { state: "close", statusReason: 403 });
  await rejects(second.messages().text("5511999999999", "Hi"), InstanceDisconnectedException);
  strictEqual(sends(sim), 0);
  strictEqual((await second.health().list()).length, 1);
});

Deno.test("fetchInstances rows feed health with their disconnectionReasonCode", async () => {
  await using sim = newSim();
  sim.addInstance("sales", { open: true });
  const gw = service(sim, Date.now);
  await gw.instances().logout("sales");
  await gw.instances().fetchAll();
  const record = await gw.health().get(SALES);
  deepStrictEqual([record.status, record.reason?.name], ["closed", "logged_out"]);
});

function connectionClosed() {
  return { status: 500, error: "Internal Server Error", response: { message: "Connection Closed" } };
}
