// One contract suite, run through the real GatewayService against both doubles: the in-process
// GatewayFake and the HTTP MockGatewayServer. Passing on both means the two ways of reaching the
// simulated server agree with each other and with the contract's guard order and error shapes.
import { deepStrictEqual, ok, rejects, strictEqual } from "node:assert/strict";
import {
  AuthenticationException,
  GatewayService,
  InstanceAlreadyExistsException,
  InstanceNotFoundException,
  MessageException,
  ValidationException,
} from "../../mod.ts";
import { GatewayFake, type GatewaySimulator, MockGatewayServer } from "../../src/testing/mod.ts";

const API_KEY = "contract-global-key";

interface Double {
  service: GatewayService;
  simulator: GatewaySimulator;
  /** A service on the same double with another key. */
  withKey(key: string): GatewayService;
  close(): Promise<void>;
}

async function httpDouble(): Promise<Double> {
  const mock = await MockGatewayServer.start({ apiKey: API_KEY });
  const make = (key: string) =>
    GatewayService.make({ server_url: mock.url, api_key: key, rate_limiting: { enabled: false } });
  return { service: make(API_KEY), simulator: mock, withKey: make, close: () => mock.close() };
}

function fakeDouble(): Promise<Double> {
  const { service, fake } = GatewayFake.create({ apiKey: API_KEY, instance: null });
  const withKey = (key: string) =>
    new GatewayService({
      server_url: "http://gateway.test",
      api_key: key,
      rate_limiting: { enabled: false },
      fetch: fake.simulator.fetch,
    });
  return Promise.resolve({ service, simulator: fake.simulator, withKey, close: () => fake.close() });
}

const DOUBLES: Array<[string, () => Promise<Double>]> = [["GatewayFake", fakeDouble], [
  "MockGatewayServer",
  httpDouble,
]];

for (const [name, open] of DOUBLES) {
  Deno.test(`${name}: instance lifecycle, guard order and error shapes`, async () => {
    const double = await open();
    try {
      const gw = double.service;
      const created = await gw.instances().create({ instanceName: "sales", token: "sales-token" });
      strictEqual(created.status, 201);
      strictEqual(created.json("hash"), "sales-token");
      strictEqual(created.json("instance.instanceName"), "sales");
      strictEqual(created.json("instance.status"), "close");

      await rejects(gw.instances().create("sales"), (error) => {
        ok(error instanceof InstanceAlreadyExistsException);
        ok(!(error instanceof AuthenticationException));
        strictEqual(error.instance, "sales");
        strictEqual(error.status, 403);
        deepStrictEqual(error.messages, ['This name "sales" is already in use.']);
        return true;
      });

      // Unknown instance: 404 before the key is checked, even with a wrong key.
      await rejects(double.withKey("wrong").instances().connectionState("ghost"), (error) => {
        ok(error instanceof InstanceNotFoundException);
        deepStrictEqual(error.messages, ['The "ghost" instance does not exist']);
        return true;
      });
      // Known instance, wrong key: 401 with the string message.
      await rejects(double.withKey("wrong").instances().connectionState("sales"), (error) => {
        ok(error instanceof AuthenticationException);
        strictEqual(error.status, 401);
        deepStrictEqual(error.messages, ["Unauthorized"]);
        return true;
      });
      // The instance's own token works for it, not for another instance, and not for create.
      await gw.instances().create({ instanceName: "support" });
      const own = double.withKey("sales-token");
      strictEqual((await own.instances().connectionState("sales")).json("instance.state"), "close");
      await rejects(own.instances().connectionState("support"), AuthenticationException);
      await rejects(own.instances().create("third"), AuthenticationException);
      const visible = await own.instances().fetchAll();
      deepStrictEqual((visible.data as Array<{ name: string }>).map((row) => row.name), ["sales"]);

      // Sending while not connected: the server's "Connection Closed" family.
      await rejects(gw.instance("sales").messages().text("5511999999999", "hi"), (error) => {
        ok(error instanceof MessageException);
        strictEqual(error.reason, "not_connected");
        return true;
      });

      // Connect gives a QR; a scan opens the instance; then sends succeed with the messageRaw shape.
      const qr = await gw.instances().getQrCode("sales");
      ok(qr !== null && typeof qr.code === "string" && qr.base64?.startsWith("data:image/png;base64,"));
      double.simulator.simulateScan("sales");
      strictEqual(await gw.instances().isConnected("sales"), true);
      const sent = await gw.instance("sales").messages().text("5511999999999", "hello");
      strictEqual(sent.status, 201);
      strictEqual(sent.json("key.remoteJid"), "5511999999999@s.whatsapp.net");
      strictEqual(sent.json("key.fromMe"), true);
      strictEqual(sent.json("status"), "PENDING");
      strictEqual(sent.json("message.conversation"), "hello");
      strictEqual(typeof sent.json("messageTimestamp"), "number");
      ok(/^[0-9A-F]{20,32}$/.test(String(sent.json("key.id"))));

      double.simulator.setNotOnWhatsApp("5511888888888");
      await rejects(gw.instance("sales").messages().text("5511888888888", "hi"), (error) => {
        ok(error instanceof MessageException);
        strictEqual(error.reason, "not_on_whatsapp");
        return true;
      });
      strictEqual(await gw.instance("sales").chats().isOnWhatsApp("5511888888888"), false);
      strictEqual(await gw.instance("sales").chats().isOnWhatsApp("5511999999999"), true);

      // The server's own validation (bypassing the library's DTO checks) arrives as ValidationException.
      await rejects(
        gw.getClient().request("POST", "/message/sendText/{instance}", {
          instance: "sales",
          body: { number: "5511999999999" },
        }),
        (error) => {
          ok(error instanceof ValidationException);
          deepStrictEqual(error.messages, ['instance requires property "text"']);
          return true;
        },
      );
    } finally {
      await double.close();
    }
  });

  Deno.test(`${name}: webhook and settings configuration keep state between calls`, async () => {
    const double = await open();
    try {
      const gw = double.service;
      await gw.instances().create("ops");
      const ops = gw.instance("ops");
      strictEqual((await ops.webhooks().find()).data, null);
      await ops.webhooks().set({ url: "http://127.0.0.1:9/hook", events: [] });
      const all = await ops.webhooks().find();
      strictEqual(all.json("enabled"), true);
      ok((all.json("events") as string[]).includes("MESSAGES_UPSERT"));
      await ops.webhooks().disable();
      deepStrictEqual((await ops.webhooks().find()).json("events"), []);
      // The server forgot the list: enable() without one refuses rather than subscribing to everything.
      await rejects(ops.webhooks().enable(), ValidationException);
      await ops.webhooks().enable(["MESSAGES_UPSERT"]);
      deepStrictEqual((await ops.webhooks().find()).json("events"), ["MESSAGES_UPSERT"]);
      strictEqual((await ops.webhooks().find()).json("enabled"), true);

      // create stores the settings it was given (all false by default), so find returns them.
      strictEqual((await ops.settings().get()).json("alwaysOnline"), false);
      await ops.settings().update({ alwaysOnline: true });
      const settings = await ops.settings().get();
      strictEqual(settings.json("alwaysOnline"), true);
      strictEqual(settings.json("rejectCall"), false);
    } finally {
      await double.close();
    }
  });
}
