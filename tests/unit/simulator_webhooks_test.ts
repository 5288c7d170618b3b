import { deepStrictEqual, ok, strictEqual } from "node:assert/strict";
import { DEFAULT_WEBHOOK_RETRY } from "../../src/testing/mod.ts";
import { call, createInstance, newSim, openInstance, recordingFetch } from "../helpers/simulator.ts";

const HOOK = "http://127.0.0.1:9/hook";

async function setWebhook(sim: ReturnType<typeof newSim>, webhook: Record<string, unknown>) {
  const res = await call(sim, "POST", "/webhook/set/sales", {
    webhook: { enabled: true, url: HOOK, ...webhook },
  });
  strictEqual(res.status, 201);
}

const noSleep = () => Promise.resolve();

Deno.test("webhooks: send.message is POSTed with the real envelope", async () => {
  const { fetch, calls } = recordingFetch();
  const sim = newSim({ fetch, serverUrl: "http://gw.example", now: () => Date.UTC(2025, 0, 2, 3, 4, 5, 6) });
  const token = await openInstance(sim);
  await setWebhook(sim, { events: ["SEND_MESSAGE"] });
  const sent = await call(sim, "POST", "/message/sendText/sales", { number: "5511999999999", text: "Hi" });
  await sim.webhooksIdle();
  strictEqual(calls.length, 1);
  strictEqual(calls[0].url, HOOK);
  const body = JSON.parse(calls[0].body);
  deepStrictEqual(Object.keys(body), [
    "event",
    "instance",
    "data",
    "destination",
    "date_time",
    "sender",
    "server_url",
    "apikey",
  ]);
  strictEqual(body.event, "send.message");
  strictEqual(body.instance, "sales");
  deepStrictEqual(body.data, sent.body);
  strictEqual(body.destination, HOOK);
  ok(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/.test(body.date_time), body.date_time);
  strictEqual(body.sender, "5511988887777@s.whatsapp.net");
  strictEqual(body.server_url, "http://gw.example");
  strictEqual(body.apikey, token);
  strictEqual(calls[0].headers["content-type"], "application/json");
  ok(calls[0].headers["user-agent"].startsWith("axios/"));
  deepStrictEqual(sim.deliveries.map((d) => [d.event, d.url, d.status, d.attempts, d.state]), [
    ["send.message", HOOK, 200, 1, "delivered"],
  ]);
  await sim.close();
});

Deno.test("webhooks: apikey is null when not exposed, sender absent before connection", async () => {
  const { fetch, calls } = recordingFetch();
  const sim = newSim({ fetch, exposeApiKeyInWebhooks: false });
  await createInstance(sim, "sales", { webhook: { url: HOOK, events: ["INSTANCE_CREATE"] } });
  await sim.webhooksIdle();
  const body = JSON.parse(calls[0].body);
  strictEqual(body.event, "instance.create");
  strictEqual(body.apikey, null);
  strictEqual("sender" in body, false);
  strictEqual("server_url" in body, false);
  await sim.close();
});

Deno.test("webhooks: byEvents adds the kebab-case suffix while destination stays the base URL", async () => {
  const { fetch, calls } = recordingFetch();
  const sim = newSim({ fetch });
  await openInstance(sim);
  await setWebhook(sim, { byEvents: true, events: [] });
  await call(sim, "POST", "/message/sendText/sales", { number: "5511999999999", text: "Hi" });
  sim.simulateInboundMessage("sales", { from: "5511999999999", text: "Yo" });
  const group = await call(sim, "POST", "/group/create/sales", {
    subject: "T",
    participants: ["5511911112222"],
  });
  await call(sim, "POST", `/group/updateParticipant/sales?groupJid=${group.body.id}`, {
    action: "add",
    participants: ["5511933334444"],
  });
  await call(sim, "DELETE", "/instance/logout/sales");
  await sim.webhooksIdle();
  deepStrictEqual(calls.map((c) => c.url.slice(HOOK.length)), [
    "/send-message",
    "/messages-upsert",
    "/groups-upsert",
    "/group-participants-update",
    "/logout-instance",
    "/connection-update",
  ]);
  for (const c of calls) strictEqual(JSON.parse(c.body).destination, HOOK);
  strictEqual(JSON.parse(calls[4].body).data, null);
  await sim.close();
});

Deno.test("webhooks: only the configured UPPER_SNAKE events are sent; disabled sends nothing", async () => {
  const { fetch, calls } = recordingFetch();
  const sim = newSim({ fetch });
  await openInstance(sim);
  await setWebhook(sim, { events: ["MESSAGES_UPSERT"] });
  await call(sim, "POST", "/message/sendText/sales", { number: "5511999999999", text: "Hi" });
  sim.simulateInboundMessage("sales", { from: "5511999999999", text: "Yo" });
  await sim.webhooksIdle();
  deepStrictEqual(calls.map((c) => JSON.parse(c.body).event), ["messages.upsert"]);
  await call(sim, "POST", "/webhook/set/sales", { webhook: { enabled: false, url: HOOK } });
  sim.simulateInboundMessage("sales", { from: "5511999999999", text: "Again" });
  await sim.webhooksIdle();
  strictEqual(calls.length, 1);
  // groups.update is emitted but, as on the server, never matches the GROUP_UPDATE enum value.
  await setWebhook(sim, { events: ["GROUP_UPDATE"] });
  const group = await call(sim, "POST", "/group/create/sales", {
    subject: "T",
    participants: ["5511911112222"],
  });
  await call(sim, "POST", `/group/updateGroupSubject/sales?groupJid=${group.body.id}`, { subject: "U" });
  await sim.webhooksIdle();
  strictEqual(calls.length, 1);
  strictEqual(sim.events.at(-1)?.event, "groups.update");
  await sim.close();
});

Deno.test("webhooks: a non-http URL is stored but never called", async () => {
  const { fetch, calls } = recordingFetch();
  const sim = newSim({ fetch });
  await openInstance(sim);
  await call(sim, "POST", "/webhook/set/sales", { webhook: { enabled: true, url: "not-a-url", events: [] } });
  await call(sim, "POST", "/message/sendText/sales", { number: "5511999999999", text: "Hi" });
  await sim.webhooksIdle();
  strictEqual(calls.length, 0);
  strictEqual(sim.deliveries.length, 0);
  await sim.close();
});

Deno.test("webhooks: custom headers are sent verbatim; jwt_key becomes a verifiable HS256 Bearer", async () => {
  const { fetch, calls } = recordingFetch();
  const now = Date.UTC(2025, 5, 1, 12, 0, 0);
  const sim = newSim({ fetch, now: () => now });
  await openInstance(sim);
  await setWebhook(sim, { headers: { "X-Tenant": "acme", jwt_key: "s3cret" }, events: ["SEND_MESSAGE"] });
  await call(sim, "POST", "/message/sendText/sales", { number: "5511999999999", text: "Hi" });
  await sim.webhooksIdle();
  const headers = calls[0].headers;
  strictEqual(headers["x-tenant"], "acme");
  strictEqual(headers["jwt_key"], undefined);
  ok(headers.authorization.startsWith("Bearer "));
  const [h, p, s] = headers.authorization.slice("Bearer ".length).split(".");
  const decode = (part: string) =>
    JSON.parse(
      new TextDecoder().decode(
        Uint8Array.from(atob(part.replace(/-/g, "+").replace(/_/g, "/")), (c) => c.charCodeAt(0)),
      ),
    );
  deepStrictEqual(decode(h), { alg: "HS256", typ: "JWT" });
  const iat = Math.floor(now / 1000);
  deepStrictEqual(decode(p), { iat, exp: iat + 600, app: "evolution", action: "webhook" });
  const key = await crypto.subtle.importKey(
    "raw",
    new TextEncoder().encode("s3cret"),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["verify"],
  );
  const signature = Uint8Array.from(atob(s.replace(/-/g, "+").replace(/_/g, "/")), (c) => c.charCodeAt(0));
  ok(await crypto.subtle.verify("HMAC", key, signature, new TextEncoder().encode(`${h}.${p}`)));
  await sim.close();
});

Deno.test("webhooks: the sign option adds headers computed from the exact body sent", async () => {
  const { fetch, calls } = recordingFetch();
  const signed: string[] = [];
  const sim = newSim({
    fetch,
    sign: (raw) => {
      signed.push(raw);
      return Promise.resolve({ "x-signature": `len=${raw.length}` });
    },
  });
  await openInstance(sim);
  await setWebhook(sim, { events: ["SEND_MESSAGE"] });
  await call(sim, "POST", "/message/sendText/sales", { number: "5511999999999", text: "Hi" });
  await sim.webhooksIdle();
  strictEqual(signed.length, 1);
  strictEqual(signed[0], calls[0].body);
  strictEqual(calls[0].headers["x-signature"], `len=${calls[0].body.length}`);
  await sim.close();
});

Deno.test("webhooks: failures are retried with exponential backoff until delivered", async () => {
  const { fetch, calls } = recordingFetch([500, new TypeError("connection refused"), 503, 200]);
  const sleeps: number[] = [];
  const sim = newSim({
    fetch,
    sleep: (ms) => {
      sleeps.push(ms);
      return Promise.resolve();
    },
    webhookRetry: { initialDelayMs: 100, jitterFactor: 0 },
  });
  await openInstance(sim);
  await setWebhook(sim, { events: ["SEND_MESSAGE"] });
  await call(sim, "POST", "/message/sendText/sales", { number: "5511999999999", text: "Hi" });
  await sim.webhooksIdle();
  strictEqual(calls.length, 4);
  deepStrictEqual(sleeps, [100, 200, 400]);
  const [delivery] = sim.deliveries;
  strictEqual(delivery.state, "delivered");
  strictEqual(delivery.attempts, 4);
  strictEqual(delivery.status, 200);
  deepStrictEqual(delivery.delays, [100, 200, 400]);
  // Every attempt sends the same body.
  strictEqual(new Set(calls.map((c) => c.body)).size, 1);
  await sim.close();
});

Deno.test("webhooks: the attempt cap and the maximum delay hold", async () => {
  const { fetch, calls } = recordingFetch([500, 500, 500, 500, 500]);
  const sim = newSim({
    fetch,
    sleep: noSleep,
    webhookRetry: { maxAttempts: 3, initialDelayMs: 100, maxDelayMs: 150, jitterFactor: 0 },
  });
  await openInstance(sim);
  await setWebhook(sim, { events: ["SEND_MESSAGE"] });
  await call(sim, "POST", "/message/sendText/sales", { number: "5511999999999", text: "Hi" });
  await sim.webhooksIdle();
  strictEqual(calls.length, 3);
  strictEqual(sim.deliveries[0].state, "failed");
  strictEqual(sim.deliveries[0].status, 500);
  deepStrictEqual(sim.deliveries[0].delays, [100, 150]);
  await sim.close();
});

Deno.test("webhooks: 400, 401, 403, 404 and 422 are not retried", async () => {
  for (const status of [400, 401, 403, 404, 422]) {
    const { fetch, calls } = recordingFetch([status]);
    const sim = newSim({ fetch, sleep: noSleep });
    await openInstance(sim);
    await setWebhook(sim, { events: ["SEND_MESSAGE"] });
    await call(sim, "POST", "/message/sendText/sales", { number: "5511999999999", text: "Hi" });
    await sim.webhooksIdle();
    strictEqual(calls.length, 1, `status ${status}`);
    strictEqual(sim.deliveries[0].state, "failed");
    strictEqual(sim.deliveries[0].status, status);
    await sim.close();
  }
  deepStrictEqual(DEFAULT_WEBHOOK_RETRY.nonRetryableStatuses, [400, 401, 403, 404, 422]);
});

Deno.test("webhooks: jitter stays within the factor and never below the initial delay", async () => {
  const { fetch } = recordingFetch([500, 500, 500]);
  let r = 0;
  const randoms = [0, 0.75, 0.5];
  const sim = newSim({
    fetch,
    sleep: noSleep,
    random: () => randoms[r++ % randoms.length],
    webhookRetry: { maxAttempts: 4, initialDelayMs: 1000 },
  });
  await openInstance(sim);
  await setWebhook(sim, { events: ["SEND_MESSAGE"] });
  await call(sim, "POST", "/message/sendText/sales", { number: "5511999999999", text: "Hi" });
  await sim.webhooksIdle();
  // base 1000 → -20 % clamps to 1000; base 2000 → +10 % at 0.75; base 4000 → no jitter at 0.5.
  deepStrictEqual(sim.deliveries[0].delays, [1000, 2200, 4000]);
  await sim.close();
});

Deno.test("webhooks: events of one instance are delivered in order; flushWebhooks cuts real waits short", async () => {
  const { fetch, calls } = recordingFetch([500]);
  // Default sleep (real timers) with a long wait: flushWebhooks must not wait for it.
  const sim = newSim({ fetch, webhookRetry: { initialDelayMs: 60_000 } });
  await openInstance(sim);
  await setWebhook(sim, { events: ["SEND_MESSAGE", "MESSAGES_UPSERT"] });
  await call(sim, "POST", "/message/sendText/sales", { number: "5511999999999", text: "first" });
  sim.simulateInboundMessage("sales", { from: "5511999999999", text: "second" });
  await sim.flushWebhooks();
  deepStrictEqual(calls.map((c) => JSON.parse(c.body).event), [
    "send.message",
    "send.message",
    "messages.upsert",
  ]);
  deepStrictEqual(sim.deliveries.map((d) => d.state), ["delivered", "delivered"]);
  await sim.close();
});

Deno.test("webhooks: reset and close abort pending retries", async () => {
  const { fetch, calls } = recordingFetch([500, 500]);
  const sim = newSim({ fetch, webhookRetry: { initialDelayMs: 60_000 } });
  await openInstance(sim);
  await setWebhook(sim, { events: ["SEND_MESSAGE"] });
  await call(sim, "POST", "/message/sendText/sales", { number: "5511999999999", text: "Hi" });
  // Let the first attempt happen, then close while the retry waits.
  while (calls.length === 0) await Promise.resolve();
  const delivery = sim.deliveries[0];
  await sim.close();
  strictEqual(calls.length, 1);
  strictEqual(delivery.state, "failed");
});
