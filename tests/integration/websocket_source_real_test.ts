// WebSocketSource against the real gateway server (GW_REAL_URL, GW_REAL_KEY; skipped without them), started
// with WEBSOCKET_ENABLED (EVO_SINKS="websocket", ../shared/realserver/README.md). Its instances never reach
// WhatsApp: after `connect` the server emits a connection.update (state "connecting") about every 30 s. The
// server opens the instance's namespace on its first publish, so the source waits for it, then takes the
// next one.
import { deepStrictEqual, ok } from "node:assert/strict";
import { WebSocketSource } from "../../src/sources/websocket/mod.ts";
import { WebhookProcessor } from "../../src/webhooks/processor.ts";
import { NO_REAL_SERVER, realServerService } from "../helpers/real_server.ts";

Deno.test({
  name: "real server: WebSocketSource enables the sink and a connection.update arrives over socket.io",
  ignore: NO_REAL_SERVER,
  async fn() {
    const { name, store, gw } = realServerService("wsrc");
    const said: string[] = [];
    const arrived = Promise.withResolvers<{ event: string; instance?: string; state?: string }>();
    const processor = new WebhookProcessor({ log: false, store })
      .on(
        "connection.update",
        (p) => arrived.resolve({ event: p.event, instance: p.instance, state: p.connectionState }),
      );
    await gw.instances().create(name);
    const source = new WebSocketSource({
      url: Deno.env.get("GW_REAL_URL")!,
      apiKey: Deno.env.get("GW_REAL_KEY")!,
      instances: [name],
      events: ["messages.upsert", "connection.update"],
      backoff: { initialMs: 200, maxMs: 1000 },
      log: (line) => void said.push(line),
    });
    let consumer: ReturnType<WebSocketSource["consume"]> | undefined;
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      await source.setup(gw);
      const sink = (await gw.websocket().find()).data;
      deepStrictEqual([sink?.enabled, sink?.events], [true, ["MESSAGES_UPSERT", "CONNECTION_UPDATE"]]);
      consumer = source.consume(processor);
      await gw.instances().connect(name);
      // A guard for a server that never emits, not a timed assertion: about 30 s between emits.
      const event = await Promise.race([
        arrived.promise,
        new Promise<never>((_, reject) =>
          timer = setTimeout(() => reject(new Error(`no connection.update: ${said.join(" | ")}`)), 90_000)
        ),
      ]);
      await consumer.ready;
      deepStrictEqual(event, { event: "CONNECTION_UPDATE", instance: name, state: "connecting" });
      ok(said.every((line) => !line.includes(Deno.env.get("GW_REAL_KEY")!)), said.join(" | "));
    } finally {
      clearTimeout(timer);
      await consumer?.close();
      await gw.instances().delete(name).catch(() => {});
    }
  },
});
