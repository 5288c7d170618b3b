/**
 * Against the real gateway server (Evolution API 2.3.x), when GW_REAL_URL and GW_REAL_KEY are set: its
 * instances cannot reach WhatsApp here, which is what the stuck-connecting and disconnected paths need.
 */
import { deepStrictEqual, ok, rejects, strictEqual } from "node:assert/strict";
import type { ConnectFlowEvent } from "../../src/resources/mod.ts";
import { GatewayService, InstanceDisconnectedException } from "../../mod.ts";

const url = Deno.env.get("GW_REAL_URL");
const key = Deno.env.get("GW_REAL_KEY");

Deno.test({
  name:
    "real server: serverInfo, secure webhook, a pairing flow stuck connecting, sends refused then failed fast",
  ignore: !url || !key,
  async fn() {
    const routes: string[] = [];
    const recording: typeof fetch = (input, init) => {
      const request = new Request(input, init);
      routes.push(`${request.method} ${new URL(request.url).pathname}`);
      return fetch(request);
    };
    const name = `gw-health-${crypto.randomUUID().slice(0, 8)}`;
    const gw = new GatewayService({
      server_url: url!,
      api_key: key!,
      instance: name,
      retry: { max_retries: 0 },
    }, {
      fetch: recording,
    });
    const server = await gw.serverInfo();
    strictEqual(server.line, "2.3");
    ok(server.version.startsWith("2.3."), server.version);
    await gw.instances().create(name);
    try {
      const settings = await gw.webhooks().secure({
        url: "http://127.0.0.1:9/gateway/webhook/" + name,
        events: ["CONNECTION_UPDATE"],
      });
      deepStrictEqual((await gw.webhooks().find()).data?.headers, { jwt_key: settings.signature.secret });

      const events: ConnectFlowEvent[] = [];
      for await (
        const event of gw.instances().connectFlow({
          method: "pairing",
          number: "5511999999999",
          stuckAfterMs: 4_000,
          pollIntervalMs: 1_000,
          timeoutMs: 60_000,
        })
      ) events.push(event);
      deepStrictEqual(events.map((e) => e.type === "refused" ? e.reason : e.type), ["stuck_connecting"]);
      strictEqual(routes.filter((r) => r.startsWith("POST /instance/restart")).length, 1);

      for (let i = 0; i < 2; i++) {
        await rejects(gw.messages().text("5511999999999", "hello"), (e: unknown) => {
          ok(e instanceof InstanceDisconnectedException, String(e));
          strictEqual(e.local, false);
          return true;
        });
      }
      const before = routes.length;
      await rejects(gw.messages().text("5511999999999", "hello"), (e: unknown) => {
        ok(e instanceof InstanceDisconnectedException);
        return e.local === true;
      });
      strictEqual(routes.length, before);
      strictEqual((await gw.health().get({ connection: "default", instance: name })).status, "suspect");
    } finally {
      await gw.instances().delete(name).catch(() => {});
    }
  },
});
