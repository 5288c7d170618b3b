import { deepStrictEqual, ok, rejects, strictEqual } from "node:assert/strict";
import { connectAnswerState } from "../../src/server/server_version.ts";
import {
  ConnectionException,
  createWebhookHandler,
  GatewayService,
  UnsupportedServerException,
  ValidationException,
  WebhookProcessor,
} from "../../mod.ts";
import { KEY, newSim } from "../helpers/simulator.ts";

function service(fetch: typeof globalThis.fetch) {
  return new GatewayService({ server_url: "http://gateway.test", api_key: KEY, instance: "sales" }, {
    fetch,
  });
}

Deno.test("serverInfo reads GET / once per connection and knows the 2.3 line", async () => {
  await using sim = newSim();
  const gw = service(sim.fetch);
  const [first, second] = await Promise.all([gw.serverInfo(), gw.instance("other").serverInfo()]);
  strictEqual(first, second);
  deepStrictEqual(
    [
      first.version,
      first.line,
      first.major,
      first.minor,
      first.patch,
      first.clientName,
      first.whatsappWebVersion,
    ],
    ["2.3.6", "2.3", 2, 3, 6, "evolution_exchange", "2.3000.1023204200"],
  );
  deepStrictEqual(first.features, {
    licenseGate: false,
    restartAnswersStatus: false,
    carouselAndPlayed: false,
    webhookInstanceHeaders: false,
  });
  await gw.serverInfo();
  strictEqual(sim.requests.filter((r) => r.path === "/").length, 1);
});

Deno.test("serverInfo knows 2.4 (licence gate) and 2.3.7; a 2.4 server not activated answers LICENSE_REQUIRED", async () => {
  await using sim = newSim({ version: "2.4.0", licenseRequired: true });
  const gw = service(sim.fetch);
  const info = await gw.serverInfo();
  strictEqual(info.line, "2.4");
  deepStrictEqual(info.features, {
    licenseGate: true,
    restartAnswersStatus: true,
    carouselAndPlayed: true,
    webhookInstanceHeaders: true,
  });
  await rejects(gw.instances().fetchAll({ maxRetries: 0 }), (e: unknown) => {
    ok(e instanceof ConnectionException);
    strictEqual(e.reason, "license_required");
    return true;
  });
  await using patch = newSim({ version: "2.3.7" });
  strictEqual((await service(patch.fetch).serverInfo()).features.restartAnswersStatus, true);
});

Deno.test("serverInfo: an unknown major version is a clear error, and a failed read is not cached", async () => {
  await using sim = newSim({ version: "3.0.1" });
  const gw = service(sim.fetch);
  await rejects(gw.serverInfo(), (e: unknown) => {
    ok(e instanceof UnsupportedServerException);
    strictEqual(e.version, "3.0.1");
    strictEqual(
      e.message,
      'Unsupported gateway server version "3.0.1" on connection "default": this library knows 2.3.x and 2.4.x',
    );
    return true;
  });
  await rejects(gw.serverInfo(), UnsupportedServerException);
  strictEqual(sim.requests.filter((r) => r.path === "/").length, 2);
  const blank = service(() => Promise.resolve(Response.json({ status: 200, message: "hello" })));
  await rejects(blank.serverInfo(), /GET \/ reported no version/);
});

Deno.test("connectAnswerState reads 2.3.6 state and 2.3.7+ status answers", () => {
  deepStrictEqual(
    [
      connectAnswerState({ instance: { instanceName: "s", state: "open" } }),
      connectAnswerState({ instance: { instanceName: "s", status: "connecting" } }),
      connectAnswerState({ pairingCode: null, code: "x", count: 1 }),
      connectAnswerState(null),
    ],
    ["open", "connecting", undefined, undefined],
  );
});

Deno.test("webhooks().secure configures jwt_key and returns receiver settings that verify the server's deliveries", async () => {
  const received: string[] = [];
  const processor = new WebhookProcessor().onAny((payload) => {
    received.push(payload.event);
  });
  let handler: ((request: Request) => Promise<Response>) | undefined;
  await using sim = newSim({
    fetch: (input, init) => handler!(new Request(input, init)),
    sleep: () => Promise.resolve(),
    webhookRetry: { maxAttempts: 1 },
  });
  sim.addInstance("sales");
  const gw = service(sim.fetch);
  const settings = await gw.webhooks().secure({
    url: "http://receiver.test/gateway/webhook/sales",
    events: ["CONNECTION_UPDATE"],
  });
  strictEqual(settings.signature.scheme, "jwt");
  strictEqual(settings.signature.secret.length, 64);
  const row = (await gw.webhooks().find()).data!;
  deepStrictEqual(row.headers, { jwt_key: settings.signature.secret });

  handler = createWebhookHandler({ ...settings, processor });
  sim.simulateScan("sales");
  await sim.flushWebhooks();
  deepStrictEqual(sim.deliveries.map((d) => [d.event, d.status]), [
    ["connection.update", 200],
    ["connection.update", 200],
  ]);
  ok(sim.deliveries[0].headers.authorization.startsWith("Bearer "));
  strictEqual(received.length, 2);

  // A receiver with another secret refuses them.
  handler = createWebhookHandler({ signature: { scheme: "jwt", secret: "x".repeat(64) }, processor });
  await gw.instances().logout("sales");
  await sim.flushWebhooks();
  strictEqual(sim.deliveries.at(-1)!.status, 401);
});

Deno.test("webhooks().secure refuses a weak secret, a jwt_key header and a bad URL before any request", async () => {
  await using sim = newSim();
  sim.addInstance("sales");
  const gw = service(sim.fetch);
  await rejects(
    gw.webhooks().secure({
      url: "ftp://x",
      secret: "short",
      events: ["MESSAGES_UPSERT"],
      headers: { JWT_KEY: "a" },
    }),
    (e: unknown) => {
      ok(e instanceof ValidationException);
      deepStrictEqual(e.messages, [
        "secret must be at least 32 characters",
        "url must be an http(s) URL",
        "headers must not hold jwt_key: pass the secret as secret",
      ]);
      return true;
    },
  );
  strictEqual(sim.requests.length, 0);
});
